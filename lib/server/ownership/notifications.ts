import { prisma } from "../db/db";
import { decodeCursor, nextCursorOf, pageSize } from "../db/pagination";
import type { Viewer } from "../auth/viewer";

/** One in-console notification. Times ISO-8601 UTC. */
export interface NotificationView {
  id: string;
  kind: string;
  runId: string | null;
  text: string;
  createdAt: string;
  readAt: string | null;
}

/** A page of the viewer's notifications, newest first, the unread count and the next page's cursor. */
export interface NotificationPage {
  notifications: NotificationView[];
  unread: number;
  nextCursor: string | null;
}

/**
 * The number of unread notifications of `userId` (the header's badge): one indexed count over
 * (userId, readAt).
 */
export function unreadCount(userId: string): Promise<number> {
  return prisma.notification.count({ where: { userId, readAt: null } });
}

/**
 * The viewer's notifications, newest first, as an indexed keyset page (`cursor` from the previous
 * page; `limit` 1–200, default 30), with the unread count. Errors: 400 `bad_request` for a
 * malformed cursor.
 */
export async function listNotifications(viewer: Pick<Viewer, "id">, opts: { cursor?: string | null; limit?: number; unreadOnly?: boolean } = {}): Promise<NotificationPage> {
  const limit = pageSize(opts.limit, 30);
  const after = opts.cursor ? decodeCursor(opts.cursor, "date") : null;
  const rows = await prisma.notification.findMany({
    where: {
      userId: viewer.id,
      ...(opts.unreadOnly ? { readAt: null } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.key } }, { createdAt: after.key, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  return {
    notifications: rows.slice(0, limit).map((n) => ({ id: n.id, kind: n.kind, runId: n.runId, text: n.text, createdAt: n.createdAt.toISOString(), readAt: n.readAt?.toISOString() ?? null })),
    unread: await unreadCount(viewer.id),
    nextCursor: nextCursorOf(rows, limit, (r) => r.createdAt),
  };
}

/**
 * Marks the viewer's notifications read: the listed ids (only their own; others are ignored)
 * or all of them. Returns how many changed and the unread count left. Reading is not a state
 * change of a run, so it is not audited.
 */
export async function markNotificationsRead(viewer: Pick<Viewer, "id">, ids: string[] | "all", now = new Date()): Promise<{ marked: number; unread: number }> {
  const res = await prisma.notification.updateMany({
    where: { userId: viewer.id, readAt: null, ...(ids === "all" ? {} : { id: { in: ids } }) },
    data: { readAt: now },
  });
  return { marked: res.count, unread: await unreadCount(viewer.id) };
}
