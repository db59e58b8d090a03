import { Prisma } from "../../generated/prisma/client";
import { tokensAt, type BucketRule } from "../../limits/token-bucket";
import { DB_PROVIDER, type PrismaClient } from "../db/db";

/**
 * The token buckets of API callers, stored in `rate_bucket` (one row per key or person), so every
 * instance on the database shares them. The arithmetic is lib/limits/token-bucket.ts's, done by
 * the database in ONE conditional statement per request: an upsert that inserts a full bucket
 * minus one token when the row is missing, and otherwise refills the row to `now` and takes one
 * token only WHERE the refilled bucket holds at least one —
 *
 *   INSERT INTO rate_bucket (key, tokens, refilledAt) VALUES (key, burst − 1, now)
 *   ON CONFLICT (key) DO UPDATE SET tokens = min(burst, tokens + elapsed × rate) − 1, refilledAt = now
 *   WHERE min(burst, tokens + elapsed × rate) ≥ 1 RETURNING tokens
 *
 * — so two requests (of one instance or two) never both take the last token: PostgreSQL takes the
 * row lock and re-evaluates the WHERE on the row the other committed (and an insert racing an
 * insert becomes the update, never a unique violation); SQLite runs the statement under its one
 * writer lock. No row returned = refused. Refusals write nothing: hammering does not push the
 * caller's recovery further out. `elapsed` is never negative (a clock that went back adds nothing,
 * and `refilledAt` never moves back).
 */

/** The answer for one request: taken, or refused with the whole seconds (≥ 1) until a token is there. */
export type TokenDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Takes one token of bucket `key` under `rule` at `now` (UTC) with one statement on `db` (the
 * process's client unless a test passes another instance's). Refused: reads the bucket once more
 * for the Retry-After (whole seconds until one token is there, at least 1).
 * Errors: whatever the database throws (the route wrapper maps a lost connection to 503).
 */
export async function takeRateToken(db: PrismaClient, key: string, rule: BucketRule, now = new Date(), dialect: "sqlite" | "postgresql" = DB_PROVIDER): Promise<TokenDecision> {
  const rows = await db.$queryRaw<{ tokens: number }[]>(dialect === "postgresql" ? postgresTake(key, rule, now) : sqliteTake(key, rule, now));
  if (rows.length > 0) return { allowed: true };
  const bucket = await db.rateBucket.findUnique({ where: { key }, select: { tokens: true, refilledAt: true } });
  const tokens = tokensAt(bucket, rule, now);
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rule.refillPerSecond)) };
}

/** PostgreSQL: the elapsed seconds from the row's `refilledAt` to the request's (`excluded`), never negative. */
function postgresTake(key: string, rule: BucketRule, now: Date): Prisma.Sql {
  const burst = Prisma.sql`CAST(${rule.capacity} AS double precision)`;
  const rate = Prisma.sql`CAST(${rule.refillPerSecond} AS double precision)`;
  const refilled = Prisma.sql`LEAST(${burst}, "rate_bucket"."tokens" + GREATEST(0, CAST(EXTRACT(EPOCH FROM (excluded."refilledAt" - "rate_bucket"."refilledAt")) AS double precision)) * ${rate})`;
  return Prisma.sql`
    INSERT INTO "rate_bucket" ("key", "tokens", "refilledAt") VALUES (${key}, ${burst} - 1, CAST(${now} AS timestamp(3)))
    ON CONFLICT ("key") DO UPDATE SET "tokens" = ${refilled} - 1, "refilledAt" = GREATEST("rate_bucket"."refilledAt", excluded."refilledAt")
    WHERE ${refilled} >= 1
    RETURNING "tokens"`;
}

/**
 * SQLite: times are stored as ISO text with milliseconds; `julianday` reads them as days, whose
 * difference is off by some microseconds (a double of ~2.46 million days), so it is rounded to
 * whole milliseconds — exactly the difference of the two stored times.
 */
function sqliteTake(key: string, rule: BucketRule, now: Date): Prisma.Sql {
  const burst = Prisma.sql`CAST(${rule.capacity} AS REAL)`;
  const rate = Prisma.sql`CAST(${rule.refillPerSecond} AS REAL)`;
  const elapsedMs = Prisma.sql`round((julianday(excluded."refilledAt") - julianday("rate_bucket"."refilledAt")) * 86400000.0)`;
  const refilled = Prisma.sql`min(${burst}, "rate_bucket"."tokens" + max(0, ${elapsedMs} / 1000.0) * ${rate})`;
  return Prisma.sql`
    INSERT INTO "rate_bucket" ("key", "tokens", "refilledAt") VALUES (${key}, ${burst} - 1, ${now})
    ON CONFLICT ("key") DO UPDATE SET "tokens" = ${refilled} - 1, "refilledAt" = CASE WHEN ${elapsedMs} > 0 THEN excluded."refilledAt" ELSE "rate_bucket"."refilledAt" END
    WHERE ${refilled} >= 1
    RETURNING "tokens"`;
}
