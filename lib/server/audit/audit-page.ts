import type { AuditEvent } from "../../generated/prisma/client";
import { prisma } from "../db/db";

/**
 * One page of the audit events of `type`, newest first, read by the `(type, seq)` index:
 * `limit` (1–200) events with `seq` below `before` (none: the newest), and `nextBefore`, the
 * cursor of the next older page (null on the last). Shared by the pages that list one kind of
 * event (denials, admin changes).
 */
export async function auditEventPage(type: string, opts: { before?: number; limit: number }): Promise<{ events: AuditEvent[]; nextBefore: number | null }> {
  const limit = Math.min(200, Math.max(1, Math.trunc(opts.limit)));
  const rows = await prisma.auditEvent.findMany({
    where: { type, ...(opts.before ? { seq: { lt: opts.before } } : {}) },
    orderBy: { seq: "desc" },
    take: limit + 1,
  });
  const events = rows.slice(0, limit);
  return { events, nextBefore: rows.length > limit ? events[events.length - 1].seq : null };
}

/** "Name <email>" of each person among `events`' actors, by id (one indexed read). */
export async function actorPeople(events: readonly Pick<AuditEvent, "actorKind" | "actorId">[]): Promise<Map<string, string>> {
  const ids = [...new Set(events.filter((e) => e.actorKind === "user" && e.actorId).map((e) => e.actorId!))];
  if (ids.length === 0) return new Map();
  const users = await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } });
  return new Map(users.map((u) => [u.id, `${u.name} <${u.email}>`]));
}
