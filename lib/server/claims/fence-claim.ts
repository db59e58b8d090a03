import { DomainError } from "../../errors/domain-error";
import { inSpan } from "../trace/span";
import { describeRecord } from "../../desk/lookup";
import { targetsOffDesk } from "../account-data/load-account-snapshot";
import { appendAudit } from "../audit-log/append-audit";
import { storedSteps } from "../plans/stored-plan";
import { prisma } from "../db/db";
import { stopForStaleTask, stopForTargetChanged } from "../lifecycle/run-lifecycle";
import { readRecordVersions, type RecordVersions } from "../../records/record-key";
import type { FenceBody } from "../../api/bodies";
import type { AgentCaller } from "../auth/viewer";
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
 * moved on also stops the run (`stopped_stale_task`, as a claim would). Last, `targetVersions` (the
 * executor's live source versions of the step's records, read right before its write; see
 * `targetChange`): a record at another version than the approval saw is 409 `target_changed`
 * {record, approvedVersion, liveVersion} and stops the run (`stopForTargetChanged`: nothing of the
 * step is written, later steps never run). Every refusal is audited `fenced`. Returns
 * `{ok: true, fence}` or `{ok: false, error}`; the caller commits either way.
 */
export async function checkFence(
  tx: Tx,
  token: string,
  now: Date,
  agentId: string | null,
  targetVersions: RecordVersions | null = null,
): Promise<{ ok: true; fence: FenceView } | { ok: false; error: DomainError }> {
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
  const approval = await tx.approval.findUnique({ where: { id: exec.approvalId }, select: { state: true, recordVersions: true } });
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
  // The local copy's gap closes here: the target as the executor reads it now vs. as the approval saw it.
  const changed = targetChange(readRecordVersions(approval.recordVersions), targetVersions ?? {});
  if (changed) {
    const actor = agentId ? ({ kind: "agent", id: agentId } as const) : ({ kind: "system" } as const);
    await stopForTargetChanged(tx, exec.runId, { code: "target_changed", stepId: exec.stepId, ...changed, at: now.toISOString() }, actor);
    await appendAudit(tx, { runId: exec.runId, type: "fenced", actor, data: { stepId: exec.stepId, reason: "target_changed", ...changed } });
    return {
      ok: false,
      error: new DomainError(
        "target_changed",
        `${changed.record} is at version ${changed.liveVersion} at its source, but the approval of step ${exec.stepId} saw version ${changed.approvedVersion}; do not write. The run is stopped: a person decides again on what the record is now.`,
        { ...changed, runId: exec.runId, stepId: exec.stepId },
      ),
    };
  }
  return {
    ok: true,
    fence: { token, runId: exec.runId, stepId: exec.stepId, digest: exec.digest, taskRevision: exec.taskRevision, leaseExpiresAt: exec.leaseExpiresAt.toISOString(), holds: true },
  };
}

/**
 * The first record (by key order) whose live version in `live` differs from the version the
 * approval saw in `approved`, as `{record, approvedVersion, liveVersion}`; null when none does. A key
 * the approval did not see (not a record the step's arguments name, or one without a source version
 * then) is ignored: there is nothing to compare it with. Pure.
 */
export function targetChange(approved: RecordVersions, live: RecordVersions): { record: string; approvedVersion: number; liveVersion: number } | null {
  for (const record of Object.keys(live).sort()) {
    if (!Object.prototype.hasOwnProperty.call(approved, record)) continue;
    if (approved[record] !== live[record]) return { record, approvedVersion: approved[record], liveVersion: live[record] };
  }
  return null;
}

/**
 * `POST /api/v1/claims/{token}/fence` (docs/api.md): asks, in one transaction, whether `token` still
 * holds (see `checkFence`) — what a system of record calls inside its own write — and, with
 * `body.targetVersions`, whether the target is still at the versions its approval saw. Answers the
 * fence, or 409 `claim_fenced` {reason} / `target_changed` {record, approvedVersion, liveVersion} /
 * `invalid_claim_token`, committed (a stale task or a changed target stops the run).
 * Traced as a `fence` span (lib/server/trace/span.ts).
 */
export function fenceClaim(...args: Parameters<typeof fenceClaimUntraced>): ReturnType<typeof fenceClaimUntraced> {
  return inSpan("fence", () => fenceClaimUntraced(...args));
}

/** `fenceClaim` without its `fence` trace span. */
async function fenceClaimUntraced(agent: AgentCaller, token: string, body: FenceBody = {}, now = new Date()): Promise<FenceView> {
  return inTransaction(async (tx) => {
    const res = await checkFence(tx, token, now, agent.id, body.targetVersions ?? null);
    return res.ok ? ok(res.fence) : refuse(res.error.code, res.error.message, res.error.details);
  }, prisma);
}
