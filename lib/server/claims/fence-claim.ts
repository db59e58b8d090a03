import { DomainError } from "../../errors/domain-error";
import { describeRecord } from "../../desk/lookup";
import { targetsOffDesk } from "../account-data/load-account-snapshot";
import { appendAudit } from "../audit-log/append-audit";
import { storedSteps } from "../plans/stored-plan";
import { prisma } from "../db/db";
import { stopForStaleTask } from "../lifecycle/run-lifecycle";
import type { AgentCaller } from "../auth/session";
import { inTransaction, ok, refuse, type Tx } from "../db/transaction";

/** A claim token that still holds: the write it fences may happen now. Times ISO UTC. */
export interface FenceView {
  token: string;
  runId: string;
  stepId: string;
  digest: string;
  taskRevision: number;
  leaseExpiresAt: string;
  holds: true;
}

/**
 * The fence (docs/design.md "The moment of the write"): checked INSIDE the transaction of
 * the write it guards, so nothing can change between the check and the write. A claim token holds
 * only while: it is the token of an open claim (`invalid_claim_token` otherwise, or when `agentId`
 * is given and the run is another agent's), no outcome was reported or reconciled, the lease has
 * not lapsed at `now` (UTC), the run is still executing (not stopped, expired, failed…), the task
 * is still at the revision the claim was made for — checked by a no-op conditional update of the
 * task row, which also holds back a concurrent task revision until this transaction ends — and the
 * step's approval is still `claimed`, and every record the step targets still belongs to the
 * run's desk (`not_on_desk` otherwise). Refusals are 409 `claim_fenced` {reason, …}; a task that
 * moved on also stops the run (`stopped_stale_task`, as a claim would). Every refusal is audited
 * `fenced`. Returns `{ok: true, fence}` or `{ok: false, error}`; the caller commits either way.
 */
export async function checkFence(tx: Tx, token: string, now: Date, agentId: string | null): Promise<{ ok: true; fence: FenceView } | { ok: false; error: DomainError }> {
  const exec = await tx.stepExecution.findUnique({ where: { token }, include: { run: { select: { id: true, agentId: true, desk: true, status: true, taskId: true, boundTaskRevision: true, executions: { select: { stepId: true, status: true, resolution: true } } } } } });
  if (!exec || (agentId !== null && exec.run.agentId !== agentId)) {
    return { ok: false, error: new DomainError("invalid_claim_token", "This token is not a claim of yours; nothing may be written with it.") };
  }
  const fenced = async (reason: string, message: string, details: Record<string, unknown> = {}) => {
    await appendAudit(tx, { runId: exec.runId, type: "fenced", actor: agentId ? { kind: "agent", id: agentId } : { kind: "system" }, data: { stepId: exec.stepId, reason, ...details } });
    return { ok: false as const, error: new DomainError("claim_fenced", message, { reason, runId: exec.runId, stepId: exec.stepId, ...details }) };
  };
  if (exec.reconciledAt || exec.status !== "claimed") {
    return fenced("outcome_reported", `The outcome of step ${exec.stepId} was already ${exec.reconciledAt ? "reconciled" : `reported (${exec.status})`}; this token writes nothing more.`);
  }
  if (!exec.leaseExpiresAt || exec.leaseExpiresAt.getTime() <= now.getTime()) {
    return fenced("lease_expired", `The claim of step ${exec.stepId} lapsed at ${exec.leaseExpiresAt?.toISOString() ?? "its claim"}; do not write. A person reconciles the step.`, {
      leaseExpiresAt: exec.leaseExpiresAt?.toISOString() ?? null,
    });
  }
  if (exec.run.status !== "executing") {
    return fenced(`run_${exec.run.status}`, `Run ${exec.runId} is ${exec.run.status}; step ${exec.stepId} must not be written.`, { runStatus: exec.run.status });
  }
  const held = await tx.task.updateMany({ where: { id: exec.run.taskId, revision: exec.taskRevision }, data: { revision: exec.taskRevision } });
  if (held.count !== 1) {
    const live = (await tx.task.findUniqueOrThrow({ where: { id: exec.run.taskId }, select: { revision: true } })).revision;
    const executedStepIds = exec.run.executions.filter((e) => (e.resolution ?? e.status) === "succeeded").map((e) => e.stepId);
    const claimedStepIds = exec.run.executions.filter((e) => !e.resolution && (e.status === "claimed" || e.status === "unknown")).map((e) => e.stepId);
    await stopForStaleTask(
      tx,
      exec.runId,
      { code: "stopped_stale_task", boundRevision: exec.run.boundTaskRevision, liveRevision: live, executedStepIds, claimedStepIds, blockedStepId: exec.stepId, at: now.toISOString() },
      agentId ? { kind: "agent", id: agentId } : { kind: "system" },
    );
    return fenced("task_revised", `The task moved from revision ${exec.taskRevision} to ${live} after step ${exec.stepId} was claimed; do not write. The run is stopped.`, {
      boundRevision: exec.taskRevision,
      liveRevision: live,
    });
  }
  const approval = await tx.approval.findUnique({ where: { id: exec.approvalId }, select: { state: true } });
  if (approval?.state !== "claimed") {
    return fenced("approval_withdrawn", `The approval of step ${exec.stepId} is ${approval?.state ?? "gone"}; do not write.`, { approvalState: approval?.state ?? null });
  }
  // A desk is a boundary: the step's targets must belong to the run's desk when it is written.
  const pv = await tx.planVersion.findUnique({ where: { runId_version: { runId: exec.runId, version: exec.planVersion } }, select: { steps: true } });
  const step = storedSteps(pv?.steps).find((s) => s.id === exec.stepId);
  const offDesk = await targetsOffDesk(tx, exec.run.desk, step ? [step] : []);
  if (offDesk.length > 0) {
    const what = offDesk.map((t) => describeRecord(t.kind, t.id)).join(", ");
    return fenced("not_on_desk", `Step ${exec.stepId} targets ${what}, which is not found on this desk; do not write.`, { targets: offDesk });
  }
  return {
    ok: true,
    fence: { token, runId: exec.runId, stepId: exec.stepId, digest: exec.digest, taskRevision: exec.taskRevision, leaseExpiresAt: exec.leaseExpiresAt.toISOString(), holds: true },
  };
}

/**
 * `POST /api/v1/claims/{token}/fence` (docs/api.md): asks, in one transaction, whether `token` still
 * holds (see `checkFence`) — what a system of record calls inside its own write. Answers the fence,
 * or 409 `claim_fenced` {reason} / `invalid_claim_token`, committed (a stale task stops the run).
 */
export async function fenceClaim(agent: AgentCaller, token: string, now = new Date()): Promise<FenceView> {
  return inTransaction(async (tx) => {
    const res = await checkFence(tx, token, now, agent.id);
    return res.ok ? ok(res.fence) : refuse(res.error.code, res.error.message, res.error.details);
  }, prisma);
}
