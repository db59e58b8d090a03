import canonicalize from "canonicalize";
import { nanoid } from "nanoid";
import { DomainError } from "../../errors/domain-error";
import { composeOpeningBody, type OpenTaskBody } from "../../task-contract/task-open";
import { taskIdFor } from "../../desk/desks";
import type { TaskTextPart } from "../../task-contract/schema";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { toJsonColumn } from "../db/json-column";
import { inTransaction, ok, type Db, type Tx } from "../db/transaction";
import { prisma } from "../db/db";
import { toTaskView, type TaskView } from "./read-tasks";
import { checkContractForDesk, contractOf, partsOf } from "./task-contract";

/** What opening a task answers: the task, and whether this call created it (false: an idempotent repeat). */
export interface OpenedTask {
  task: TaskView;
  created: boolean;
}

/**
 * Where and when a task is opened: `desk`, the desk of a desk-bound integration key (null or
 * absent: the account's desk); `at`, the time the ticket, task and revision 1 are stamped with
 * (UTC; default now — the demo loader backdates its tickets).
 */
export interface OpenTaskScope {
  desk?: string | null;
  at?: Date;
}

const sameJson = (a: unknown, b: unknown): boolean => canonicalize(a ?? null) === canonicalize(b ?? null);

/**
 * Opens the task of a new ticket (docs/api-extensions.md "Opening a task"): creates the ticket
 * (id = `input.ticketId`, on `input.accountId`, with its subject) and its task at revision 1 — body
 * composed from the parts (`composeOpeningBody`), the parts stored as revision 1's text parts, the
 * contract if given — with its TaskRevision row r1, and audits `task_opened`. Usable without HTTP
 * (the demo desk's tickets load through it). The task id is `taskIdFor(desk, ticketId)` — from
 * the desk and ticket alone, so it reveals nothing of other desks — or, in the one case a
 * default-desk ticket id squats it, a generated `task_<random>`.
 *
 * Account and ticket ids are per desk (two desks fed from one ticketing or billing system may each
 * have ticket 80001 and account acc_1, independently): the account is `scope.desk`'s account
 * `input.accountId` when the key is bound to a desk; for a key bound to no desk, the one live
 * account of that id on any desk (several: refused, the key must be bound to the desk). It must
 * exist and be live (no `deletedAt`); the task's desk is the account's, and the ticket is that
 * desk's ticket `input.ticketId` — another desk's ticket of the same id is neither read nor
 * changed. The contract is checked against that desk's intent catalog and accounts
 * (`checkContractForDesk`).
 *
 * Idempotent per desk and ticket id: a repeat whose ticket, account, subject, parts and contract equal what
 * opened the task answers that task with `created: false` (nothing written); a different body for
 * a ticket this desk already has is refused — the task is never overwritten: changes go through
 * `POST /api/v1/tasks/{taskId}/revisions`. Two concurrent opens of one ticket make one task: the
 * second's ticket (or task) insert waits for the first's and then fires the primary key,
 * `inTransaction` runs it again, and it then finds the first's task. Runs READ COMMITTED on
 * PostgreSQL (`row-locks`): the keys decide, so a ticketing system opening consecutive tickets at
 * once is never refused `busy` — under SERIALIZABLE their lookups of absent neighbouring keys in
 * one index page aborted each other (observed: 12 aborts in a row at 10 opens at a time).
 *
 * Errors (nothing written): 422 `unknown_account` (no such live account on the key's desk — the
 * same words whether it is missing, deleted or another desk's; for a key bound to no desk, also
 * an id live on several desks); 409 `task_exists` {taskId} (this desk's ticket already has a task
 * with another body); 409 `ticket_taken` (this desk's ticket of that id is on another account or
 * subject and has no task); 422 `validation_failed` {issues} (a contract that does not fit the desk).
 */
