/**
 * One seeded template database per test run, copied for every test file that asks for the demo
 * desk at the standard clock. Migrating and seeding a database costs a few seconds (the seed also
 * starts the demo carrier's MCP server to import its tools); copying a SQLite file or creating a
 * PostgreSQL database `TEMPLATE` the seeded one costs milliseconds. So the migrations run and the
 * carrier starts once per suite, not once per file.
 *
 * How it works: vitest.config.mts names the run (`PLANDESK_TEST_SUITE_ID`); vitest.setup.ts notes
 * the seed-relevant environment a file starts with (`PLANDESK_TEST_BASE_ENV`). The first file that
 * needs the template takes a lock directory and builds it in a child process
 * (testing/make-test-template.ts) from that base environment; the others wait for its `ready`
 * marker. A file that changed a seed-relevant variable (a `PLANDESK_…` or `BETTER_AUTH_…` setting)
 * before seeding gets its own fresh seed, as before, so a test never sees a desk seeded under
 * settings other than its own. testing/test-template-teardown.ts removes the template when the
 * run ends. Nothing here relies on another run's state: every run has its own id.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pgTestDatabaseName, testPgServerUrl, throwawayDatabaseSettings } from "./test-databases";

/** Environment variables that can change what the seed writes (everything Plandesk reads, but not the database, the way to it, or the run's own bookkeeping). */
function seedEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(env).sort()) {
    if (!/^(PLANDESK_|BETTER_AUTH_)/.test(k) || /^PLANDESK_(TEST_(SUITE_ID|BASE_ENV|DB_SET)|DATABASE_(POOLER|LISTEN_URL))$/.test(k)) continue;
    out[k] = env[k] ?? "";
  }
  return out;
}

/** A stable text of the seed-relevant environment (JSON of the sorted variables). */
export function seedEnvironmentText(env: NodeJS.ProcessEnv = process.env): string {
  return JSON.stringify(seedEnvironment(env));
}

/** The directory that holds this run's template (lock, marker and, on SQLite, the file). */
export function templateDir(suiteId: string): string {
  return path.join(os.tmpdir(), `plandesk-vitest-template-${suiteId}`);
}

/** The PostgreSQL database name of this run's template (a `plandesk_test_` name, so only test tooling may drop it). */
export function templateDatabaseName(suiteId: string): string {
  return `plandesk_test_template_${suiteId}`;
}

function pgUrlOf(name: string): string {
  const url = new URL(testPgServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the caller of `takeSeededTemplate` does next. */
export type TemplateTake =
  /** The database is a copy of the template: migrated and seeded, nothing more to do. */
  | { kind: "copied" }
  /** Seed the database as usual, then call `publish()` so the other files can copy it (SQLite). */
  | { kind: "build"; publish: (ok: boolean) => Promise<void> }
  /** No template for this file: seed the database as usual. */
  | { kind: "none" };

async function waitFor(file: string): Promise<string | null> {
  const deadline = Date.now() + 300_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) return null;
    await sleep(100);
  }
  return fs.readFileSync(file, "utf8");
}

/** Runs the template builder (testing/make-test-template.ts) in a child process; resolves with its exit code and output. */
function runBuilder(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(process.cwd(), "node_modules", "tsx", "dist", "cli.mjs"), path.join(process.cwd(), "testing", "make-test-template.ts")], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * Makes `url` (this file's SQLite file or PostgreSQL test database) a copy of the run's seeded
 * template when the file asks for the demo desk at the template's clock (`now` equal to
 * `templateNow`) and its seed-relevant environment is the one the run started with.
 *
 * SQLite: the first file to ask seeds its own database as usual and publishes it (`VACUUM INTO`);
 * the others wait for it and copy the file. PostgreSQL: the first file to ask builds the template
 * database in a child process (a database cannot be copied while this process's pool is connected
 * to it); every file then creates its database `TEMPLATE` it. When the template could not be built,
 * every file seeds its own database, as without a template. Errors: throws for a database that is
 * not a test database.
 */
export async function takeSeededTemplate(url: string, provider: "sqlite" | "postgresql", file: string | undefined, now: Date, templateNow: Date): Promise<TemplateTake> {
  const suiteId = process.env.PLANDESK_TEST_SUITE_ID;
  const baseEnv = process.env.PLANDESK_TEST_BASE_ENV;
  if (!suiteId || !/^[a-z0-9]+$/.test(suiteId) || baseEnv === undefined) return { kind: "none" };
  if (now.getTime() !== templateNow.getTime() || baseEnv !== seedEnvironmentText()) return { kind: "none" };
  const dir = templateDir(suiteId);
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `lock-${provider}`);
  const ready = path.join(dir, `ready-${provider}`);
  let builder = false;
  try {
    fs.mkdirSync(lock);
    builder = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") return { kind: "none" };
  }
  if (provider === "sqlite") {
    if (!file || !file.includes("plandesk-vitest-")) throw new Error(`Refusing to overwrite ${url}`);
    const template = path.join(dir, "template.db");
    if (builder) {
      return {
        kind: "build",
        publish: async (ok) => {
          if (!ok) return void fs.writeFileSync(ready, "failed");
          try {
            const db = new Database(file);
            db.exec(`VACUUM INTO '${template.replace(/'/g, "''")}.tmp'`);
            db.close();
            const copy = new Database(`${template}.tmp`);
            copy.pragma("journal_mode = WAL"); // as deploy() leaves every database
            copy.close();
            fs.renameSync(`${template}.tmp`, template);
            fs.writeFileSync(ready, "ok");
          } catch (e) {
            fs.writeFileSync(ready, `failed: ${(e as Error).message}`);
          }
        },
      };
    }
    if ((await waitFor(ready)) !== "ok") return { kind: "none" };
    for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
    fs.copyFileSync(template, file);
    return { kind: "copied" };
  }
  const name = pgTestDatabaseName(url);
  if (!name) throw new Error(`Refusing to recreate ${url}: not a plandesk_test_ database`);
  const template = templateDatabaseName(suiteId);
  if (builder) {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...JSON.parse(baseEnv) };
    env.DATABASE_URL = pgUrlOf(template);
    env.PLANDESK_TEST_TEMPLATE_NOW = templateNow.toISOString();
    env.PLANDESK_TEST_PG_URL = testPgServerUrl();
    const r = await runBuilder(env);
    fs.writeFileSync(ready, r.code === 0 ? "ok" : `failed (exit ${r.code}):\n${r.output}`);
  }
  if ((await waitFor(ready)) !== "ok") return { kind: "none" };
  const client = new pg.Client({ connectionString: testPgServerUrl() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        await client.query(throwawayDatabaseSettings(name));
        return { kind: "copied" };
      } catch (e) {
        // 55006: another session is using the template for a moment (a concurrent CREATE DATABASE).
        if ((e as { code?: string }).code !== "55006" || attempt >= 50) throw e;
        await sleep(100 + Math.random() * 200);
      }
    }
  } finally {
    await client.end();
  }
}
