import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError } from "../../errors/domain-error";
import { TICKET_EVENT_TEXT_SOURCE, TICKET_EVENT_TYPES, type TicketEventType } from "../../outcomes/outcome";
import type { TicketEventBody, ticketEventSchema } from "../../outcomes/schema";
import { appendAudit } from "../audit-log/append-audit";
import { findSavedAnswer, requestHashOf, saveAnswer } from "../http/idempotency";
import type { IntegrationCaller } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { prisma } from "../db/db";
import { recomputeTaskOutcomes } from "./record-run-outcome";
import { lockTask } from "../lifecycle/run-lifecycle";
import { applyTaskRevision } from "../tasks/revise-task";

/** A ticket event as the API answers it (lib/outcomes/schema.ts `ticketEventSchema`). */
export type TicketEventView = z.input<typeof ticketEventSchema>;

/** What the event changed: the runs of the task whose outcome it recomputed, and the task's revision. */
export interface TicketEventAnswer {
  event: TicketEventView;
  outcomes: { runId: string; signals: string[]; summary: string }[];
  /** The task's revision after the event: a new one when the event carried text, else unchanged. */
  taskRevision: number;
  /** Whether the event made a new revision of the task (it carried text someone wrote). */
  revised: boolean;
}

/** How far ahead of the server's clock an event's `at` may lie (clock skew), in milliseconds. */
export const EVENT_CLOCK_SKEW_MS = 5 * 60_000;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks a ticket event's `type` and `at` against what the API accepts: one of
 * `TICKET_EVENT_TYPES`; an ISO-8601 instant with a zone (`Z` or `±hh:mm`) not more than five
 * minutes after `now`. Returns the type and the instant (`now` when `at` is absent). Errors: 422
 * `validation_failed {issues: [{path, code, message}]}` with `unknown_event_type`, `invalid_time`,
 * `time_in_future`. Pure.
 */
export function checkTicketEvent(body: TicketEventBody, now: Date): { type: TicketEventType; at: Date } {
  const issues: { path: string; code: string; message: string }[] = [];
  const type = (TICKET_EVENT_TYPES as readonly string[]).includes(body.type) ? (body.type as TicketEventType) : null;
  if (!type) issues.push({ path: "type", code: "unknown_event_type", message: `Unknown ticket event "${body.type.slice(0, 64)}": use one of ${TICKET_EVENT_TYPES.join(", ")}.` });
  let at = now;
  if (body.at != null) {
    const parsed = ISO_INSTANT.test(body.at) ? new Date(body.at) : null;
    if (!parsed || Number.isNaN(parsed.getTime())) issues.push({ path: "at", code: "invalid_time", message: "at must be an ISO-8601 instant with a zone, e.g. 2026-04-03T10:00:00Z." });
    else if (parsed.getTime() > now.getTime() + EVENT_CLOCK_SKEW_MS) issues.push({ path: "at", code: "time_in_future", message: "at lies in the future; report an event once it has happened." });
    else at = parsed;
  }
  if (issues.length || !type) throw new DomainError("validation_failed", issues.map((i) => `${i.path}: ${i.message}`).join(" "), { issues });
  return { type, at };
}

const scopeOf = (integration: IntegrationCaller) => `integration:${integration.id}:ticket_event`;

/**
 * Records a ticket event the ticketing integration reports for task `taskId`
 * (`POST /api/v1/tasks/{taskId}/events`, docs/design.md "Did the edit help?") and recomputes the
 * outcome of every ended run of the task in the same transaction, so a reopen within the window
 * counts against its run at once. An event whose `detail` carries text (not blank) is also a task
 * revision, in the same transaction (`applyTaskRevision`): the text is added as a part whose
 * source is `TICKET_EVENT_TEXT_SOURCE[type]` (a customer's reply stays untrusted), and a plan still
 * waiting on the earlier revision stops `stopped_stale_task` — a reply saying "do not refund" can
 * never be followed by an approval of the refund it answers. A key bound to a desk reaches only that desk's tasks (another
 * desk's task is not found, like one that does not exist). Audited `ticket_event` on each run it
 * recomputed (on no run when none has ended). With `idempotencyKey` the answer is saved with the
 * event: the same key and body again returns it (`replayed: true`) and records nothing new.
 * Errors: 404 `not_found`; 409 `idempotency_conflict` (the key answered another body); 422
 * `validation_failed` (see {@link checkTicketEvent}).
 */
export async function recordTicketEvent(
  integration: IntegrationCaller,
  taskId: string,
  body: TicketEventBody,
  idempotencyKey: string | null,
  now = new Date(),
): Promise<TicketEventAnswer & { replayed: boolean }> {
  const requestHash = requestHashOf({ taskId, body });
  // Row locks, not SERIALIZABLE: the task's lock, taken first, orders this event after every
  // decision, claim and revision of the task (each takes it too), so events arriving together on
  // one task queue on the lock instead of failing each other's serialisation and retrying.
  return inTransaction<TicketEventAnswer & { replayed: boolean }>(async (tx) => {
    // The task's lock first (docs/design.md "Transactions and locks"): an outcome report of one
    // of its runs takes it too, so either that run had ended when this event's recomputation reads
    // it, or the report's outcome record reads this event.
    await lockTask(tx, taskId);
    if (idempotencyKey) {
      const saved = await findSavedAnswer<TicketEventAnswer>(tx, scopeOf(integration), idempotencyKey, requestHash);
      if (saved) return ok({ ...saved.body, replayed: true });
    }
    const task = await tx.task.findFirst({
      where: { id: taskId, ...(integration.desk ? { desk: integration.desk } : {}) },
      select: { id: true, ticketId: true, desk: true },
    });
    if (!task) throw new DomainError("not_found", `Task ${taskId} was not found.`);
    const { type, at } = checkTicketEvent(body, now);
    const id = `tev_${nanoid(14)}`;
    const detail = body.detail ?? null;
    const row = await tx.ticketEvent.create({ data: { id, taskId, ticketId: task.ticketId, desk: task.desk, type, at, detail, integrationKeyId: integration.id, createdAt: now } });
    const revised = detail !== null && detail.trim() !== "";
    const taskRevision = revised
      ? (await applyTaskRevision(tx, taskId, { parts: [{ source: TICKET_EVENT_TEXT_SOURCE[type], text: detail }] }, { kind: "integration", id: integration.id }, { desk: integration.desk })).revision
      : (await tx.task.findUniqueOrThrow({ where: { id: taskId }, select: { revision: true } })).revision;
    const runIds = await recomputeTaskOutcomes(tx, taskId, now);
    const records = runIds.length ? await tx.runOutcome.findMany({ where: { runId: { in: runIds } }, select: { runId: true, record: true } }) : [];
    for (const runId of runIds) {
      await appendAudit(tx, { runId, type: "ticket_event", actor: { kind: "integration", id: integration.id }, data: { taskId, eventId: id, type, at: at.toISOString(), detail } });
    }
    const answer: TicketEventAnswer = {
      event: { id, taskId, ticketId: task.ticketId, type, at: at.toISOString(), detail, createdAt: row.createdAt.toISOString() },
      outcomes: records.map((r) => {
        const rec = r.record as { signals?: string[]; summary?: string };
        return { runId: r.runId, signals: rec.signals ?? [], summary: rec.summary ?? "" };
      }),
      taskRevision,
      revised,
    };
    if (idempotencyKey) await saveAnswer(tx, scopeOf(integration), idempotencyKey, requestHash, { status: 201, body: answer });
    return ok({ ...answer, replayed: false });
  }, prisma, { isolation: "row-locks" });
}
