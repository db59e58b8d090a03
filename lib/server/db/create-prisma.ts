import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { LRUCache } from "lru-cache";
import { PrismaClient } from "../../generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../../generated/prisma-pg/client";
import { resolveDatabaseUrl } from "./database-url";
import { gateSqliteFactory } from "./sqlite-gate";
import { registerPool } from "../metrics/metrics";
import { poolerMode } from "./pooler";
import { log as logger } from "../../net/log.mjs";

/** Connections per PostgreSQL pool when PLANDESK_PG_POOL_MAX is unset. */
export const DEFAULT_PG_POOL_MAX = 10;

/**
 * Milliseconds a request waits for a PostgreSQL connection — a free one of the pool, or a new one
 * opened — when PLANDESK_PG_CONNECT_TIMEOUT_MS is unset. Beyond it the checkout fails ("timeout
 * exceeded when trying to connect") and the request is answered 503 `database_unavailable`
 * (lib/server/http/http.ts), instead of waiting without end for a server that went away without
 * refusing (a host or virtual IP that no longer answers). 10 s is what Prisma's own pool waited
 * (`pool_timeout`) before driver adapters; pg-pool's default is to wait without end.
 */
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Options of `createPrisma`. `busyTimeoutMs`: SQLite's lock wait in ms (see below); `poolMax`:
 * PostgreSQL connections; `queryEvents`: the client emits Prisma's `query` event (SQL text,
 * parameters as a JSON array, duration in ms) for every statement, for tests and benchmarks that
 * read the statements a request sends (`$on("query", …)`); off in the app. `connectTimeoutMs`:
 * PostgreSQL pool checkout limit in ms (default: env PLANDESK_PG_CONNECT_TIMEOUT_MS, else
 * {@link DEFAULT_PG_CONNECT_TIMEOUT_MS}).
 */
export interface CreatePrismaOptions {
  busyTimeoutMs?: number;
  poolMax?: number;
  queryEvents?: boolean;
  connectTimeoutMs?: number;
}

/**
 * Creates a Prisma client on the driver adapter for `url` (default: DATABASE_URL or the
 * embedded SQLite file).
 *
 * - SQLite (`file:`): better-sqlite3 in WAL mode with a busy timeout, so parallel requests queue
 *   instead of failing with SQLITE_BUSY. `opts.busyTimeoutMs` (default 15000) exists for tests
 *   that put two clients (two "app instances") in ONE process: better-sqlite3 waits for a lock
 *   synchronously, which would block the very event loop the lock holder needs, so such tests
 *   use 0 and rely on the callers' retry on SQLITE_BUSY instead.
 * - PostgreSQL (`postgres://`, `postgresql://`): `@prisma/adapter-pg` over a `pg` pool of
 *   `opts.poolMax` connections (default: env PLANDESK_PG_POOL_MAX, else 10). Each new connection
 *   first sets its default isolation to READ COMMITTED (`PG_SESSION_DEFAULTS`), so a row-lock
 *   transaction (lib/server/db/transaction.ts) is opened by `BEGIN` alone, without a
 *   `SET TRANSACTION` statement of its own; a serializable one still names its level. Prisma 7's client
 *   is provider-specific, so this uses the client generated from prisma/postgresql/schema.prisma
 *   (scripts/prisma-schemas.mjs writes it from the one source schema); it has the same models
 *   and is returned under the one `PrismaClient` type the app imports.
 *   Behind a transaction pooler (PLANDESK_DATABASE_POOLER=transaction, lib/server/db/pooler.ts)
 *   nothing is set per connection and statements are unnamed (parsed on every execution): a
 *   server session there lasts one transaction, and PgBouncer before 1.21 does not carry named
 *   prepared statements; every transaction then names its isolation (lib/server/db/transaction.ts).
 */
export function createPrisma(url = resolveDatabaseUrl().url, opts: CreatePrismaOptions = {}): PrismaClient {
  // Query events only when asked for: Prisma builds an event object per statement otherwise unused.
  const log = opts.queryEvents ? [{ emit: "event" as const, level: "query" as const }] : undefined;
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: url });
  if (provider === "postgresql") {
    const max = opts.poolMax ?? (Number(process.env.PLANDESK_PG_POOL_MAX) || DEFAULT_PG_POOL_MAX);
    // pg-pool awaits `onConnect` before it hands a new connection out; when it fails, the
    // connection is closed and the checkout fails (nothing runs at another isolation).
    const session = poolerMode() === "session";
    const onConnect = session ? async (client: pg.ClientBase) => void (await client.query(PG_SESSION_DEFAULTS)) : undefined;
    const connectionTimeoutMillis = opts.connectTimeoutMs ?? (Number(process.env.PLANDESK_PG_CONNECT_TIMEOUT_MS) || DEFAULT_PG_CONNECT_TIMEOUT_MS);
    const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis, onConnect });
    registerPool(pool); // plandesk_db_pool_connections (lib/server/metrics)
    const adapter = new PrismaPg(pool, {
      onPoolError: (e) => logger.error(`PostgreSQL pool: ${e.message}`),
      statementNameGenerator: session ? pgStatementName : undefined,
      disposeExternalPool: true,
    });
    return new PostgresPrismaClient({ adapter, log }) as unknown as PrismaClient;
  }
  // A second connection serves reads outside transactions (WAL), except for an in-memory database.
  const adapter = gateSqliteFactory(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: opts.busyTimeoutMs ?? 15000 }), undefined, { reader: file !== ":memory:" });
  return new PrismaClient({ adapter, log });
}

/**
 * Sent once on every new PostgreSQL connection of `createPrisma`: READ COMMITTED as the
 * connection's default isolation, whatever the server's or role's default, so the row-lock
 * transactions (docs/design.md "Transactions and locks") get it from `BEGIN` alone. Not sent
 * behind a transaction pooler (lib/server/db/pooler.ts), where the next transaction may run on
 * another server session and this one's setting would leak to other clients.
 */
export const PG_SESSION_DEFAULTS = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED";

const statementNames = new LRUCache<string, string>({ max: 2_000 });

/**
 * PostgreSQL prepared statements reused: `@prisma/adapter-pg` names a query with this, and `pg`
 * then parses and plans each distinct SQL text once per connection instead of on every query.
 * The name is a hash of the text, so one name is always one text.
 */
function pgStatementName(query: { sql: string }): string {
  let name = statementNames.get(query.sql);
  if (!name) {
    name = `pd_${createHash("sha1").update(query.sql).digest("hex").slice(0, 24)}`;
    statementNames.set(query.sql, name);
  }
  return name;
}
