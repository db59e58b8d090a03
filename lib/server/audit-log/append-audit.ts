import { nanoid } from "nanoid";
import type { AuditData, AuditType } from "../../audit/events";
import type { Prisma } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import { markLiveWrite } from "../db/commit-signal";
import { changeNotice, isLiveType } from "../feed/live-feed";
import { currentEndpoint, markDenialHandled, markRefusalRecorded } from "../http/request-context";
import { enqueueWebhook } from "../webhooks/webhook-outbox";

/** Event types that record a refusal of the request being handled (the route wrapper then adds none). */
const REFUSAL_TYPES = new Set<AuditType>(["denied", "refused", "submission_refused", "edit_refused", "claim_refused", "fenced"]);

export type { AuditType } from "../../audit/events";

/**
 * Who caused an event: the agent (by id), a person (user id), the system, or an unidentified
 * caller (`anonymous`: a refused request that carried no valid credential).
 */
export type Actor =
  | { kind: "agent"; id: string }
  | { kind: "user"; id: string }
  | { kind: "integration"; id: string }
  | { kind: "system"; id?: null }
  | { kind: "anonymous"; id?: null };

type Tx = Prisma.TransactionClient | typeof prisma;

/** One event to append: its type, who caused it, the run it belongs to (if any) and its data (typed per type by lib/audit/events.ts). */
export type AuditInput = { [T in AuditType]: { runId?: string | null; type: T; actor: Actor; data: AuditData<T> } }[AuditType];

/** At most this many characters of a caller's path, step id or refusal message go into an audit event. */
export const MAX_RECORDED_CHARS = 500;

/**
 * Text a caller chose (a path, a step id, a message quoting them) as the audit log can hold it on
 * both databases: a NUL character, which PostgreSQL cannot store in JSON, shown as "␀", and at
 * most MAX_RECORDED_CHARS characters ("…" after), so a 5,000-character path records a bounded row.
 */
export function recordable(text: string): string {
  const bounded = text.length > MAX_RECORDED_CHARS ? `${text.slice(0, MAX_RECORDED_CHARS)}…` : text;
  return bounded.replace(/\u0000/g, "\u2400");
}

/**
 * Appends one audit event. This module is the only writer of `audit_event`, and it only
 * inserts: no code path updates or deletes an event. `data` is any JSON detail.
 * A `denied` event written while an API request is handled also records that request's
 * endpoint (`data.endpoint`) and tells `handle()` the refusal is on the record.
 * On PostgreSQL an event the live feed carries is inserted together with its notification
 * (lib/server/feed/live-feed.ts `changeNotice`), in one statement.
 */
export async function appendAudit(
  tx: Tx,
  event: AuditInput,
): Promise<void> {
  let data: Record<string, unknown> = event.data;
  if (event.type === "denied") {
    const endpoint = currentEndpoint();
    if (endpoint && data.endpoint === undefined) data = { ...data, endpoint: recordable(endpoint) };
    markDenialHandled();
  }
  if (REFUSAL_TYPES.has(event.type)) markRefusalRecorded();
  const row = { id: nanoid(), runId: event.runId ?? null, type: event.type, actorKind: event.actor.kind, actorId: event.actor.id ?? null };
  // the live feed's notification (PostgreSQL, delivered at commit, nothing on rollback)
  const notice = changeNotice({ type: event.type, runId: event.runId });
  if (event.runId && isLiveType(event.type)) markLiveWrite(tx);
  if (notice) {
    // One statement for the event and its notification: the WITH's pg_notify runs once, for the one row inserted.
    await tx.$executeRaw`
      WITH "n" AS (SELECT pg_notify(${notice.channel}, ${notice.payload}))
      INSERT INTO "audit_event" ("id", "runId", "type", "actorKind", "actorId", "data", "createdAt")
      SELECT CAST(${row.id} AS text), CAST(${row.runId} AS text), CAST(${row.type} AS text), CAST(${row.actorKind} AS text), CAST(${row.actorId} AS text),
        CAST(${JSON.stringify(data)} AS json), CAST(${new Date()} AS timestamp(3)) FROM "n"`;
  } else {
    await tx.auditEvent.create({ data: { ...row, data: data as Prisma.InputJsonValue } });
  }
  // the webhook outbox (same transaction)
  await enqueueWebhook(tx, { type: event.type, runId: event.runId, data });
}
