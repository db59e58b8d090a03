/**
 * Throw-away databases for the test suites. Which database a vitest run uses is chosen by
 * env PLANDESK_TEST_DB: unset or "sqlite" → one SQLite file per test file in the OS temp dir;
 * "postgres" → one PostgreSQL database `plandesk_test_<random>` per test file on the server of
 * PLANDESK_TEST_PG_URL (default postgresql://postgres@127.0.0.1:5432/postgres), created by
 * `prepareTestDatabase` and dropped when the file ends (vitest.setup.ts). Nothing here relies on
 * another run's state.
 */
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** The maintenance database URL test databases are created and dropped through. */
export function testPgServerUrl(env: Record<string, string | undefined> = process.env): string {
  return env.PLANDESK_TEST_PG_URL?.trim() || "postgresql://postgres@127.0.0.1:5432/postgres";
}

/** True when this run's integration tests use PostgreSQL (env PLANDESK_TEST_DB=postgres). */
export function testsUsePostgres(env: Record<string, string | undefined> = process.env): boolean {
  return /^(postgres|postgresql|pg)$/i.test(env.PLANDESK_TEST_DB?.trim() ?? "");
}

/** A fresh DATABASE_URL for one test file: a temp SQLite file, or a not-yet-created PostgreSQL database. */
export function freshTestDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  const tag = `${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  if (!testsUsePostgres(env)) return `file:${path.join(os.tmpdir(), `plandesk-vitest-${tag}.db`)}`;
  const url = new URL(testPgServerUrl(env));
  url.pathname = `/plandesk_test_${tag}`;
  return url.toString();
}

/** The database name of a PostgreSQL test URL, or null when `url` is not one (refuses anything else). */
export function pgTestDatabaseName(url: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(url)) return null;
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  return /^plandesk_test_[a-z0-9_]+$/.test(name) ? name : null;
}

async function onServer<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPgServerUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Drops (if present) and creates the PostgreSQL test database of `url`, in byte-order collation
 * (C.UTF-8, what Plandesk expects; docs/operations.md "PostgreSQL and several instances"). Errors: throws for a URL that is not a test database.
 */
export async function recreatePgTestDatabase(url: string): Promise<void> {
  const name = pgTestDatabaseName(url);
  if (!name) throw new Error(`Refusing to recreate ${url}: not a plandesk_test_ database`);
  await onServer(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    await c.query(throwawayDatabaseSettings(name));
  });
}

/**
 * The settings of a throw-away test database: its commits do not wait for the WAL to reach the
 * disk (`synchronous_commit = off`). A crash of the server may lose the last few hundred
 * milliseconds of commits, never consistency — no loss for a database dropped when its file ends,
 * and about 2 ms saved per commit on this machine's disk. A database's settings are not copied
 * by `CREATE DATABASE … TEMPLATE`, so every test database is given them when it is created.
 */
export function throwawayDatabaseSettings(name: string): string {
  return `ALTER DATABASE "${name}" SET synchronous_commit = off`;
}

/** Drops the PostgreSQL test database of `url` if it exists (open connections are closed). */
export async function dropPgTestDatabase(url: string): Promise<void> {
  const name = pgTestDatabaseName(url);
  if (!name) return;
  await onServer((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
