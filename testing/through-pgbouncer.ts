/**
 * Imported FIRST by a test file that runs the app through PgBouncer in transaction mode (before
 * any module that opens the database): starts one PgBouncer for the file (testing/pgbouncer.ts),
 * points DATABASE_URL at this file's test database through it — so the process-wide client and
 * every child process started with this environment go through the pooler — and sets
 * PLANDESK_DATABASE_POOLER=transaction (lib/server/db/pooler.ts). The database itself is still
 * created, copied and dropped on the server directly (testing/test-databases.ts). PgBouncer is
 * stopped in `afterAll`, whatever the tests did. Not used by the app.
 *
 * When pgbouncer is not installed and the PostgreSQL tests are switched off (PLANDESK_SKIP_PG=1),
 * nothing starts and `pooler` is null: the file skips, saying why. Not installed otherwise is an
 * error: CI installs it (.ci/run).
 */
import { afterAll } from "vitest";
import { pgbouncerPath, startPgBouncer, type PgBouncer } from "./pgbouncer";

/** The direct URL of this file's database (what vitest.setup.ts chose). */
export const directUrl = process.env.DATABASE_URL ?? "";

/** Why the file skips, or null when it runs. */
export const skipReason = !pgbouncerPath() && process.env.PLANDESK_SKIP_PG === "1" ? "pgbouncer is not installed and PLANDESK_SKIP_PG=1: the transaction-pooler suite does not run" : null;

/** This file's PgBouncer, or null when the file skips (`skipReason`). */
export const pooler: PgBouncer | null = skipReason ? null : await startPgBouncer();

if (skipReason) console.warn(`plandesk tests: ${skipReason}`);
if (pooler) {
  process.env.DATABASE_URL = pooler.urlFor(directUrl);
  process.env.PLANDESK_DATABASE_POOLER = "transaction";
  delete process.env.PLANDESK_DATABASE_LISTEN_URL;
  afterAll(async () => {
    // The process-wide client first, so its pool does not see PgBouncer close its connections.
    await (globalThis as unknown as { plandeskPrisma?: { $disconnect(): Promise<void> } }).plandeskPrisma?.$disconnect();
    await pooler.stop();
  });
}
