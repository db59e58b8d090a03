import { holdWrittenAmount } from "../records/write-holds";
import { consumeCoApprovals } from "../approvals/consume-co-approvals";
import { DomainError } from "../../errors/domain-error";
import type { ReconcileBody } from "../../api/reconcile-body";
import type { RunStatus } from "../../lifecycle/run-state";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { lockRun } from "../lifecycle/run-lifecycle";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, LostRace, ok, refuse, type Db } from "../db/transaction";
import { claimAwaitsReconciliation, STALE_CLAIM_SECONDS, toStepExecutionView, type StepExecutionView } from "./execution-view";
import { settleExecution } from "./settle-execution";
import { EXECUTED_END_STATUSES, recordRunOutcome } from "../outcomes/record-run-outcome";
import { moveApprovals } from "../lifecycle/approval-lifecycle";

/**
 * A supervisor records what really happened to a step whose outcome nobody knows (docs/design.md §9:
 * an `unknown` outcome waits for a person; "People": supervisors reconcile). Reconcilable: a step
 * reported `unknown`, or claimed and not reported when its lease ended (`claimAwaitsReconciliation`:
 * the token fences no write any more, the executor vanished). Saves `resolution` (`succeeded`|`failed`), `reconciledBy`, `reconciledAt` = `now`
 * (UTC); the executor's own report stays as it was. The approval is consumed and the run settles
 * exactly as after an outcome report. The same resolution again returns the saved step
 * (`replayed: true`). A run that ends with a written step gets its outcome record. Audited `reconciled` {stepId, resolution, note, previousStatus}.
 * Errors: 403 `forbidden` unless supervisor (audited `denied`); 404 `not_found`; 409
 * `nothing_to_reconcile` {stepStatus, resolution?} — never claimed, already reported
 * succeeded/failed, claimed too recently, or already reconciled differently.
 */
export async function reconcileStep(
  viewer: Pick<Viewer, "id" | "role">,
  runId: string,
  stepId: string,
  body: ReconcileBody,
  now = new Date(),
  db: Db = prisma,
): Promise<{ step: StepExecutionView; run: { id: string; status: RunStatus }; replayed: boolean }> {
  await requireRole(viewer, ["supervisor"], "reconcile", { runId });
  const actor: Actor = { kind: "user", id: viewer.id };
  return inTransaction(async (tx) => {
    await lockRun(tx, runId);
    const run = await tx.run.findUnique({ where: { id: runId }, select: { status: true } });
    if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
    const exec = await tx.stepExecution.findUnique({ where: { runId_stepId: { runId, stepId } } });
    if (!exec) return refuse("nothing_to_reconcile", `Step ${stepId} was never claimed; there is nothing to reconcile.`, { stepStatus: null });
    if (exec.reconciledAt) {
      if (exec.resolution === body.resolution) return ok({ step: toStepExecutionView(exec), run: { id: runId, status: run.status as RunStatus }, replayed: true });
      return refuse("nothing_to_reconcile", `Step ${stepId} was already reconciled as ${exec.resolution}.`, { stepStatus: exec.status, resolution: exec.resolution });
    }
    const ageSeconds = Math.round((now.getTime() - exec.claimedAt.getTime()) / 1000);
    const staleClaim = claimAwaitsReconciliation(exec, now);
    if (exec.status !== "unknown" && !staleClaim && !exec.flag) {
      const until = exec.leaseExpiresAt ?? new Date(exec.claimedAt.getTime() + STALE_CLAIM_SECONDS * 1000);
      const why =
        exec.status === "claimed"
          ? `it was claimed ${ageSeconds} s ago and the executor may still report until its lease ends at ${until.toISOString()} (a claim without report can be reconciled from then)`
          : `its outcome was reported as ${exec.status}`;
      return refuse("nothing_to_reconcile", `Step ${stepId} does not need reconciliation: ${why}.`, { stepStatus: exec.status });
    }
    const res = await tx.stepExecution.updateMany({
      where: { id: exec.id, status: exec.status, reconciledAt: null },
      data: { resolution: body.resolution, reconciledBy: viewer.id, reconciledAt: now },
    });
    if (res.count !== 1) throw new LostRace("step reported concurrently");
    const approvalConsumed = (await moveApprovals(tx, "consume", { id: exec.approvalId })) === 1;
    if (approvalConsumed) await consumeCoApprovals(tx, { runId, stepId: exec.stepId, planVersion: exec.planVersion, approvalId: exec.approvalId });
    // A write a person confirms holds its money like a reported one, until a synced version shows it.
    if (approvalConsumed && body.resolution === "succeeded") await holdWrittenAmount(tx, exec.approvalId, null, exec.claimedAt);
    const runStatus = await settleExecution(tx, runId, now);
    if ((EXECUTED_END_STATUSES as readonly string[]).includes(runStatus)) await recordRunOutcome(tx, runId, now);
    await appendAudit(tx, {
      runId,
      type: "reconciled",
      actor,
      data: { stepId, resolution: body.resolution, note: body.note, previousStatus: exec.status, reason: exec.flag ? "flagged_report" : staleClaim ? "no_report" : "unknown_outcome", approvalConsumed, runStatus },
    });
    const after = { ...exec, resolution: body.resolution, reconciledBy: viewer.id, reconciledAt: now };
    return ok({ step: toStepExecutionView(after), run: { id: runId, status: runStatus }, replayed: false });
  }, db);
}
