/**
 * Vitest global setup: when the run ends, removes its seeded template (testing/test-template.ts) —
 * the SQLite file's directory and, if one was made, the PostgreSQL template database.
 */
import fs from "node:fs";
import { dropPgTestDatabase, testPgServerUrl } from "./test-databases";
import { templateDatabaseName, templateDir } from "./test-template";

/** Nothing to set up; returns the teardown that removes this run's template. */
export default function setup(): () => Promise<void> {
  return async () => {
    const suiteId = process.env.PLANDESK_TEST_SUITE_ID;
    if (!suiteId || !/^[a-z0-9]+$/.test(suiteId)) return;
    const dir = templateDir(suiteId);
    const madeOnPg = fs.existsSync(`${dir}/ready-postgresql`);
    fs.rmSync(dir, { recursive: true, force: true });
    if (madeOnPg) {
      const url = new URL(testPgServerUrl());
      url.pathname = `/${templateDatabaseName(suiteId)}`;
      await dropPgTestDatabase(url.toString());
    }
  };
}
