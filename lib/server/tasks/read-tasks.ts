import type { TaskView } from "../../api/schemas";
import { DomainError } from "../../errors/domain-error";
import { scanInstructions } from "../../task-contract/instruction-scan";
import { prisma } from "../db/db";
import { contractOf, partsOf } from "./task-contract";

/** A task as the API shows it: the API's `Task` (lib/api/schemas.ts), declared once. */
export type { TaskView };

type TaskRow = { id: string; ticketId: string; revision: number; body: string; contract: unknown; textParts: unknown; updatedAt: Date; ticket: { accountId: string } };

/** The API view of a task row. */
export function toTaskView(t: TaskRow): TaskView {
  const parts = partsOf(t);
  return {
    id: t.id,
    ticketId: t.ticketId,
    accountId: t.ticket.accountId,
    revision: t.revision,
    body: t.body,
    updatedAt: t.updatedAt.toISOString(),
    contract: contractOf(t),
    parts,
    instructionFlags: scanInstructions(parts),
  };
}

/**
 * One task by id (`GET /api/v1/tasks/{taskId}`) of tenant desk `desk` (the calling agent's): a task
 * of another desk is not found. Errors: 404 `not_found`.
 */
export async function getTask(taskId: string, desk: string): Promise<TaskView> {
  const t = await prisma.task.findFirst({ where: { id: taskId, desk }, include: { ticket: { select: { accountId: true } } } });
  if (!t) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  return toTaskView(t);
}

/**
 * Tasks of one ticket number (e.g. "74991"), newest first (docs/api.md `GET /api/v1/tasks?ticketId=`);
 * without a ticket the latest 200. Indexed by desk and ticket (ticket ids are per desk). Only tasks of tenant desk `filter.desk` (the
 * calling agent's): another desk's tasks are never listed.
 */
export async function listTasks(filter: { ticketId?: string; desk: string }): Promise<TaskView[]> {
  const rows = await prisma.task.findMany({
    where: { desk: filter.desk, ...(filter.ticketId ? { ticketId: filter.ticketId } : {}) },
    include: { ticket: { select: { accountId: true } } },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  return rows.map(toTaskView);
}
