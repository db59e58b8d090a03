import { afterAll } from "vitest";
import { dropPgTestDatabase, freshTestDatabaseUrl, testsUsePostgres } from "./testing/test-databases";
import { UNLIMITED_RATES } from "./testing/unlimited-rates";
import { seedEnvironmentText } from "./testing/test-template";

// Every test file gets its own throw-away database — a SQLite file, or with PLANDESK_TEST_DB=postgres
// a PostgreSQL database plandesk_test_<random> (testing/test-databases.ts) — so integration tests
// can run in parallel and never touch a developer's data. Set before any module creates the client.
if (!process.env.PLANDESK_TEST_DB_SET) {
  process.env.DATABASE_URL = freshTestDatabaseUrl();
  process.env.PLANDESK_URL = "http://localhost:3999";
  process.env.PLANDESK_STRICT_CONTRACT = "1"; // a refusal or body a declaration does not allow fails the test
  process.env.PLANDESK_DEMO = "1";
  // The API's rate limits depend on the wall clock: a suite that sends many requests from one key
  // would pass on a slow machine and be refused on a fast one. They are moved out of the way here;
  // app/api/rate-limits.test.ts sets small limits per test, and the defaults are checked where
  // they are declared (lib/server/rate-limits/rate-limit.test.ts, scripts/security-limits.test.ts).
  for (const [k, v] of Object.entries(UNLIMITED_RATES)) process.env[k] ??= v;
  // The settings this file starts with: a file that changes one before seeding gets its own seed
  // rather than a copy of the run's template (testing/test-template.ts).
  process.env.PLANDESK_TEST_BASE_ENV = seedEnvironmentText();
  if (testsUsePostgres()) {
    process.env.PLANDESK_PG_POOL_MAX ??= "6"; // several files run at once on one server
    const url = process.env.DATABASE_URL;
    afterAll(async () => {
      const g = globalThis as unknown as { plandeskPrisma?: { $disconnect(): Promise<void> } };
      await g.plandeskPrisma?.$disconnect();
      await dropPgTestDatabase(url);
    });
  }
}
