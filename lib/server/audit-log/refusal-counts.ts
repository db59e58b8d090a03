import { createHash } from "node:crypto";
import { prisma } from "../db/db";
import { currentRequest } from "../http/request-context";
import { log } from "../../net/log.mjs";

/** Longest client address kept (an IPv6 address is at most 45 characters). */
export const MAX_ADDRESS_CHARS = 64;
/** Longest route template kept. */
export const MAX_ROUTE_CHARS = 160;
/** Characters of the `Origin` header kept verbatim; the rest is represented by a hash. */
export const ORIGIN_PREFIX_CHARS = 64;

/**
 * An `Origin` header bounded for storage: unchanged when it is at most ORIGIN_PREFIX_CHARS
 * characters, else its first ORIGIN_PREFIX_CHARS characters, "…#" and the first 12 hex digits of
 * the SHA-256 of the whole header (so two long origins still tell apart). Null stays null.
 */
export function boundedOrigin(origin: string | null): string | null {
  if (origin === null) return null;
  if (origin.length <= ORIGIN_PREFIX_CHARS) return origin;
  return `${origin.slice(0, ORIGIN_PREFIX_CHARS)}…#${createHash("sha256").update(origin).digest("hex").slice(0, 12)}`;
}

/** The start of the UTC minute `at` falls in. */
export const minuteOf = (at: Date): Date => new Date(Math.floor(at.getTime() / 60_000) * 60_000);

/** One refusal of a caller nobody identified. */
export interface AnonymousRefusal {
  /** The declared route ("POST /api/runs/{runId}/approvals"). */
  route: string;
  /** The client address, or null when unknown. */
  address: string | null;
  /** The refusal code (unauthorized, cross_origin, …). */
  code: string;
  /** What the caller lacked (session, agent_key, integration_key, same_origin). */
  missing: string;
  /** The raw `Origin` header, or null. */
  origin: string | null;
}

/**
 * Counts one refusal of an unidentified caller: one upsert of the (minute, address, route, code)
 * row of `refusal_count`, its count raised by one — never a new audit event, so a flood of
 * anonymous requests grows a number, not the append-only log. Every stored field is bounded
 * (address, route truncated; Origin via {@link boundedOrigin}). Authenticated callers' refusals
 * stay individual `denied` audit events. A lost race between two first refusals of the same
 * minute (a unique violation) is retried once as an increment. Returns the row's count after this
 * refusal: exactly one of the refusals of a (minute, address, route, code) sees 1, on any instance
 * (the increment is one statement), which is how a first refusal of the minute is told apart.
 */
export async function countAnonymousRefusal(r: AnonymousRefusal, now = new Date()): Promise<number> {
  const key = {
    minute: minuteOf(now),
    address: (r.address?.trim() || "unknown").slice(0, MAX_ADDRESS_CHARS),
    route: r.route.slice(0, MAX_ROUTE_CHARS),
    code: r.code.slice(0, 40),
  };
  const fields = { missing: r.missing.slice(0, 40), origin: boundedOrigin(r.origin), lastAt: now };
  const upsert = () =>
    prisma.refusalCount.upsert({
      where: { minute_address_route_code: key },
      create: { ...key, ...fields, count: 1 },
      update: { ...fields, count: { increment: 1 } },
      select: { count: true },
    });
  try {
    return (await upsert()).count;
  } catch (e) {
    if ((e as { code?: string }).code !== "P2002") throw e;
    return (await upsert()).count;
  }
}

/**
 * {@link countAnonymousRefusal} for the API request being handled (its declared route and client
 * address); `fallbackRoute` names the action outside an API request. A failure to count is logged,
 * never turned into a different answer.
 */
export async function countCurrentAnonymousRefusal(code: string, missing: string, origin: string | null, fallbackRoute: string, now = new Date()): Promise<void> {
  const ctx = currentRequest();
  try {
    await countAnonymousRefusal({ route: ctx?.route ?? fallbackRoute, address: ctx?.address ?? null, code, missing, origin }, now);
  } catch (e) {
    log.error({ err: e }, "plandesk: could not count a refusal");
  }
}

/**
 * Counts one refusal of an API caller beyond its rate (docs/security.md "Per-key and per-person
 * rate limits"): the same upsert of `refusal_count`, with the caller's bucket key
 * ("agent-key:<apiKeyId>", "integration-key:<id>", "person:<userId>"; at most MAX_ADDRESS_CHARS
 * characters) in place of the address, code `rate_limited` and `missing` "rate" — so a runaway
 * agent grows a number per (minute, key, route), not the append-only log.
 */
export async function countRateRefusal(r: { key: string; route: string }, now = new Date()): Promise<void> {
  await countAnonymousRefusal({ route: r.route, address: r.key, code: "rate_limited", missing: "rate", origin: null }, now);
}

/** One row of counted refusals as the denials page shows it. */
export interface RefusalCountRow {
  minute: string;
  lastAt: string;
  address: string;
  route: string;
  code: string;
  missing: string;
  origin: string | null;
  count: number;
}

/**
 * The latest counted refusals (of unidentified callers, and of callers beyond their rate), newest first, at most `limit`
 * (1–200, default 50) rows, plus the total of refusals those rows count. For supervisors and
 * admins (the caller authorises; see listDenials).
 */
export async function listRefusalCounts(opts: { limit?: number } = {}): Promise<{ rows: RefusalCountRow[] }> {
  const limit = Math.min(200, Math.max(1, Math.trunc(opts.limit ?? 50)));
  const rows = await prisma.refusalCount.findMany({ orderBy: [{ lastAt: "desc" }], take: limit });
  return {
    rows: rows.map((r) => ({
      minute: r.minute.toISOString(),
      lastAt: r.lastAt.toISOString(),
      address: r.address,
      route: r.route,
      code: r.code,
      missing: r.missing,
      origin: r.origin,
      count: r.count,
    })),
  };
}
