import { DomainError } from "../../errors/domain-error";
import { PRESENCE_TTL_MS, type PresenceEntry, type PresenceMode } from "../../live/live-event";
import type { Prisma } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import { deskScope, type Viewer } from "../auth/viewer";
import { withRetry } from "../db/transaction";
import { INSTANCE_ID, namesOf, notifyPresence } from "../feed/live-feed";

/** At most this many presences in one snapshot (a desk's open pages right now). */
const SNAPSHOT_LIMIT = 500;
/** Rows whose last heartbeat is older than this are deleted by later heartbeats (the table stays small). */
const STALE_ROW_MS = 60 * 60_000;

/**
 * Records that `viewer` has run `runId` open (`viewing`), has its edit form open (`editing`) or
 * closed it (`left`) at `now` (presence). A heartbeat of the same mode only refreshes
 * `seenAt`; an arrival, a change of mode or a return after PRESENCE_TTL_MS also moves `changedAt`
 * and is broadcast on the live feed (on every instance). Presence is not a state change of a run:
 * it is not audited. Returns who is on the run now (the viewer included), by name.
 * Errors: 404 `not_found` for an unknown run or one of another desk (as `GET /api/runs/{runId}`).
 */
export async function recordPresence(viewer: Viewer, runId: string, mode: PresenceMode, now = new Date()): Promise<PresenceEntry[]> {
  const run = await prisma.run.findFirst({ where: { id: runId, ...deskScope(viewer) }, select: { id: true, desk: true } });
  if (!run) throw new DomainError("not_found", "No such run.", { runId });
  const changed = await withRetry(async () => {
    const prev = await prisma.presence.findUnique({ where: { userId_runId: { userId: viewer.id, runId } } });
    const live = prev && prev.mode !== "left" && now.getTime() - prev.seenAt.getTime() < PRESENCE_TTL_MS;
    const isChange = !prev || prev.mode !== mode || (!live && mode !== "left");
    if (mode === "left" && (!prev || !live)) return false; // nothing to tell anyone
    const seenAt = mode === "left" ? new Date(now.getTime() - PRESENCE_TTL_MS) : now;
    const data = { mode, desk: run.desk, instanceId: INSTANCE_ID, seenAt, ...(isChange ? { changedAt: now } : {}) };
    await prisma.presence.upsert({
      where: { userId_runId: { userId: viewer.id, runId } },
      create: { userId: viewer.id, runId, changedAt: now, ...data },
      update: data,
    });
    return isChange;
  });
  if (changed) {
    await notifyPresence({ kind: "presence", runId, desk: run.desk, userId: viewer.id, name: viewer.name, mode, seenAt: (mode === "left" ? new Date(now.getTime() - PRESENCE_TTL_MS) : now).toISOString() });
  }
  if (Math.random() < 0.05) await prisma.presence.deleteMany({ where: { seenAt: { lt: new Date(now.getTime() - STALE_ROW_MS) } } });
  return listPresence({ runId }, now);
}

/**
 * Who is on a run (or on any run the viewer may see) at `now`: presences whose last heartbeat is
 * younger than PRESENCE_TTL_MS, by index, at most SNAPSHOT_LIMIT, newest first.
 * `where.desk` restricts to one desk (an operator's); `where.runId` to one run.
 */
export async function listPresence(where: { runId?: string; desk?: string }, now = new Date()): Promise<PresenceEntry[]> {
  const filter: Prisma.PresenceWhereInput = { seenAt: { gt: new Date(now.getTime() - PRESENCE_TTL_MS) }, mode: { not: "left" } };
  if (where.runId) filter.runId = where.runId;
  if (where.desk) filter.desk = where.desk;
  const rows = await prisma.presence.findMany({ where: filter, orderBy: { seenAt: "desc" }, take: SNAPSHOT_LIMIT });
  const names = await namesOf(rows.map((r) => r.userId));
  return rows.map((r) => ({ runId: r.runId, userId: r.userId, name: names.get(r.userId) ?? "Someone", mode: r.mode as "viewing" | "editing", seenAt: r.seenAt.toISOString() }));
}

/** The presence snapshot one viewer may see: every desk for supervisors and admins, their own desk for an operator. */
export function presenceFor(viewer: Pick<Viewer, "role" | "desk">, now = new Date()): Promise<PresenceEntry[]> {
  return listPresence(viewer.role === "operator" ? { desk: viewer.desk } : {}, now);
}
