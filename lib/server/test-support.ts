import fs from "node:fs";
import { deploy } from "../../scripts/migrate";
import { resolveDatabaseUrl } from "./database-url";
import { seedDemoDesk } from "./seed";

/** The fixed clock integration tests use: 2026-04-01 09:00 UTC. */
export const TEST_NOW = new Date("2026-04-01T09:00:00Z");

/**
 * Migrates this test file's throw-away database (set by vitest.setup.ts) and seeds the demo
 * desk at `now`. Refuses any database that is not a temp test file.
 */
export async function prepareTestDatabase(now = TEST_NOW, opts: { seed?: boolean } = { seed: true }) {
  const { url, file } = resolveDatabaseUrl();
  if (!file || !file.includes("plandesk-vitest-")) throw new Error(`Refusing to run tests against ${url}`);
  for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
  await deploy(url);
  if (opts.seed !== false) await seedDemoDesk(now);
}
