import { fromStates, toState, type RunEvent, type RunState } from "../../lifecycle/run-state";
import type { Prisma } from "../../generated/prisma/client";
import { appendAudit, type AuditInput } from "../audit-log/append-audit";
import type { DecisionReason } from "../../lifecycle/needs-decision";
import { needsDecisionEscalateAt } from "../../plan/policy";
import { inTransaction, ok, type Tx } from "../db/transaction";
import { moveApprovals } from "./approval-lifecycle";
import { resolveDatabaseUrl } from "../db/database-url";

const SQLITE = resolveDatabaseUrl().provider === "sqlite";

/**
 * The one owner of `run.status` (docs/style.md §12). Every status change of a run is an
 * event of lib/lifecycle/run-state.ts `RUN_EVENTS`, applied here as ONE conditional update
 * `UPDATE run SET status = <to> WHERE id = ? AND status IN (<from>) AND <caller's conditions>`
 * plus, when it moved the run, its audit event — both in the caller's transaction. No other
 * module writes `run.status` (a test greps for it).
 *
 * Approval states that change together with a run (expired with it, withdrawn when it is
 * rejected or stopped) are changed here too, so a transition and its consequences are one unit.
 */

/** Caller's extra conditions: anything but `status` (the event decides that). */
export type RunGuard = Omit<Prisma.RunWhereInput, "status" | "id">;
/** Columns written together with the status: anything but `status`. */
export type RunChanges = Omit<Prisma.RunUncheckedUpdateManyInput, "status" | "id">;

/**
 * Applies `event` to run `runId`: moves it to `toState(event)` iff its status is one of
 * `fromStates(event)` and `opts.where` holds, writing `opts.data` in the same statement; then
 * appends `opts.audit` (only when the run moved). Returns true when this call moved the run —
 * false means another decision got there first or a condition no longer holds.
 */
export async function moveRun(tx: Tx, runId: string, event: RunEvent, opts: { where?: RunGuard; data?: RunChanges; audit?: AuditInput } = {}): Promise<boolean> {
  const res = await tx.run.updateMany({
    where: { ...opts.where, id: runId, status: { in: fromStates(event) } },
    data: { ...opts.data, status: toState(event) },
  });
  if (res.count !== 1) return false;
  if (opts.audit) await appendAudit(tx, { ...opts.audit, runId });
  return true;
}

/**
 * Applies `event` to every run matching `where` at once: ONE conditional update
 * `UPDATE run SET status = <to>, <data> WHERE status IN (<from>) AND <where> RETURNING id, createdAt`
 * (no cap: a set-based write, however many runs match). Returns the runs this call moved, newest
 * first; the caller audits each (a run another decision moved first is not among them).
 */
export async function moveRunsReturning(tx: Tx, event: RunEvent, where: RunGuard, data: RunChanges = {}): Promise<{ id: string; createdAt: Date }[]> {
  const rows = await tx.run.updateManyAndReturn({
    where: { ...where, status: { in: fromStates(event) } },
    data: { ...data, status: toState(event) },
    select: { id: true, createdAt: true },
  });
  return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
}

/**
 * Inserts a new run in the state `event` creates it in (`submit_for_review` → pending_review,
 * `submit_auto_approved` → approved). The run's other columns come from the caller.
 */
export async function createRun(
  tx: Tx,
  event: Extract<RunEvent, "submit_for_review" | "submit_auto_approved">,
  data: Omit<Prisma.RunUncheckedCreateInput, "status">,
): Promise<void> {
  await tx.run.create({ data: { ...data, status: toState(event) } });
}

/**
 * First statement of a transaction that decides on one run (after the task's, where it takes
 * that too; docs/design.md "Transactions and locks": the task, the run, its approvals, the
 * invoice): a no-op UPDATE of the run row. It takes the write lock (SQLite) / the row lock (PostgreSQL) before anything is read, so
 * under READ COMMITTED the reads that follow see every decision on the run committed before it,
 * and two deciders on one run never interleave. An UPDATE rather than `SELECT … FOR UPDATE`: it
 * is a write, so a SERIALIZABLE transaction that read the run before it and writes the run after
 * it is aborted (40001) and decides again, instead of acting on what it read.
 */
