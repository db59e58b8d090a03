import type { RejectBody } from "../../api/bodies";
import { DomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { lockRun, rejectWaitingRun } from "../lifecycle/run-lifecycle";
import { loadRun } from "../plans/load-run";
import { toRunView, type RunView } from "../plans/run-view";
import { storedSteps } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";

/**
 * A decision on a run needs decision authority: a supervisor, or a person who may
 * approve at least one of the run's tools. Errors: 403 `forbidden`, audited `denied`.
 */
async function requireDecisionAuthority(viewer: Viewer, runId: string, tools: string[]): Promise<void> {
  if (viewer.role === "supervisor" || viewer.grants.some((g) => g.canApprove && tools.includes(g.tool))) return;
  await appendAudit(prisma, { runId, type: "denied", actor: { kind: "user", id: viewer.id }, data: { action: "reject", missing: { kind: "grant", anyOf: tools } } });
  throw new DomainError("forbidden", "Rejecting a run needs the authority to approve at least one of its steps (or the supervisor role).");
}

/**
 * Rejects the run (docs/api.md `POST /api/runs/{runId}/rejections`): status `rejected`, the reason
 * saved for the agent to read on its run, active approvals invalidated, audited `rejected` — one
 * transaction through the run lifecycle. Errors: 404; 403 `forbidden` without decision authority;
 * 409 `expired`, `run_not_pending`,
 * `stale_plan_version` {currentVersion, plan}.
 */
export async function rejectRun(viewer: Viewer, runId: string, body: RejectBody, now = new Date()): Promise<RunView> {
  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has already expired.", { expiresAt: run.expiresAt.toISOString() });
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; it cannot be rejected now.`, { status });
  const stale = () => {
    const current = run.planVersions.find((p) => p.version === run.planVersion);
    return new DomainError("stale_plan_version", `The plan changed: it is now at version ${run.planVersion}.`, {
      currentVersion: run.planVersion,
      plan: { version: run.planVersion, steps: storedSteps(current?.steps) },
    });
  };
  if (body.planVersion !== run.planVersion) throw stale();
  await requireDecisionAuthority(viewer, runId, storedSteps(run.planVersions.find((p) => p.version === run.planVersion)?.steps).map((s) => s.tool));
  // Row locks (docs/design.md "Transactions and locks"): the run's lock, then a conditional move.
  // Anomaly prevented: a rejection and an approval (or an edit) of one run crossing — the run
  // rejected while its approval completes, or an edit's new version rejected unseen. Provoked by
  // lib/server/db/row-lock-anomalies.test.ts on both databases.
  return inTransaction(async (tx) => {
    await lockRun(tx, runId);
    const rejected = await rejectWaitingRun(tx, runId, body.planVersion, body.reason, { kind: "user", id: viewer.id });
    // A rejection answers every open hand-off of the run: nothing is left to decide.
    if (rejected) await tx.approvalRequest.updateMany({ where: { runId, resolvedAt: null }, data: { resolvedAt: now } });
    if (!rejected) {
      const current = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { planVersion: true } });
      throw new DomainError("stale_plan_version", "The plan changed while you were rejecting it.", { currentVersion: current.planVersion });
    }
    return ok(toRunView(await loadRun(runId, {}, tx), now));
  }, prisma, { isolation: "row-locks" });
}
