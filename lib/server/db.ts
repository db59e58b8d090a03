import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../generated/prisma/client";
import { resolveDatabaseUrl } from "./database-url";
import { gateSqliteFactory } from "./sqlite-gate";

/**
 * Creates a Prisma client on the driver adapter for `url` (default: DATABASE_URL or the
 * embedded SQLite file). SQLite runs in WAL mode with a busy timeout so parallel requests
 * queue instead of failing with SQLITE_BUSY. `opts.busyTimeoutMs` (default 15000) exists for
 * tests that put two clients (two "app instances") in ONE process: better-sqlite3 waits for a
 * lock synchronously, which would block the very event loop the lock holder needs, so such
 * tests use 0 and rely on the callers' retry on SQLITE_BUSY instead.
 */
export function createPrisma(url = resolveDatabaseUrl().url, opts: { busyTimeoutMs?: number } = {}): PrismaClient {
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: url });
  if (provider !== "sqlite") throw new Error("PostgreSQL support is not wired yet; use a file: DATABASE_URL");
  const adapter = gateSqliteFactory(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: opts.busyTimeoutMs ?? 15000 }));
  return new PrismaClient({ adapter });
}

const globalForPrisma = globalThis as unknown as { plandeskPrisma?: PrismaClient };

/** The process-wide Prisma client (one per server process; reused across hot reloads). */
export const prisma: PrismaClient = globalForPrisma.plandeskPrisma ?? createPrisma();
globalForPrisma.plandeskPrisma = prisma;

export type { PrismaClient };
