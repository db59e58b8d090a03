import { describeReapproval, diffPlans, type PlanDiff } from "../../diff/plan-diff";
import { DomainError } from "../../errors/domain-error";
import type { Plan } from "../../plan/schema";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { loadRun } from "../plans/load-run";
import { catalogAt } from "../tools/imported-tools";
import { storedSteps, storedValidation } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";

/**
 * The semantic diff between two stored versions of a run (`from` → `to`), annotated from live
 * account data (docs/design.md §7), with the re-approval line the review screen shows — computed by
 * `decideReapproval`, the rule the edit used to carry or invalidate approvals.
 * Errors: 404 `not_found` for a run outside the viewer's desk or a version that does not exist.
 */
export async function diffVersions(viewer: Viewer, runId: string, from: number, to: number): Promise<{ diff: PlanDiff; reapproval: string; from: Plan; to: Plan }> {
  const run = await loadRun(runId, deskScope(viewer));
  const row = (v: number) => run.planVersions.find((p) => p.version === v);
  const [a, b] = [row(from), row(to)];
  if (!a || !b) throw new DomainError("not_found", `Run ${runId} has no version ${a ? to : from}.`);
  const before = { version: from, steps: storedSteps(a.steps) };
  const after = { version: to, steps: storedSteps(b.steps) };
  const desk = await loadAccountSnapshot({ ticketId: run.ticketId, desk: run.desk, steps: [...before.steps, ...after.steps], catalog: await catalogAt(run.catalogVersion) });
  // The same rule the edit applied (lib/diff/reapproval.ts): the approvals `from` had when it was
  // replaced (now superseded = carried, or invalidated; still active if nothing replaced it) and
  // the issues stored with `to`.
  const consented = run.approvals.filter((x) => x.planVersion === from && ["active", "superseded", "invalidated"].includes(x.state));
  const { issues, gate } = storedValidation(b.validation);
  const diff = diffPlans(before, after, desk, { issues, approvals: consented, gate });
  const reapproval = describeReapproval(diff, after);
  return { diff, reapproval, from: before, to: after };
}
