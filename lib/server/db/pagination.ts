import { DomainError } from "../../errors/domain-error";

/**
 * Keyset pagination shared by every list (queue, escalations, reconciliation, denials, audit,
 * admin): a page is an indexed range after the last row of the previous page, never an offset
 * over a whole table. A cursor is opaque to callers: base64url of "<key>|<id>".
 */

/** Rows per page: `limit` clamped to 1–`max` (default `fallback`). */
export function pageSize(limit: number | undefined, fallback = 50, max = 200): number {
  return Math.min(max, Math.max(1, Math.trunc(Number.isFinite(limit) ? (limit as number) : fallback)));
}

/** Encodes the position after a row whose sort key is `key` (a Date, a number or a string) and id `id`. */
export function encodeCursor(key: Date | number | string, id: string): string {
  const k = key instanceof Date ? key.toISOString() : String(key);
  return Buffer.from(`${k}|${id}`, "utf8").toString("base64url");
}

/**
 * Decodes a cursor made by `encodeCursor` whose key was a Date (`kind: "date"`) or a number.
 * Errors: 400 `bad_request` for a malformed cursor.
 */
export function decodeCursor(cursor: string, kind: "date"): { key: Date; id: string };
export function decodeCursor(cursor: string, kind: "number"): { key: number; id: string };
export function decodeCursor(cursor: string, kind: "date" | "number"): { key: Date | number; id: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const at = text.lastIndexOf("|");
  const [raw, id] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : ["", ""];
  const key = kind === "date" ? new Date(raw) : Number(raw);
  const bad = kind === "date" ? Number.isNaN((key as Date).getTime()) : !Number.isFinite(key as number);
  if (!id || bad) throw new DomainError("bad_request", "This page cursor is not valid; start again from the first page.");
  return { key, id };
}

/**
 * The `where` of the page after `cursor` in (createdAt, id) ascending order (a cursor made by
 * `nextCursorOf(rows, limit, (r) => r.createdAt)`), or `{}` for the first page.
 * Errors: 400 `bad_request` for a malformed cursor.
 */
export function afterCreated(cursor: string | null | undefined): { OR?: ({ createdAt: { gt: Date } } | { createdAt: Date; id: { gt: string } })[] } {
  if (!cursor) return {};
  const after = decodeCursor(cursor, "date");
  return { OR: [{ createdAt: { gt: after.key } }, { createdAt: after.key, id: { gt: after.id } }] };
}

/** The cursor of the next page: present when the query returned more than `limit` rows. */
export function nextCursorOf<T extends { id: string }>(rows: T[], limit: number, keyOf: (row: T) => Date | number | string): string | null {
  if (rows.length <= limit) return null;
  const last = rows[limit - 1];
  return encodeCursor(keyOf(last), last.id);
}