export async function lockRun(tx: Tx, runId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "run" SET "status" = "status" WHERE "id" = ${runId}`;
}

/**
 * `lockRun`, and the run's plan version, status and deadline as they stand under its lock; null
 * when there is no run `runId`. On PostgreSQL ONE statement (the no-op UPDATE, RETURNING them);
 * on SQLite (one writer at a time already) the lock, then a read.
 */
export async function lockRunReading(tx: Tx, runId: string): Promise<{ planVersion: number; status: string; expiresAt: Date } | null> {
  if (!SQLITE) {
    const rows = await tx.$queryRaw<{ planVersion: number; status: string; expiresAt: Date }[]>`
      UPDATE "run" SET "status" = "status" WHERE "id" = ${runId} RETURNING "planVersion", "status", "expiresAt"`;
    return rows[0] ?? null;
  }
  await lockRun(tx, runId);
  return tx.run.findUnique({ where: { id: runId }, select: { planVersion: true, status: true, expiresAt: true } });
}

/**
 * The task's lock, first in the lock order (docs/design.md "Transactions and locks"): a no-op
 * UPDATE of the task row of run `runId` (a run's task never changes), in one statement. For a
 * transaction that locks the run and also decides on what arrives per task — an outcome record
 * reads the task's ticket events, which a ticket event's transaction writes under the same lock.
 */
export async function lockTaskOfRun(tx: Tx, runId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "task" SET "revision" = "revision" WHERE "id" = (SELECT "taskId" FROM "run" WHERE "id" = ${runId})`;
}

/**
 * `lockTaskOfRun` then `lockRun` — the task's lock, then the run's, in the lock order
 * (docs/design.md "Transactions and locks") — and the run's agent and status as they stand under
 * its lock; null when there is no run `runId` (nothing is locked then). On PostgreSQL ONE
 * statement: the task's no-op UPDATE in a WITH, the run's no-op UPDATE joined to its result, so
 * the run's row is locked only once the task's is (the join needs the task row first), and the
 * run's columns are returned by that UPDATE. On SQLite (one writer at a time already) the two
 * locks, then a read.
 */
export async function lockTaskAndRun(tx: Tx, runId: string): Promise<{ agentId: string; status: string } | null> {
  if (!SQLITE) {
    const rows = await tx.$queryRaw<{ agentId: string; status: string }[]>`
      WITH "t" AS (UPDATE "task" SET "revision" = "revision" WHERE "id" = (SELECT "taskId" FROM "run" WHERE "id" = ${runId}) RETURNING "id")
      UPDATE "run" SET "status" = "run"."status" FROM "t" WHERE "run"."id" = ${runId} AND "run"."taskId" = "t"."id"
      RETURNING "run"."agentId", "run"."status"`;
    return rows[0] ?? null;
  }
  await lockTaskOfRun(tx, runId);
  await lockRun(tx, runId);
  return tx.run.findUnique({ where: { id: runId }, select: { agentId: true, status: true } });
}

