import path from "node:path";
import type { PrismaClient } from "../db/db";
import { carriedMigrations } from "../db/migration-names.mjs";
import { isDraining } from "../../net/drain.mjs";
import { decideReadiness, pendingMigrations, READY_RETRY_AFTER_SECONDS, type Readiness, type ReadinessFacts } from "../../health/readiness";
import { log } from "../../net/log.mjs";

/** What the probe asks of the database: a trivial query, then the applied migrations. */
export interface ProbeOptions {
  /** The bound of both queries together, in ms (PLANDESK_READY_TIMEOUT_MS; lib/health/readiness.ts). */
  timeoutMs: number;
  /** The migration names this build carries for the database's dialect, oldest first. */
  carried: readonly string[];
  /** Whether the process drains (default: the server's flag, lib/net/drain.mjs). */
  draining?: boolean;
}

type DbAnswer = { database: "ok" | "unreachable"; applied: string[] | null };

/** One probe in flight per client: a database that hangs is asked once, not once per poll. */
const inFlight = new WeakMap<object, Promise<DbAnswer>>();

/**
 * Gathers the readiness facts of this process (lib/health/readiness.ts): `SELECT 1` and the
 * applied migrations (`_prisma_migrations`, finished and not rolled back) of `db`, both within
 * `opts.timeoutMs` — a database that does not answer in time is `unreachable`, and the probe
 * returns at the bound (the query itself is left to finish or fail; the next probe joins it rather
 * than adding another). A database that answers but has no `_prisma_migrations` table has every
 * migration pending. Never throws; logs why the database was found unreachable.
 */
export async function probeReadiness(db: PrismaClient, opts: ProbeOptions): Promise<ReadinessFacts> {
  let query = inFlight.get(db);
  if (!query) {
    query = askDatabase(db).finally(() => inFlight.delete(db));
    inFlight.set(db, query);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<DbAnswer>((resolve) => {
    timer = setTimeout(() => {
      log.error(`plandesk: readiness: the database did not answer within ${opts.timeoutMs} ms`);
      resolve({ database: "unreachable", applied: null });
    }, opts.timeoutMs);
  });
  const answer = await Promise.race([query, timedOut]).finally(() => clearTimeout(timer));
  return {
    database: answer.database,
    pendingMigrations: answer.applied === null ? null : pendingMigrations(opts.carried, answer.applied),
    draining: opts.draining ?? isDraining(),
  };
}

async function askDatabase(db: PrismaClient): Promise<DbAnswer> {
  try {
    await db.$queryRawUnsafe("SELECT 1");
  } catch (e) {
    log.error(`plandesk: readiness: the database did not answer: ${why(e)}`);
    return { database: "unreachable", applied: null };
  }
  try {
    const rows = await db.$queryRawUnsafe<{ migration_name: string }[]>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    return { database: "ok", applied: rows.map((r) => r.migration_name) };
  } catch (e) {
    // The database answers but has no migration table: nothing was applied yet.
    log.error(`plandesk: readiness: the applied migrations could not be read: ${why(e)}`);
    return { database: "ok", applied: [] };
  }
}

/** One line saying why a query failed: the last line of its message (Prisma puts the driver's there), else its code or its cause's. */
function why(e: unknown): string {
  for (let at = e, depth = 0; at && depth < 4; depth++) {
    const o = at as { message?: unknown; code?: unknown; cause?: unknown };
    const line = typeof o.message === "string" ? o.message.split("\n").filter((l) => l.trim()).at(-1) : undefined;
    if (line) return line.trim();
    if (typeof o.code === "string" && o.code) return o.code;
    at = o.cause;
  }
  return String(e);
}

/**
 * The migration names this build carries for `provider`: those next.config.mjs baked into the
 * build (PLANDESK_BUILD_MIGRATIONS), or, where the code runs unbuilt (tests), the checkout's
 * folder read once.
 */
export function buildMigrations(provider: "sqlite" | "postgresql"): readonly string[] {
  carried ??= process.env.PLANDESK_BUILD_MIGRATIONS
    ? (JSON.parse(process.env.PLANDESK_BUILD_MIGRATIONS) as { sqlite: string[]; postgresql: string[] })
    : carriedMigrations(path.resolve(/* turbopackIgnore: true */ process.cwd()));
  return carried[provider];
}
let carried: { sqlite: string[]; postgresql: string[] } | undefined;

/** The readiness answer as HTTP: 200 ready, else 503 with `Retry-After`; never stored by a cache. */
export function readinessAnswer(facts: ReadinessFacts): { status: 200 | 503; body: Readiness; headers: Record<string, string> } {
  const body = decideReadiness(facts);
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (body.status === "ready") return { status: 200, body, headers };
  return { status: 503, body, headers: { ...headers, "Retry-After": String(READY_RETRY_AFTER_SECONDS) } };
}
