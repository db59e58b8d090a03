import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../generated/prisma/client";
import { resolveDatabaseUrl } from "./database-url";

/**
 * Creates a Prisma client on the driver adapter for `url` (default: DATABASE_URL or the
 * embedded SQLite file). SQLite runs in WAL mode with a busy timeout so parallel requests
 * queue instead of failing with SQLITE_BUSY.
 */
export function createPrisma(url = resolveDatabaseUrl().url): PrismaClient {
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: url });
  if (provider !== "sqlite") throw new Error("PostgreSQL support is not wired yet; use a file: DATABASE_URL");
  const adapter = new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 15000 });
  return new PrismaClient({ adapter });
}

const globalForPrisma = globalThis as unknown as { plandeskPrisma?: PrismaClient };

/** The process-wide Prisma client (one per server process; reused across hot reloads). */
export const prisma: PrismaClient = globalForPrisma.plandeskPrisma ?? createPrisma();
globalForPrisma.plandeskPrisma = prisma;

export type { PrismaClient };
