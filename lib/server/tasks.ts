import { nanoid } from "nanoid";
import { z } from "zod";
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

/** Body of `POST /api/v1/tasks/{taskId}/revisions`: a new body and/or a comment that changes acceptance. */
export const reviseTaskBodySchema = z
  .object({
    body: z.string().trim().min(1, "The task body cannot be empty").max(20000).optional(),
    comment: z.string().trim().min(1, "The comment cannot be empty").max(5000).optional(),
  })
  .strict()
  .refine((v) => v.body !== undefined || v.comment !== undefined, { message: "Send a new body, a comment, or both" });
export type ReviseTaskBody = z.infer<typeof reviseTaskBodySchema>;

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
 * (DESIGN.md §8). A comment is appended to the body under "Update (rev N)". The bump is a
 * conditional update on the revision read, retried once under contention, so concurrent
 * revisions never share a number. Every run still open on the task is audited as affected.
 * Errors: 404 `not_found`.
 */
export async function reviseTask(taskId: string, input: ReviseTaskBody, actor: Actor): Promise<TaskView> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const t = await prisma.task.findUnique({ where: { id: taskId } });
    if (!t) throw new DomainError("not_found", `Task ${taskId} was not found.`);
    const next = t.revision + 1;
    let body = input.body ?? t.body;
    if (input.comment) body = `${body}\n\nUpdate (rev ${next}): ${input.comment}`;
    const done = await prisma.$transaction(async (tx) => {
      const res = await tx.task.updateMany({ where: { id: taskId, revision: t.revision }, data: { revision: next, body } });
      if (res.count !== 1) return false;
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
      return true;
    });
    if (done) return getTask(taskId);
  }
  throw new DomainError("stale_task", "The task changed several times at once; try again.");
}
