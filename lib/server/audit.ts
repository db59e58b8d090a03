import { nanoid } from "nanoid";
import type { Prisma } from "../generated/prisma/client";
import { prisma } from "./db";
import { currentEndpoint, markDenialHandled } from "./request-context";

/** Event types of the append-only audit log (DESIGN.md §11). */
export type AuditType =
  | "submitted"
  | "submission_refused"
  | "validated"
  | "edited"
  | "edit_refused"
  | "edit_discarded"
  | "approved"
  | "auto_approved"
  | "rejected"
  | "invalidated"
  | "claimed"
  | "claim_refused"
  | "outcome"
  | "reconciled"
  | "stopped_stale"
  | "task_revised"
  | "expired"
  | "escalated"
  | "denied"
  | "admin_change";

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

/** One event to append: its type, who caused it, the run it belongs to (if any) and its detail. */
export interface AuditInput {
  runId?: string | null;
  type: AuditType;
  actor: Actor;
  data?: Record<string, unknown>;
}

/**
 * Appends one audit event. This module is the only writer of `audit_event`, and it only
 * inserts: no code path updates or deletes an event. `data` is any JSON detail.
 * A `denied` event written while an API request is handled also records that request's
 * endpoint (`data.endpoint`) and tells `handle()` the refusal is on the record.
 */
export async function appendAudit(
  tx: Tx,
  event: AuditInput,
): Promise<void> {
  let data = event.data ?? {};
  if (event.type === "denied") {
    const endpoint = currentEndpoint();
    if (endpoint && data.endpoint === undefined) data = { ...data, endpoint };
    markDenialHandled();
  }
  await tx.auditEvent.create({
    data: {
      id: nanoid(),
      runId: event.runId ?? null,
      type: event.type,
      actorKind: event.actor.kind,
      actorId: event.actor.id ?? null,
      data: data as Prisma.InputJsonValue,
    },
  });
}
