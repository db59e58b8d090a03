/**
 * The health checks a load balancer polls (`GET /api/health/live`, `GET /api/health/ready`),
 * through their route handlers on SQLite and, with PLANDESK_TEST_DB=postgres, PostgreSQL: ready on
 * a migrated database; 503 `migrations_pending` when a migration this build carries is not applied;
 * 503 `draining` once the process drains; and `database_unreachable` within the bound — never a
 * hang — when the database refuses, cannot be opened, or accepts the connection and never answers.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrisma, DB_PROVIDER, prisma } from "@/lib/server/db/db";
import { buildMigrations, probeReadiness, readinessAnswer } from "@/lib/server/health/probe-readiness";
import { markDraining, resetDrainState } from "@/lib/net/drain.mjs";
import { prepareTestDatabase } from "@/testing/test-support";
import { apiRequest } from "@/testing/test-auth";
import { GET as live } from "./live/route";
import { GET as ready } from "./ready/route";

beforeAll(async () => {
  await prepareTestDatabase();
});
afterEach(() => resetDrainState());

const call = async (handler: typeof ready, path: string) => {
  const res = await handler(apiRequest("GET", path));
  return { status: res.status, body: (await res.json()) as unknown, cache: res.headers.get("cache-control"), retryAfter: res.headers.get("retry-after") };
};

describe("GET /api/health/live", () => {
  it("answers 200 {status: live}, not stored, to anyone", async () => {
    expect(await call(live, "/api/health/live")).toEqual({ status: 200, body: { status: "live" }, cache: "no-store", retryAfter: null });
  });

  it("still answers while the process drains", async () => {
    markDraining();
    expect((await call(live, "/api/health/live")).status).toBe(200);
  });
});

describe("GET /api/health/ready", () => {
  it("answers 200 {status: ready} on a migrated database, not stored, with nothing else in it", async () => {
    expect(await call(ready, "/api/health/ready")).toEqual({ status: 200, body: { status: "ready" }, cache: "no-store", retryAfter: null });
  });

  it("compares the database with every migration of its dialect", async () => {
    const applied = await prisma.$queryRawUnsafe<{ migration_name: string }[]>('SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name');
    expect(buildMigrations(DB_PROVIDER).length).toBeGreaterThan(10);
    expect(applied.map((r) => r.migration_name)).toEqual(buildMigrations(DB_PROVIDER));
  });

  it("answers 503 migrations_pending with Retry-After while a migration of this build is not applied", async () => {
    const last = buildMigrations(DB_PROVIDER).at(-1)!;
    await prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET rolled_back_at = CURRENT_TIMESTAMP WHERE migration_name = '${last}'`);
    try {
      expect(await call(ready, "/api/health/ready")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["migrations_pending"] }, cache: "no-store", retryAfter: "5" });
    } finally {
      await prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE migration_name = '${last}'`);
    }
    expect((await call(ready, "/api/health/ready")).status).toBe(200);
  });

  it("answers 503 draining once the process drains", async () => {
    markDraining();
    expect(await call(ready, "/api/health/ready")).toEqual({ status: 503, body: { status: "not_ready", reasons: ["draining"] }, cache: "no-store", retryAfter: "5" });
  });
});

describe("an unreachable database: not ready within the bound", () => {
  /** A TCP server that accepts connections and never says a word (a database that hangs). */
  let silent: net.Server;
  let silentPort = 0;
  let accepted = 0;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    silent = net.createServer((s) => {
      accepted++;
      sockets.push(s);
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  const carried = ["20261129200659_init"];

  it("a database that accepts the connection and never answers: 503 database_unreachable at the bound, and one query outstanding however often it is asked", async () => {
    const db = createPrisma(`postgresql://postgres@127.0.0.1:${silentPort}/plandesk_hangs`, { poolMax: 2 });
    const t0 = Date.now();
    const facts = await Promise.all([probeReadiness(db, { timeoutMs: 300, carried, draining: false }), probeReadiness(db, { timeoutMs: 300, carried, draining: false })]);
    const ms = Date.now() - t0;
    expect(facts).toEqual([
      { database: "unreachable", pendingMigrations: null, draining: false },
      { database: "unreachable", pendingMigrations: null, draining: false },
    ]);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(5000); // at the bound, not at a connection timeout (10 s)
    // The connection itself opens asynchronously: on a busy machine it can arrive after the bound.
    await vi.waitFor(() => expect(accepted).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 20 });
    // asked again while the first query still hangs: it joins that query (a pool of two would
    // otherwise open a second connection for it)
    expect((await probeReadiness(db, { timeoutMs: 200, carried, draining: false })).database).toBe("unreachable");
    expect(accepted).toBe(1);
    const answer = readinessAnswer(facts[0]);
    expect(answer).toEqual({ status: 503, body: { status: "not_ready", reasons: ["database_unreachable"] }, headers: { "Cache-Control": "no-store", "Retry-After": "5" } });
    void db.$disconnect().catch(() => {});
  });

  it("a PostgreSQL server that refuses the connection: unreachable at once", async () => {
    const db = createPrisma("postgresql://postgres@127.0.0.1:1/plandesk_refused", { poolMax: 1 });
    const t0 = Date.now();
    expect((await probeReadiness(db, { timeoutMs: 10_000, carried, draining: false })).database).toBe("unreachable");
    expect(Date.now() - t0).toBeLessThan(5000); // at once, not at the bound
    await db.$disconnect().catch(() => {});
  });

  it("a SQLite file that cannot be opened: unreachable at once", async () => {
    const missing = "/nonexistent-plandesk-dir/readiness.db";
    expect(fs.existsSync(missing)).toBe(false);
    const db = createPrisma(`file:${missing}`);
    expect((await probeReadiness(db, { timeoutMs: 2000, carried, draining: true }))).toEqual({ database: "unreachable", pendingMigrations: null, draining: true });
    await db.$disconnect().catch(() => {});
  });

  it("a database without the migration table: every migration pending", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-ready-"));
    const db = createPrisma(`file:${path.join(dir, "empty.db")}`);
    try {
      expect(await probeReadiness(db, { timeoutMs: 2000, carried, draining: false })).toEqual({ database: "ok", pendingMigrations: carried, draining: false });
    } finally {
      await db.$disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
