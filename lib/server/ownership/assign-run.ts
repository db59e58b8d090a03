import { nanoid } from "nanoid";
import { DomainError, isDomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok, refuse } from "../db/transaction";

/** Who has taken a run. `assignedAt` is ISO-8601 UTC; all null when unassigned. */
export interface Assignment {
  runId: string;
  assigneeId: string | null;
  assigneeName: string | null;
  assignedAt: string | null;
}

async function nameOf(userId: string | null): Promise<string | null> {
  if (!userId) return null;
  return (await prisma.user.findUnique({ where: { id: userId }, select: { name: true } }))?.name ?? userId;
}

/** The run (id, desk, status, deadline, assignee) within `viewer`'s desk scope, refusing a run no one decides on any more. */
async function waitingRun(viewer: Viewer, runId: string, now: Date) {
  const run = await prisma.run.findFirst({ where: { ...deskScope(viewer), id: runId }, select: { id: true, desk: true, status: true, expiresAt: true, assigneeId: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace(/_/g, " ")}; only a run waiting for a decision can be taken or assigned.`, { status });
  return run;
}

/**
 * An operator (or supervisor) takes a run waiting for a decision ("Ownership"): ONE
 * conditional update that only succeeds while the run is unassigned or already theirs, so of
 * two people taking the same run at once exactly one wins; audited `run_assigned` (how: take).
 * Taking a run that is already yours changes nothing and writes no event.
 * Errors: 404 `not_found` (unknown or another desk's run); 409 `run_not_pending` (not waiting
 * any more); 409 `already_assigned` {assigneeId, assigneeName} (someone else has it — a
 * supervisor reassigns with `assignRun`).
 */
export async function takeRun(viewer: Viewer, runId: string, now = new Date()): Promise<Assignment> {
  const run = await waitingRun(viewer, runId, now);
  if (run.assigneeId === viewer.id) {
    const at = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { assignedAt: true } });
    return { runId, assigneeId: viewer.id, assigneeName: viewer.name, assignedAt: at.assignedAt?.toISOString() ?? null };
  }
  await inTransaction(async (tx) => {
    const won = await tx.run.updateMany({
      // Still waiting, inside the same statement: a run decided or expired a moment ago is not taken.
      where: { id: runId, status: { in: [...WAITING_STATES] }, expiresAt: { gt: now }, OR: [{ assigneeId: null }, { assigneeId: viewer.id }] },
      data: { assigneeId: viewer.id, assignedAt: now },
    });
    if (won.count === 0) {
      const owner = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { assigneeId: true, status: true, expiresAt: true } });
      const status = effectiveStatus(owner.status as RunStatus, owner.expiresAt, now);
      if (!WAITING_STATES.includes(status)) {
        return refuse("run_not_pending", `This run is ${status.replace(/_/g, " ")}; only a run waiting for a decision can be taken or assigned.`, { status });
      }
      return refuse("already_assigned", "", { assigneeId: owner.assigneeId });
    }
    await appendAudit(tx, { runId, type: "run_assigned", actor: { kind: "user", id: viewer.id }, data: { assigneeId: viewer.id, previousAssigneeId: null, byUserId: viewer.id, how: "take" } });
    return ok(true);
  }).catch(async (e: unknown) => {
    if (isDomainError(e) && e.code === "already_assigned") {
      const ownerId = (e.details.assigneeId as string | null) ?? null;
      const ownerName = await nameOf(ownerId);
      throw new DomainError("already_assigned", `${ownerName ?? "Someone else"} has already taken this run; ask a supervisor to reassign it.`, { assigneeId: ownerId, assigneeName: ownerName });
    }
    throw e;
  });
  return { runId, assigneeId: viewer.id, assigneeName: viewer.name, assignedAt: now.toISOString() };
}

/**
 * A supervisor assigns a waiting run to a person, or unassigns it (`assigneeId: null`) (* "a supervisor reassigns"). The assignee must be an active operator of the run's desk or a
 * supervisor. Audited `run_assigned` (how: reassign | release); the new assignee gets an
 * in-console notification. Callers authorise the supervisor role (the endpoint's declaration).
 * Errors: 404 `not_found`; 409 `run_not_pending`; 422 `validation_failed` for an assignee who
 * cannot work this run.
 */
export async function assignRun(viewer: Viewer, runId: string, assigneeId: string | null, now = new Date()): Promise<Assignment> {
  const run = await waitingRun(viewer, runId, now);
  let assigneeName: string | null = null;
  if (assigneeId) {
    const u = await prisma.user.findUnique({ where: { id: assigneeId }, select: { name: true, role: true, desk: true, disabled: true } });
    const fits = u && !u.disabled && (u.role === "supervisor" || (u.role === "operator" && u.desk === run.desk));
    if (!u || !fits) throw new DomainError("validation_failed", "A run can be assigned only to an active operator of its desk or a supervisor.", { issues: [{ stage: "shape", code: "bad_assignee", severity: "error", path: "assigneeId", message: "Not a person who can work this run." }] });
    assigneeName = u.name;
  }
  await inTransaction(async (tx) => {
    await tx.run.update({ where: { id: runId }, data: { assigneeId, assignedAt: assigneeId ? now : null } });
    await appendAudit(tx, {
      runId,
      type: "run_assigned",
      actor: { kind: "user", id: viewer.id },
      data: { assigneeId, previousAssigneeId: run.assigneeId, byUserId: viewer.id, how: assigneeId ? "reassign" : "release" },
    });
    if (assigneeId && assigneeId !== viewer.id) {
      await tx.notification.create({ data: { id: nanoid(), userId: assigneeId, kind: "assigned", runId, text: `${viewer.name} assigned you a run.`, createdAt: now } });
    }
    return ok(null);
  });
  return { runId, assigneeId, assigneeName, assignedAt: assigneeId ? now.toISOString() : null };
}
