import { consumeCoApprovals } from "../approvals/consume-co-approvals";
import { inSpan } from "../trace/span";
import type { OutcomeBody } from "../../api/bodies";
import type { RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { lockTaskAndRun, stopForCondition } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../plans/stored-plan";
import type { AgentCaller } from "../auth/viewer";
import { inTransaction, LostRace, ok, refuse, type Db, type Result, type Tx } from "../db/transaction";
import { toStepExecutionView, type StepExecutionView } from "./execution-view";
import { settleExecution } from "./settle-execution";
import { EXECUTED_END_STATUSES, recordRunOutcome } from "../outcomes/record-run-outcome";
import { CANNOT_EXECUTE_FLAG } from "../../lifecycle/run-outcome";
import { moveApprovals } from "../lifecycle/approval-lifecycle";
import { carryOwnWriteVersions, holdWrittenAmount } from "../records/write-holds";

/**
 * Records the executor's report on a claimed step (docs/design.md §9, docs/api.md
 * `POST /api/v1/runs/{runId}/steps/{stepId}/outcome`). `body.token` must be the token of that
 * step's claim, for a run of `agent`. Recorded once (status, detail, reportedAt = `now`, UTC):
 * `succeeded`/`failed` consume the approval (`claimed → consumed`); a `succeeded` one that moved
 * money keeps holding it until the local copy shows the write (`holdWrittenAmount`, with the
 * target version the executor reports in `body.targetVersions`); `unknown` leaves it `claimed`
 * and the step waits for a supervisor (never re-claimable, never replayed); `cannot_execute` (the
 * executor cannot run the step at all, nothing written) is recorded `failed` with flag
 * `cannot_execute`: the run fails with outcome `cannot_execute` and the step is listed for
 * reconciliation. The run then settles
 * (claims/settle-execution.ts). A report on a run that is no longer executing (stopped by a task
 * revision, expired…), after the claim's lease lapsed, or after the step's approval was withdrawn
 * (each a state in which the fence refuses the token) is recorded with a `flag`
 * (`reported_after_<run status>`, `reported_after_lease_expired`,
 * `reported_after_approval_withdrawn`) and waits for a supervisor on the reconciliation list; the
 * approval is not consumed and the run does not move. A repeat with the same token and status returns the saved step
 * (`replayed: true`). Returns `{step, run: {id, status}}`.
 * Errors (409): `invalid_claim_token` (unknown token, or the token of another step, run or agent;
 * audited `denied` when the run is the caller's); `outcome_already_reported` {reportedStatus,
 * resolution} for a different status after a report, or any report after a person reconciled.
 * Audited `outcome`. With `stopConditionMet` (status `failed`: the executor found the step's stop
 * condition met and wrote nothing) the run stops instead: `stopped`, stopReason
 * `{code: "stop_condition_met", stepId, stopCondition, detail, at}`, audited `stopped_condition`.
 * A run that ends here with a written step gets its outcome record (lib/server/outcomes).
 * Traced as a `outcome` span (lib/server/trace/span.ts).
 */
export function reportOutcome(...args: Parameters<typeof reportOutcomeUntraced>): ReturnType<typeof reportOutcomeUntraced> {
  return inSpan("outcome", () => reportOutcomeUntraced(...args));
}

/** `reportOutcome` without its `outcome` trace span. */
async function reportOutcomeUntraced(
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: OutcomeBody,
  now = new Date(),
  db: Db = prisma,
): Promise<{ step: StepExecutionView; run: { id: string; status: RunStatus }; replayed: boolean }> {
  // Row locks (docs/design.md "Transactions and locks"): the task's lock, then the run's (one
  // statement on PostgreSQL, `lockTaskAndRun`, which also reads the run), then every read. Anomalies prevented: two outcomes of one run (parallel steps, or a report racing a
  // person's reconciliation or a stop) each settling the run from a reading that misses the
  // other's step — a run left executing with every step reported, or completed twice; and an
  // outcome record written without a ticket event committed at the same moment (the event's
  // transaction recomputes only runs that had ended, this one reads the task's events: the task's
  // lock makes one of them see the other). The step's own report is a conditional update
  // (claimed → reported), so one of two reports of one token wins. Provoked by
  // lib/server/db/row-lock-anomalies.test.ts on both databases.
  return inTransaction((tx) => reportOutcomeIn(tx, agent, runId, stepId, body, now), db, { isolation: "row-locks" });
}

/**
 * `reportOutcome`'s decision inside the caller's transaction `tx` (which it locks: the task, then
 * the run): the same rules, answers and audit. Returns the result to commit (a refusal included);
 * for a caller that must report in the transaction of its own write (the reference target's
 * promotion, lib/server/demo/staged-effects.ts).
 */
export async function reportOutcomeIn(
  tx: Tx,
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: OutcomeBody,
  now: Date,
): Promise<Result<{ step: StepExecutionView; run: { id: string; status: RunStatus }; replayed: boolean }>> {
  const cannotExecute = body.status === "cannot_execute";
  const status: "succeeded" | "failed" | "unknown" = cannotExecute ? "failed" : (body.status as "succeeded" | "failed" | "unknown");
  const detail = body.detail ?? null;
  const run = await lockTaskAndRun(tx, runId);
  const exec = await tx.stepExecution.findUnique({ where: { token: body.token } });
  if (!run || run.agentId !== agent.id || !exec || exec.runId !== runId || exec.stepId !== stepId) {
    // On the record whoever's token it was: the caller's run, or (runId null) another agent's.
    await appendAudit(tx, {
      runId: run && run.agentId === agent.id ? runId : null,
      type: "denied",
      actor: { kind: "agent", id: agent.id },
      data: { action: "report_outcome", stepId, code: "invalid_claim_token", ...(run && run.agentId !== agent.id ? { foreignRunId: runId } : {}) },
    });
    return refuse("invalid_claim_token", `This token is not the claim of step ${stepId} of run ${runId}. Claim the step first and report with its token.`, { stepId });
  }
  if (exec.reconciledAt) {
    return refuse("outcome_already_reported", `A person already reconciled step ${stepId} as ${exec.resolution}; the report is not recorded.`, {
      reportedStatus: exec.status,
      resolution: exec.resolution,
    });
  }
  if (exec.status !== "claimed") {
    if (exec.status === status && (exec.flag === CANNOT_EXECUTE_FLAG) === cannotExecute) return ok({ step: toStepExecutionView(exec), run: { id: runId, status: run.status as RunStatus }, replayed: true });
    return refuse("outcome_already_reported", `The outcome of step ${stepId} was already reported as ${exec.status}; it is recorded once.`, {
      reportedStatus: exec.status,
      resolution: exec.resolution,
    });
  }
  // A late report is recorded but never silently accepted: it is flagged for a person to
  // reconcile, and neither the approval nor the run moves. Late means: the run is no longer
  // executing (stopped, expired…), the claim's lease lapsed (a fence would refuse this token
  // now, so the write should not have happened), or the step's approval was withdrawn.
  // `cannot_execute` is always flagged: the step waits for a person even though the run ends.
  const late = await lateReportFlag(tx, run.status, exec, now);
  const flag = late ?? (cannotExecute ? CANNOT_EXECUTE_FLAG : null);
  const res = await tx.stepExecution.updateMany({
    where: { id: exec.id, status: "claimed", reconciledAt: null },
    data: { status, detail, reportedAt: now, flag },
  });
  if (res.count !== 1) throw new LostRace("outcome reported concurrently");
  if (late) {
    await appendAudit(tx, {
      runId,
      type: "outcome",
      actor: { kind: "agent", id: agent.id },
      data: { stepId, status, detail, approvalConsumed: false, runStatus: run.status, needsReconciliation: true, flag },
    });
    const after = { ...exec, status, detail, reportedAt: now, flag };
    return ok({ step: toStepExecutionView(after), run: { id: runId, status: run.status as RunStatus }, replayed: false });
  }
  const approvalConsumed =
    status !== "unknown" && (await moveApprovals(tx, "consume", { id: exec.approvalId })) === 1;
  if (approvalConsumed) await consumeCoApprovals(tx, { runId, stepId: exec.stepId, planVersion: exec.planVersion, approvalId: exec.approvalId });
  // The written amount keeps holding until the local copy shows it (a synced version).
  const moneyHeld = approvalConsumed && status === "succeeded" && (await holdWrittenAmount(tx, exec.approvalId, body.targetVersions, exec.claimedAt));
  // The run's later steps on the same record now expect the version this write produced.
  if (approvalConsumed && status === "succeeded") await carryOwnWriteVersions(tx, runId, exec.approvalId, body.targetVersions);
  // A met stop condition stops the run (typed), instead of settling it as failed.
  let runStatus: RunStatus;
  if (body.stopConditionMet) {
    const stopCondition = await stopConditionOf(tx, runId, exec.planVersion, exec.stepId);
    const stopped = await stopForCondition(tx, runId, { code: "stop_condition_met", stepId: exec.stepId, stopCondition, detail: body.detail ?? null, at: now.toISOString() }, { kind: "agent", id: agent.id });
    runStatus = stopped ? "stopped" : await settleExecution(tx, runId, now);
  } else {
    runStatus = await settleExecution(tx, runId, now);
  }
  // The run ended with what it wrote: its outcome record (docs/design.md "Did the edit help?").
  if ((EXECUTED_END_STATUSES as readonly string[]).includes(runStatus)) await recordRunOutcome(tx, runId, now);
  await appendAudit(tx, {
    runId,
    type: "outcome",
    actor: { kind: "agent", id: agent.id },
    data: { stepId, status, detail, approvalConsumed, runStatus, ...(moneyHeld ? { moneyHeldUntilSync: true } : {}), ...(body.targetVersions ? { targetVersions: body.targetVersions } : {}), needsReconciliation: status === "unknown" || cannotExecute, ...(cannotExecute ? { flag } : {}), ...(body.stopConditionMet ? { stopConditionMet: true } : {}) },
  });
  const after = { ...exec, status, detail, reportedAt: now, flag };
  return ok({ step: toStepExecutionView(after), run: { id: runId, status: runStatus }, replayed: false });
}

/**
 * Why a report on a still-claimed step `exec` at `now` is late, or null when it is on time: the run
 * is not executing (`reported_after_<status>`), the lease ended at or before `now`
 * (`reported_after_lease_expired`), or the approval the claim holds is no longer `claimed`
 * (`reported_after_approval_withdrawn`). The same conditions, in the same order, as the fence's.
 */
async function lateReportFlag(
  tx: Tx,
  runStatus: string,
  exec: { approvalId: string; leaseExpiresAt: Date | null },
  now: Date,
): Promise<string | null> {
  if (runStatus !== "executing") return `reported_after_${runStatus}`;
  if (!exec.leaseExpiresAt || exec.leaseExpiresAt.getTime() <= now.getTime()) return "reported_after_lease_expired";
  const approval = await tx.approval.findUnique({ where: { id: exec.approvalId }, select: { state: true } });
  if (approval?.state !== "claimed") return "reported_after_approval_withdrawn";
  return null;
}

/** The stop condition of step `stepId` in plan version `version` of the run, or null. */
async function stopConditionOf(tx: Tx, runId: string, version: number, stepId: string): Promise<string | null> {
  const pv = await tx.planVersion.findUnique({ where: { runId_version: { runId, version } }, select: { steps: true } });
  return storedSteps(pv?.steps).find((s) => s.id === stepId)?.stopCondition ?? null;
}