export async function openTask(input: OpenTaskBody, actor: Actor, scope: OpenTaskScope = {}, db: Db = prisma): Promise<OpenedTask> {
  const parts: TaskTextPart[] = input.parts.map((p) => ({ source: p.source, text: p.text, revision: 1 }));
  const contract = input.contract ?? null;
  return inTransaction<OpenedTask>(async (tx) => {
    const desk = await accountDesk(tx, input.accountId, scope.desk ?? null);
    const ticket = await tx.ticket.findUnique({ where: { desk_id: { desk, id: input.ticketId } }, select: { id: true, accountId: true, subject: true } });
    if (ticket) {
      const existing = await existingTask(tx, desk, ticket.id);
      if (existing) {
        const same = ticket.accountId === input.accountId && ticket.subject === input.subject && sameJson(existing.parts, parts) && sameJson(existing.contract, contract);
        if (!same) {
          throw new DomainError(
            "task_exists",
            `Ticket ${input.ticketId} already has task ${existing.id}, opened with another body; nothing changed. Post a change of the task through POST /api/v1/tasks/${existing.id}/revisions.`,
            { taskId: existing.id, ticketId: input.ticketId },
          );
        }
        return ok({ task: await taskView(tx, existing.id), created: false });
      }
      if (ticket.accountId !== input.accountId || ticket.subject !== input.subject) {
        throw new DomainError("ticket_taken", `Ticket id ${input.ticketId} is already in use with another account or subject; no task was opened.`, { ticketId: input.ticketId });
      }
    }
    if (contract) await checkContractForDesk(tx, contract, desk);
    const preferred = taskIdFor(desk, input.ticketId);
    const taskId = (await tx.task.findUnique({ where: { id: preferred }, select: { id: true } })) ? `task_${nanoid(12)}` : preferred;
    const body = composeOpeningBody(input.parts);
    const at = scope.at ?? new Date();
    if (!ticket) await tx.ticket.create({ data: { desk, id: input.ticketId, accountId: input.accountId, subject: input.subject, createdAt: at } });
    await tx.task.create({
      data: { id: taskId, desk, ticketId: input.ticketId, revision: 1, body, textParts: toJsonColumn(parts), ...(contract ? { contract: toJsonColumn(contract) } : {}), createdAt: at },
    });
    await tx.taskRevision.create({
      data: {
        id: nanoid(),
        taskId,
        revision: 1,
        body,
        comment: null,
        ...(contract ? { contract: toJsonColumn(contract) } : {}),
        textParts: toJsonColumn(parts),
        actorKind: actor.kind,
        actorId: actor.id ?? null,
        createdAt: at,
      },
    });
    await appendAudit(tx, {
      type: "task_opened",
      actor,
      data: { taskId, desk, ticketId: input.ticketId, accountId: input.accountId, partSources: input.parts.map((p) => p.source), intent: contract?.intent ?? null },
    });
    return ok({ task: await taskView(tx, taskId), created: true });
  }, db, { isolation: "row-locks" });
}

/**
 * The desk of live account `accountId` a task is opened on: `keyDesk`'s account (a desk-bound key),
 * or, for a key bound to no desk (null), the one desk with a live account of that id (at most two
 * rows read, by the account id). Errors: 422 `unknown_account` (none — missing, deleted or another
 * desk's, the same words — or, for a key bound to no desk, several).
 */
async function accountDesk(tx: Tx, accountId: string, keyDesk: string | null): Promise<string> {
  const refused = (why: string) => new DomainError("unknown_account", `Account ${accountId} ${why}; no task was opened.`, { accountId });
  if (keyDesk) {
    const account = await tx.customerAccount.findUnique({ where: { desk_id: { desk: keyDesk, id: accountId } }, select: { deletedAt: true } });
    if (!account || account.deletedAt) throw refused("is not an account of this desk");
    return keyDesk;
  }
  const found = await tx.customerAccount.findMany({ where: { id: accountId, deletedAt: null }, select: { desk: true }, orderBy: { desk: "asc" }, take: 2 });
  if (found.length === 0) throw refused("is not an account of this desk");
  if (found.length > 1) throw refused("is an account of several desks; open its tasks with a key bound to the account's desk");
  return found[0].desk;
}

/**
 * The task `desk`'s ticket `ticketId` was opened with (its oldest; one indexed read) and what opened it: revision
 * 1's text parts and contract (from its TaskRevision row r1, or — for a task stored without one —
 * its own parts of revision 1 and current contract).
 */
async function existingTask(tx: Tx, desk: string, ticketId: string): Promise<{ id: string; parts: TaskTextPart[]; contract: unknown } | null> {
  const task = await tx.task.findFirst({ where: { desk, ticketId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, body: true, textParts: true, contract: true } });
  if (!task) return null;
  const r1 = await tx.taskRevision.findUnique({ where: { taskId_revision: { taskId: task.id, revision: 1 } }, select: { body: true, textParts: true, contract: true } });
  if (r1 && r1.textParts !== null) return { id: task.id, parts: partsOf(r1), contract: contractOf(r1) };
  return { id: task.id, parts: partsOf(task).filter((p) => p.revision === 1), contract: contractOf(task) };
}

async function taskView(tx: Tx, taskId: string): Promise<TaskView> {
  return toTaskView(await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { ticket: { select: { accountId: true } } } }));
}
