import os from "node:os";
import path from "node:path";

// Every test file gets its own throw-away SQLite database, so integration tests can run in
// parallel and never touch a developer's data. Set before any module creates the client.
if (!process.env.PLANDESK_TEST_DB_SET) {
  const file = path.join(os.tmpdir(), `plandesk-vitest-${process.pid}-${Math.random().toString(36).slice(2)}.db`);
  process.env.DATABASE_URL = `file:${file}`;
  process.env.PLANDESK_URL = "http://localhost:3999";
  process.env.PLANDESK_STRICT_CONTRACT = "1"; // a refusal or body a declaration does not allow fails the test
  process.env.PLANDESK_DEMO = "1";
}
