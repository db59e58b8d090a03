import { describeReapproval, diffPlans, type PlanDiff } from "../../diff/plan-diff";
import { DomainError } from "../../errors";
import type { Plan } from "../../plan/schema";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { loadRun } from "../runs/load-run";
import { storedSteps } from "../runs/run-view";
import { deskScope, type Viewer } from "../session";

/**
 * The semantic diff between two stored versions of a run (`from` → `to`), annotated from live
 * account data (DESIGN.md §7), with the re-approval line the review screen shows.
 * Errors: 404 `not_found` for a run outside the viewer's desk or a version that does not exist.
 */
export async function diffVersions(viewer: Viewer, runId: string, from: number, to: number): Promise<{ diff: PlanDiff; reapproval: string; from: Plan; to: Plan }> {
  const run = await loadRun(runId, deskScope(viewer));
  const row = (v: number) => run.planVersions.find((p) => p.version === v);
  const [a, b] = [row(from), row(to)];
  if (!a || !b) throw new DomainError("not_found", `Run ${runId} has no version ${a ? to : from}.`);
  const before = { version: from, steps: storedSteps(a.steps) };
  const after = { version: to, steps: storedSteps(b.steps) };
  const desk = await loadAccountSnapshot({ ticketId: run.ticketId, steps: [...before.steps, ...after.steps] });
  const diff = diffPlans(before, after, desk);
  // Beyond changed digests, approvals also lapse when a step moved or gained a warning that was
  // not acknowledged (approvals/carry-approvals.ts); name those steps too, so the line matches the buttons.
  const approved = new Set(run.approvals.filter((x) => x.planVersion === to && x.state === "active").map((x) => x.stepId));
  const hadConsent = new Set(run.approvals.filter((x) => x.planVersion >= from && x.planVersion < to && x.approverId !== null).map((x) => x.stepId));
  const extra = after.steps
    .map((s, i) => ({ s, pos: i + 1 }))
    .filter(({ s }) => !approved.has(s.id) && !diff.reapprovalRequired.includes(s.id) && hadConsent.has(s.id))
    .map(({ pos }) => `step ${pos} (moved or new warning)`);
  let reapproval = describeReapproval(diff, after);
  if (extra.length > 0) {
    reapproval = diff.reapprovalRequired.length > 0 ? `${reapproval}, ${extra.join(", ")}` : `re-approval required for ${extra.join(", ")}`;
  }
  return { diff, reapproval, from: before, to: after };
}
