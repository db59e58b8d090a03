import { nanoid } from "nanoid";
import type { Prisma } from "../generated/prisma/client";
import { prisma } from "./db";

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

/** Who caused an event: the agent (by id), a person (user id), or the system. */
export type Actor = { kind: "agent"; id: string } | { kind: "user"; id: string } | { kind: "system"; id?: null };

type Tx = Prisma.TransactionClient | typeof prisma;

/**
 * Appends one audit event. This module is the only writer of `audit_event`, and it only
 * inserts: no code path updates or deletes an event. `data` is any JSON detail.
 */
export async function appendAudit(
  tx: Tx,
  event: { runId?: string | null; type: AuditType; actor: Actor; data?: Record<string, unknown> },
): Promise<void> {
  await tx.auditEvent.create({
    data: {
      id: nanoid(),
      runId: event.runId ?? null,
      type: event.type,
      actorKind: event.actor.kind,
      actorId: event.actor.id ?? null,
      data: (event.data ?? {}) as Prisma.InputJsonValue,
    },
  });
}
