import type { RejectBody } from "../../api/bodies";
import { DomainError } from "../../errors";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../run-state";
import { lockRun, rejectWaitingRun } from "../lifecycle/run-lifecycle";
import { loadRun } from "../runs/load-run";
import { storedSteps, toRunView, type RunView } from "../runs/run-view";
import { deskScope, type Viewer } from "../session";
import { inTransaction, ok } from "../transaction";

/**
 * Rejects the run (API.md `POST /api/runs/{runId}/rejections`): status `rejected`, the reason
 * saved for the agent to read on its run, active approvals invalidated, audited `rejected` — one
 * transaction through the run lifecycle. Errors: 404; 409 `expired`, `run_not_pending`,
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
  return inTransaction(async (tx) => {
    await lockRun(tx, runId);
    const rejected = await rejectWaitingRun(tx, runId, body.planVersion, body.reason, { kind: "user", id: viewer.id });
    if (!rejected) {
      const current = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { planVersion: true } });
      throw new DomainError("stale_plan_version", "The plan changed while you were rejecting it.", { currentVersion: current.planVersion });
    }
    return ok(toRunView(await loadRun(runId, {}, tx), now));
  });
}