/** The task's lock by its id (see `lockTaskOfRun`). */
export async function lockTask(tx: Tx, taskId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "task" SET "revision" = "revision" WHERE "id" = ${taskId}`;
}

/**
 * Persists the expiry of a waiting run (`expire`: pending_review/approved/needs_decision whose
 * `expiresAt` ≤ `now`, UTC): status `expired`, its active approvals `expired`, audited `expired`
 * once with the status it expired in (`while`: an approved run expired before the executor
 * claimed it, which is not "without a decision"). Returns true when this call expired it.
 */
export async function expireRun(tx: Tx, runId: string, now: Date): Promise<boolean> {
  const before = await tx.run.findUnique({ where: { id: runId }, select: { status: true } });
  const moved = await moveRun(tx, runId, "expire", { where: { expiresAt: { lte: now } } });
  if (!moved) return false;
  const approvals = await moveApprovals(tx, "expire", { runId });
  await appendAudit(tx, { runId, type: "expired", actor: { kind: "system" }, data: { at: now.toISOString(), approvalsExpired: approvals, while: before?.status ?? null } });
  return true;
}

/** `expireRun` in a transaction of its own (for sweeps and reads that notice a passed deadline). */
export async function expireIfDue(runId: string, now = new Date()): Promise<boolean> {
  return inTransaction(async (tx) => ok(await expireRun(tx, runId, now)));
}

/** Why a run stopped (`run.stopReason`, docs/api.md `stopped_stale_task` details), as saved and audited. */
export type StopReason = { code: "stopped_stale_task"; boundRevision: number; liveRevision: number; blockedStepId: string; at: string } & Record<string, unknown>;

/**
 * Stops a waiting (pending_review, approved) or executing run whose task moved on (`stop_stale_task`, docs/design.md §8):
 * saves `stopReason`, invalidates the approvals not yet claimed, audited `stopped_stale` once.
 * Returns true when this call stopped it.
 */
export async function stopForStaleTask(tx: Tx, runId: string, stopReason: StopReason, actor: AuditInput["actor"]): Promise<boolean> {
  const moved = await moveRun(tx, runId, "stop_stale_task", { data: { stopReason: stopReason as Prisma.InputJsonValue } });
  if (!moved) return false;
  const inv = await moveApprovals(tx, "invalidate", { runId });
  await appendAudit(tx, { runId, type: "stopped_stale", actor, data: { ...stopReason, approvalsInvalidated: inv } });
  return true;
}

/**
 * Why a run stopped because its executor found a step's stop condition met (`run.stopReason`):
 * the step, its stop condition as approved, what the executor found (`detail`), when (ISO UTC).
 */
export type StopConditionReason = { code: "stop_condition_met"; stepId: string; stopCondition: string | null; detail: string | null; at: string };

/**
 * Stops an executing run whose executor reported a step's stop condition met (`stop_condition_met`):
 * nothing of that step was written and no later step may run. Saves `stopReason`, invalidates the
 * approvals not yet claimed, audited `stopped_condition`. Returns true when this call stopped it.
 */
export async function stopForCondition(tx: Tx, runId: string, stopReason: StopConditionReason, actor: AuditInput["actor"]): Promise<boolean> {
  const moved = await moveRun(tx, runId, "stop_condition_met", { data: { stopReason: stopReason as Prisma.InputJsonValue } });
  if (!moved) return false;
  const inv = await moveApprovals(tx, "invalidate", { runId });
  await appendAudit(tx, { runId, type: "stopped_condition", actor, data: { code: stopReason.code, stepId: stopReason.stepId, stopCondition: stopReason.stopCondition, detail: stopReason.detail, approvalsInvalidated: inv } });
  return true;
}

/**
 * Why a run stopped because its write's target moved since the approval (`run.stopReason`, the
 * fence's `target_changed`): the step, the record key (`invoice:in_74119`), the source version the
 * approval saw and the live one the executor read before its write, when (ISO UTC).
 */
export type TargetChangedReason = { code: "target_changed"; stepId: string; record: string; approvedVersion: number; liveVersion: number; at: string };

/**
 * Stops an executing run whose fence found a step's target at another source version than its
 * approval saw (`stop_target_changed`, docs/design.md "The moment of the write"): nothing of that
 * step is written and no later step may run. Saves `stopReason`, invalidates the approvals not
 * yet claimed, audited `stopped_target_changed`. Returns true when this call stopped it.
 */
export async function stopForTargetChanged(tx: Tx, runId: string, stopReason: TargetChangedReason, actor: AuditInput["actor"]): Promise<boolean> {
  const moved = await moveRun(tx, runId, "stop_target_changed", { data: { stopReason: stopReason as Prisma.InputJsonValue } });
  if (!moved) return false;
  const inv = await moveApprovals(tx, "invalidate", { runId });
  await appendAudit(tx, { runId, type: "stopped_target_changed", actor, data: { ...stopReason, approvalsInvalidated: inv } });
  return true;
}

/**
 * Moves an approved or executing run whose next step cannot be claimed for a reason no executor
 * can fix (`needs_decision`, lib/lifecycle/needs-decision.ts) to a person: status `needs_decision` with the
 * stored `decisionReason`, a fresh escalation time (`needsDecisionEscalateAt`, UTC `now`; the
 * deadline sweep escalates it like a waiting run) and `escalatedAt` cleared, audited
 * `needs_decision` once. The blocked step's approvals stand (a person approving again confirms
 * them after a fresh validation), except one whose approver lost the authority
 * (`approval_revoked`): that one is invalidated, so another person must approve. Conditional: not past `expiresAt`, and no
 * claim of the run still open (claimed, unknown or flagged, not reconciled) — an executor still
 * writing another step keeps the run executing. Returns true when this call moved the run.
 */
export async function moveToNeedsDecision(tx: Tx, runId: string, reason: DecisionReason, now: Date, actor: AuditInput["actor"]): Promise<boolean> {
  const run = await tx.run.findUnique({ where: { id: runId }, select: { expiresAt: true, approvedVersion: true, planVersion: true } });
  if (!run) return false;
  const escalateAt = needsDecisionEscalateAt(now, run.expiresAt);
  const moved = await moveRun(tx, runId, "needs_decision", {
    where: {
      expiresAt: { gt: now },
      executions: { none: { resolution: null, OR: [{ status: { in: ["claimed", "unknown"] } }, { flag: { not: null } }] } },
    },
    data: { decisionReason: reason as unknown as Prisma.InputJsonValue, escalateAt, escalatedAt: null },
  });
  if (!moved) return false;
  const revoked = reason.code === "approval_revoked" && typeof reason.details.approverId === "string" ? reason.details.approverId : null;
  const invalidated = revoked ? await moveApprovals(tx, "invalidate", { runId, stepId: reason.stepId, planVersion: run.approvedVersion ?? run.planVersion, approverId: revoked }) : 0;
  await appendAudit(tx, {
    runId,
    type: "needs_decision",
    actor,
    data: { code: reason.code, message: reason.message, stepId: reason.stepId, at: reason.at, escalateAt: escalateAt.toISOString(), expiresAt: run.expiresAt.toISOString(), approvalsInvalidated: invalidated },
  });
  return true;
}

/**
 * Rejects a waiting run at plan version `planVersion` (`reject`): saves the reason, invalidates
 * its active approvals, audited `rejected`. Returns false when the run is no longer waiting at
 * that version (someone edited, approved to completion and claimed, or rejected it first).
 */
export async function rejectWaitingRun(tx: Tx, runId: string, planVersion: number, reason: string, actor: AuditInput["actor"]): Promise<boolean> {
  const moved = await moveRun(tx, runId, "reject", { where: { planVersion }, data: { rejectionReason: reason } });
  if (!moved) return false;
  const inv = await moveApprovals(tx, "invalidate", { runId });
  await appendAudit(tx, { runId, type: "rejected", actor, data: { planVersion, reason, approvalsInvalidated: inv } });
  return true;
}

/**
 * Settles a waiting run's status from its approvals of plan version `version` (whose step ids
 * are `stepIds`): `approvals_complete` (status approved, `approvedVersion` = version) when every
 * step has its full set of active approvals — as many distinct approvers as its approvals
 * recorded they need (`approvalsRequired`, four eyes; one for a policy approval) — or was already
 * claimed under its approval (a run that needs a new decision after some steps ran) —
 * else `approvals_incomplete` (pending_review, no approved version).
 * Conditional on the run still being at `version`, so a concurrent edit is never approved by
 * accident. Returns true when the run is now approved.
 */
export async function settleReview(tx: Tx, runId: string, version: number, stepIds: readonly string[]): Promise<boolean> {
  const active = await tx.approval.findMany({ where: { runId, planVersion: version, state: { in: ["active", "claimed", "consumed"] } }, select: { stepId: true, approvalsRequired: true } });
  const byStep = new Map<string, { given: number; need: number }>();
  for (const a of active) {
    const p = byStep.get(a.stepId) ?? { given: 0, need: 1 };
    byStep.set(a.stepId, { given: p.given + 1, need: Math.max(p.need, a.approvalsRequired) });
  }
  const all = stepIds.length > 0 && stepIds.every((id) => {
    const p = byStep.get(id);
    return p !== undefined && p.given >= p.need;
  });
  if (all) {
    await moveRun(tx, runId, "approvals_complete", { where: { planVersion: version }, data: { approvedVersion: version } });
  } else {
    await moveRun(tx, runId, "approvals_incomplete", { where: { planVersion: version }, data: { approvedVersion: null } });
  }
  return all;
}

/** The status a run has after `event` (for callers that report it without reading it again). */
export function statusAfter(event: RunEvent): RunState {
  return toState(event);
}
