/**
 * `databaseUnavailable` against the errors the drivers really throw, each caused here rather than
 * written by hand: on PostgreSQL (PLANDESK_TEST_DB=postgres) against throw-away databases of the
 * test server — a refused connection, a connection ended by the administrator (57P01) in the
 * middle of a query, a write to a read-only database (25006, what a standby answers), a pool
 * checkout that timed out, a connection reset in the middle of a query (through a forwarder that
 * cuts it); on SQLite a file that cannot be opened. Errors of the query itself (a unique
 * violation, a syntax error) stay what they are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createPrisma } from "../db/create-prisma";
import { databaseUnavailable, databaseUnavailableReason } from "./http";
import { dropPgTestDatabase, freshTestDatabaseUrl, recreatePgTestDatabase, testPgServerUrl, testsUsePostgres } from "../../../testing/test-databases";
import { freePort } from "../../../testing/app-instances";
import { startTcpSwitch, type TcpSwitch } from "../../../testing/tcp-switch";

/** The error `p` rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the query to fail");
}

/** Waits until `check` is true (polling every 50 ms, at most `ms`). */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const expectUnavailable = (e: unknown) => expect(databaseUnavailable(e)?.code, String((e as Error)?.message)).toBe("database_unavailable");

if (testsUsePostgres()) {
  describe("PostgreSQL errors of an unavailable database", () => {
    const url = freshTestDatabaseUrl();
    const readOnlyUrl = freshTestDatabaseUrl();
    const admin = new pg.Client({ connectionString: testPgServerUrl() });
    let forwarder: TcpSwitch;

    /** Waits until a query containing `text` runs on `url`'s database. */
    const running = (text: string) =>
      until(async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2", [new URL(url).pathname.slice(1), `%${text}%`])).rowCount! > 0);

    beforeAll(async () => {
      await recreatePgTestDatabase(url);
      await recreatePgTestDatabase(readOnlyUrl);
      await admin.connect();
      await admin.query(`ALTER DATABASE "${new URL(readOnlyUrl).pathname.slice(1)}" SET default_transaction_read_only = on`);
      forwarder = await startTcpSwitch(Number(new URL(url).port || 5432));
    });
    afterAll(async () => {
      await forwarder?.close();
      await admin.end();
      await dropPgTestDatabase(url);
      await dropPgTestDatabase(readOnlyUrl);
    });

    it("a refused connection", async () => {
      const gone = createPrisma(`postgresql://postgres@127.0.0.1:${await freePort()}/plandesk_gone`);
      expectUnavailable(await rejection(gone.$queryRaw`SELECT 1`));
      await gone.$disconnect();
    });

    it("a connection the administrator ends under a query (57P01)", async () => {
      const db = createPrisma(url);
      const query = rejection(db.$queryRaw`SELECT pg_sleep(20) AS ended_by_admin`);
      await running("ended_by_admin");
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%ended_by_admin%' AND pid <> pg_backend_pid()");
      expectUnavailable(await query);
      await db.$disconnect();
    });

    it("a write to a read-only server, as a standby answers (25006)", async () => {
      const db = createPrisma(readOnlyUrl);
      const e = await rejection(db.$executeRawUnsafe("CREATE TABLE refused_write (id int)"));
      expect(JSON.stringify(e, Object.getOwnPropertyNames(e))).toContain("25006");
      expectUnavailable(e);
      expect(databaseUnavailableReason(e)).toBe("25006"); // what the refusal's log line names
      await db.$disconnect();
    });

    it("a pool checkout that times out", async () => {
      const db = createPrisma(url, { poolMax: 1, connectTimeoutMs: 300 });
      // a transaction holds the pool's one connection until the test lets it go
      let release = () => {};
      const released = new Promise<void>((r) => (release = r));
      let holding = false;
      const holder = db.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          holding = true;
          await released;
        },
        { timeout: 60_000, maxWait: 60_000 },
      );
      await until(async () => holding);
      expectUnavailable(await rejection(db.$queryRaw`SELECT 1`));
      release();
      await holder;
      await db.$disconnect();
    });

    it("a connection reset under a query", async () => {
      const through = new URL(url);
      through.port = String(forwarder.port);
      const db = createPrisma(through.toString());
      const query = rejection(db.$queryRaw`SELECT pg_sleep(20) AS reset_midway`);
      await running("reset_midway");
      expect(forwarder.cut()).toBeGreaterThan(0);
      expectUnavailable(await query);
      await db.$disconnect();
    });

    it("the next query of a transaction whose connection was ended (pg: not queryable)", async () => {
      const db = createPrisma(url);
      const e = await rejection(
        db.$transaction(async (tx) => {
          const [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          await until(async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount === 0);
          await tx.$queryRaw`SELECT 1`;
        }),
      );
      expectUnavailable(e);
      await db.$disconnect();
    });

    it("leaves the errors of the query itself alone", async () => {
      const db = createPrisma(url);
      await db.$executeRawUnsafe("CREATE TABLE one_row (id int PRIMARY KEY)");
      await db.$executeRawUnsafe("INSERT INTO one_row VALUES (1)");
      expect(databaseUnavailable(await rejection(db.$executeRawUnsafe("INSERT INTO one_row VALUES (1)")))).toBeNull();
      expect(databaseUnavailable(await rejection(db.$queryRawUnsafe("SELEC 1")))).toBeNull();
      await db.$disconnect();
    });
  });
} else {
  describe("SQLite errors of an unavailable database", () => {
    it("a database file that cannot be opened, and not a query's own error", async () => {
      const gone = createPrisma("file:/nonexistent-plandesk-dir/gone.db");
      expectUnavailable(await rejection(gone.$queryRaw`SELECT 1`));
      const db = createPrisma(freshTestDatabaseUrl());
      expect(databaseUnavailable(await rejection(db.$queryRawUnsafe("SELEC 1")))).toBeNull();
      await db.$disconnect();
    });
  });
}
