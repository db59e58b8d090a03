/**
 * Builds one test run's seeded template database (testing/test-template.ts starts it in a child
 * process): migrates `DATABASE_URL` (a fresh SQLite file or PostgreSQL test database), seeds the
 * demo desk at `PLANDESK_TEST_TEMPLATE_NOW` (ISO time, UTC), then leaves the database closed and
 * whole (SQLite: the write-ahead log folded into the file) so it can be copied. Exits non-zero on
 * any failure, printing it.
 */
import Database from "better-sqlite3";
import { resolveDatabaseUrl } from "../lib/server/db/database-url";
import { recreatePgTestDatabase } from "./test-databases";

async function main() {
  const { url, provider, file } = resolveDatabaseUrl();
  const now = new Date(process.env.PLANDESK_TEST_TEMPLATE_NOW ?? "");
  if (Number.isNaN(now.getTime())) throw new Error("PLANDESK_TEST_TEMPLATE_NOW is not a time");
  if (provider === "postgresql") await recreatePgTestDatabase(url);
  else if (!file?.includes("plandesk-vitest-template-")) throw new Error(`Refusing to build a template at ${url}`);
  const { deploy } = await import("../scripts/migrate");
  await deploy(url);
  const { seedDemoDesk } = await import("../lib/server/demo/seed");
  await seedDemoDesk(now);
  const { prisma } = await import("../lib/server/db/db");
  await prisma.$disconnect();
  if (provider === "sqlite") {
    const db = new Database(file!);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
