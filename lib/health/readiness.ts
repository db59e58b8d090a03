/*
 * Whether one server process should be sent traffic (`GET /api/health/ready`): the decision only,
 * from facts the probe gathered (lib/server/health/probe-readiness.ts). Framework-free and pure.
 */

/** Why a process is not ready; a load balancer's log shows these codes. */
export const NOT_READY_REASONS = ["database_unreachable", "migrations_pending", "draining"] as const;
/** One reason a process is not ready (see `decideReadiness`). */
export type NotReadyReason = (typeof NOT_READY_REASONS)[number];

/**
 * What the probe found:
 * - `database`: `ok` when a trivial query answered within the bound, `unreachable` when it failed
 *   or did not answer in time;
 * - `pendingMigrations`: names of the migrations this build carries that the database has not
 *   applied (finished and not rolled back), oldest first; `null` when unknown (the database did not answer);
 * - `draining`: the process received SIGTERM/SIGINT and is finishing its requests.
 */
export interface ReadinessFacts {
  database: "ok" | "unreachable";
  pendingMigrations: readonly string[] | null;
  draining: boolean;
}

/** The readiness answer's body: `{status: "ready"}` or `{status: "not_ready", reasons}` (reasons in NOT_READY_REASONS order, never empty). */
export type Readiness = { status: "ready" } | { status: "not_ready"; reasons: NotReadyReason[] };

/** Seconds a load balancer is told to wait before asking a not-ready process again (`Retry-After`). */
export const READY_RETRY_AFTER_SECONDS = 5;

/** Default bound of the readiness probe's database queries, in milliseconds. */
export const DEFAULT_READY_TIMEOUT_MS = 2_000;

/**
 * Ready when the database answered, no migration of this build is pending, and the process is not
 * draining; otherwise every reason that holds. A database that did not answer says nothing about
 * migrations, so `migrations_pending` is given only when they were read.
 */
export function decideReadiness(facts: ReadinessFacts): Readiness {
  const reasons: NotReadyReason[] = [];
  if (facts.database !== "ok") reasons.push("database_unreachable");
  if (facts.database === "ok" && facts.pendingMigrations !== null && facts.pendingMigrations.length > 0) reasons.push("migrations_pending");
  if (facts.draining) reasons.push("draining");
  return reasons.length === 0 ? { status: "ready" } : { status: "not_ready", reasons };
}

/**
 * The migrations of `carried` (this build's, oldest first) that `applied` (names the database
 * recorded as finished) lacks. Migrations the database has beyond the build's (a newer release
 * migrated first, as in a rolling deploy) are not pending for this build.
 */
export function pendingMigrations(carried: readonly string[], applied: Iterable<string>): string[] {
  const done = new Set(applied);
  return carried.filter((m) => !done.has(m));
}

/**
 * The probe's bound in milliseconds from PLANDESK_READY_TIMEOUT_MS (default 2000).
 * Errors: throws for a value that is not a whole number from 50 to 60000.
 */
export function readyTimeoutMs(env: Record<string, string | undefined>): number {
  const raw = env.PLANDESK_READY_TIMEOUT_MS?.trim();
  if (!raw) return DEFAULT_READY_TIMEOUT_MS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 50 || n > 60_000) throw new Error(`PLANDESK_READY_TIMEOUT_MS must be a whole number of milliseconds from 50 to 60000; got "${raw}"`);
  return n;
}
