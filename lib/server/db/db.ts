import { PrismaClient } from "../../generated/prisma/client";
import { createPrisma } from "./create-prisma";
import { resolveDatabaseUrl } from "./database-url";
import { onDrainRelease } from "../../net/drain.mjs";

export { createPrisma, DEFAULT_PG_POOL_MAX, PG_SESSION_DEFAULTS, type CreatePrismaOptions } from "./create-prisma";

const globalForPrisma = globalThis as unknown as { plandeskPrisma?: PrismaClient };

/**
 * The process-wide Prisma client (one per server process; reused across hot reloads). A client
 * already on `globalThis.plandeskPrisma` when this module loads is the one used (a test that reads
 * the statements of a request installs one made with `queryEvents`, testing/statement-capture.ts).
 */
export const prisma: PrismaClient = globalForPrisma.plandeskPrisma ?? createPrisma();
globalForPrisma.plandeskPrisma = prisma;
// A draining server (lib/net/drain.mjs) closes the pool once its requests finished.
onDrainRelease("the database pool", () => prisma.$disconnect());

/** The dialect of the process-wide client: "sqlite" or "postgresql" (from DATABASE_URL). */
export const DB_PROVIDER = resolveDatabaseUrl().provider;

export type { PrismaClient };
