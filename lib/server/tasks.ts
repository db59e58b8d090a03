import { nanoid } from "nanoid";
import { DomainError } from "../errors";
import { appendAudit, type Actor } from "./audit";
import { prisma } from "./db";

/** The `task` object of API.md: `{id, ticketId, accountId, revision, body}`. */
export interface TaskView {
  id: string;
  ticketId: string;
  accountId: string;
  revision: number;
  body: string;
  updatedAt: string;
}

export { reviseTaskBodySchema, type ReviseTaskBody } from "../task-schema";
import type { ReviseTaskBody } from "../task-schema";

type TaskRow = { id: string; ticketId: string; revision: number; body: string; updatedAt: Date; ticket: { accountId: string } };

function toTaskView(t: TaskRow): TaskView {
  return { id: t.id, ticketId: t.ticketId, accountId: t.ticket.accountId, revision: t.revision, body: t.body, updatedAt: t.updatedAt.toISOString() };
}

/** One task by id. Errors: 404 `not_found`. */
export async function getTask(taskId: string): Promise<TaskView> {
  const t = await prisma.task.findUnique({ where: { id: taskId }, include: { ticket: true } });
  if (!t) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  return toTaskView(t);
}

/** Tasks, optionally of one ticket number (e.g. "74991"). */
export async function listTasks(filter: { ticketId?: string }): Promise<TaskView[]> {
  const rows = await prisma.task.findMany({
    where: filter.ticketId ? { ticketId: filter.ticketId } : {},
    include: { ticket: true },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  return rows.map(toTaskView);
}

/**
 * Records a change of what "done" means for a task and bumps its revision by one
 * (DESIGN.md §8). A comment is appended to the body under "Update (rev N)". The bump is the
 * first statement of one transaction (`revision = revision + 1`), which takes the write lock
 * (SQLite) or the row lock (PostgreSQL) before anything is read, so concurrent revisions are
 * serialised by the database: each gets its own number and every comment lands. Every run
 * still open on the task is audited as affected. Returns the task as this revision left it.
 * Errors: 404 `not_found`.
 */
export async function reviseTask(taskId: string, input: ReviseTaskBody, actor: Actor): Promise<TaskView> {
  return prisma.$transaction(async (tx) => {
    const bumped = await tx.task.updateMany({ where: { id: taskId }, data: { revision: { increment: 1 } } });
    if (bumped.count !== 1) throw new DomainError("not_found", `Task ${taskId} was not found.`);
    const t = await tx.task.findUniqueOrThrow({ where: { id: taskId } });
    const next = t.revision;
    let body = input.body ?? t.body;
    if (input.comment) body = `${body}\n\nUpdate (rev ${next}): ${input.comment}`;
    if (body !== t.body) await tx.task.update({ where: { id: taskId }, data: { body } });
    await tx.taskRevision.create({
      data: {
        id: nanoid(),
        taskId,
        revision: next,
        body,
        comment: input.comment ?? null,
        actorKind: actor.kind,
        actorId: actor.id ?? null,
      },
    });
    const open = await tx.run.findMany({
      where: { taskId, status: { in: ["pending_review", "approved", "executing"] } },
      select: { id: true, boundTaskRevision: true },
    });
    for (const r of open) {
      await appendAudit(tx, {
        runId: r.id,
        type: "task_revised",
        actor,
        data: { taskId, boundRevision: r.boundTaskRevision, liveRevision: next, comment: input.comment ?? null, bodyChanged: input.body !== undefined },
      });
    }
    // The task as this call left it (a later concurrent revision must not be reported as ours).
    return toTaskView(await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { ticket: true } }));
  });
}
