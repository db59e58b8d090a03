/**
 * `npm run bench:declared -- [--db sqlite|postgresql] [--n 200000] [--rounds 200]`: do decisions on
 * a declared record kind cost more than on a built-in one? Makes a throw-away database (a temp SQLite
 * file, or `plandesk_bench_declared_<random>` on the PostgreSQL at PLANDESK_TEST_PG_SERVER or
 * 127.0.0.1:5432, dropped at the end), declares the freight desk's `order` kind
 * (testing/fixtures/order-kind.ts) and imports `refund_order` bound to it
 * (testing/fixtures/bound-tools.ts), then sends n/20 accounts, n invoices and n orders through the
 * batch route handler (app/api/v1/records/batch/route.ts; one streamed NDJSON body per kind, as
 * scripts/bench-records-import.ts does). Then an agent submits refund plans on one task through the
 * submit route handler (snapshot, validation, gate, the writes) — `issue_refund` on invoices and
 * `refund_order` on orders of the same account, interleaved round by round so that both meet the
 * same machine: plans of 1 step and of 10 steps (10 records). Reports p50/p99 per kind and shape and
 * the ratio declared / built-in, and writes them to bench/results/declared-kinds.json (by database).
 * On PostgreSQL the tables are ANALYZEd after the invoices and after each eighth of the orders (as
 * autovacuum would; the test server runs without it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { REFUND_ORDER_BINDINGS, REFUND_ORDER_TOOL } from "../testing/fixtures/bound-tools";
import { ORDER_ROLES, ORDER_SCHEMA } from "../testing/fixtures/order-kind";
import { liftRateLimits } from "../testing/unlimited-rates";

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : def;
};
const dbKind = arg("--db", "sqlite") === "postgresql" ? "postgresql" : "sqlite";
const N = Number(arg("--n", "200000")) || 200_000;
const ROUNDS = Number(arg("--rounds", "200")) || 200;
const ACCOUNTS = Math.max(1, Math.floor(N / 20));
const PER_ACCOUNT = Math.floor(N / ACCOUNTS);
const KEY = "pd_bench_declared_key";
const AGENT_KEY = "pd_bench_declared_agent";
const RESULTS = path.resolve(__dirname, "../bench/results/declared-kinds.json");

const suffix = Math.random().toString(36).slice(2, 10);
const pgServer = process.env.PLANDESK_TEST_PG_SERVER ?? "postgresql://postgres@127.0.0.1:5432";
const pgName = `plandesk_bench_declared_${suffix}`;
const sqliteFile = path.join(os.tmpdir(), `plandesk-bench-declared-${suffix}.db`);
process.env.DATABASE_URL = dbKind === "postgresql" ? `${pgServer}/${pgName}` : `file:${sqliteFile}`;
liftRateLimits(); // the decisions are a deliberate flood from one agent key

async function onPgServer(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `${pgServer}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const AT = "2026-03-01T10:00:00Z";
/** One NDJSON line of record `n` of `kind` (`acc_b<n>`, `in_b<n>`, `ord_b<n>`; record n belongs to account n mod ACCOUNTS). */
function line(kind: "account" | "invoice" | "order", n: number): string {
  const accountId = `acc_b${n % ACCOUNTS}`;
  if (kind === "account") return JSON.stringify({ kind, id: `acc_b${n}`, name: `Bench account ${n}`, sourceVersion: 1, sourceUpdatedAt: AT });
  if (kind === "invoice") {
    return JSON.stringify({ kind, id: `in_b${n}`, accountId, status: "open", currency: "USD", totalMinor: 100_000 + n, openMinor: 50_000, fees: [], dueDate: "2026-04-30", sourceVersion: 1, sourceUpdatedAt: AT });
  }
  return JSON.stringify({ kind, id: `ord_b${n}`, customerId: accountId, refundableMinor: 50_000, currency: "USD", status: "open", shipFrom: "2026-04-01", shipTo: "2026-04-03", number: `O-${n}`, sourceVersion: 1, sourceUpdatedAt: AT });
}

/** Records `from` … `from + count - 1` of `kind` as an NDJSON stream, generated as the reader pulls it (1,000 lines per chunk). */
function recordStream(kind: "account" | "invoice" | "order", count: number, from = 0): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = from;
  const end = from + count;
  return new ReadableStream({
    pull(c) {
      if (i >= end) return c.close();
      let s = "";
      for (let k = 0; k < 1000 && i < end; k++, i++) s += line(kind, i) + "\n";
      c.enqueue(enc.encode(s));
    },
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const round1 = (x: number) => Math.round(x * 10) / 10;
const summary = (xs: number[]) => ({ n: xs.length, p50Ms: round1(pct(xs, 50)), p99Ms: round1(pct(xs, 99)), meanMs: round1(xs.reduce((a, b) => a + b, 0) / xs.length) });

async function main() {
  if (dbKind === "postgresql") await onPgServer(`CREATE DATABASE "${pgName}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
  const { deploy } = await import("./migrate");
  await deploy(process.env.DATABASE_URL);
  const { prisma } = await import("../lib/server/db/db");
  const { hashApiKey } = await import("../lib/server/auth/api-keys");
  const { POST: BATCH } = await import("../app/api/v1/records/batch/route");
  const { saveRecordKind } = await import("../lib/server/records/record-kinds-admin");
  const { importMcpTools } = await import("../lib/server/tools/imported-tools");
  const { openTask } = await import("../lib/server/tasks/open-task");
  const { POST: SUBMIT } = await import("../app/api/v1/tasks/[taskId]/runs/route");

  await prisma.desk.upsert({ where: { id: "freight" }, create: { id: "freight", name: "Freight" }, update: {} });
  await prisma.user.create({ data: { id: "usr_bench_admin", name: "Bench admin", email: "bench-admin@example.com", role: "admin" } });
  const admin = { id: "usr_bench_admin", role: "admin" as const };
  await saveRecordKind(admin, "freight", "order", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "bench: the shop's orders" });
  await importMcpTools([REFUND_ORDER_TOOL], "bench shop", { kind: "user", id: admin.id }, { desk: "freight", bindings: { refund_order: REFUND_ORDER_BINDINGS } });
  await prisma.integrationKey.create({ data: { id: "ik_bench", name: "Bench ERP", hash: hashApiKey(KEY), prefix: KEY.slice(0, 8), desk: "freight" } });

  const pass = async (kind: "account" | "invoice" | "order", count: number, from = 0) => {
    const t = performance.now();
    const req = new Request("http://bench.local/api/v1/records/batch", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-ndjson" },
      body: recordStream(kind, count, from),
      duplex: "half",
    } as RequestInit);
    const res = await BATCH(req);
    const body = (await res.json()) as { lines: number; applied: number; errors: unknown[] };
    const secs = (performance.now() - t) / 1000;
    if (res.status !== 200 || body.errors.length > 0 || body.applied !== count) throw new Error(`the ${kind} batch failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
    return { records: body.applied, seconds: Math.round(secs * 100) / 100, recordsPerSecond: Math.round(body.lines / secs) };
  };
  // PostgreSQL: the planner's statistics of a table, as autovacuum's ANALYZE keeps them (this test
  // server runs with autovacuum off). Without them desk_record's estimates stay those of an empty
  // table, and a read by (desk, kind, id IN …) scans the whole kind through the primary key's first
  // two columns (see bench/README.md, `npm run bench:declared`); the orders are therefore imported in slices with an
  // ANALYZE between two, as autovacuum would do once a tenth of a table is new.
  const analyze = async () => {
    if (dbKind === "postgresql") await prisma.$executeRawUnsafe("ANALYZE");
  };
  const accounts = await pass("account", ACCOUNTS);
  const invoices = await pass("invoice", N);
  await analyze();
  const slices = dbKind === "postgresql" ? 8 : 1;
  const orderSlices = [];
  for (let sl = 0; sl < slices; sl++) {
    const from = Math.floor((N * sl) / slices);
    orderSlices.push(await pass("order", Math.floor((N * (sl + 1)) / slices) - from, from));
    await analyze();
  }
  const orderSeconds = orderSlices.reduce((a, b) => a + b.seconds, 0);
  const imported = { accounts, invoices, orders: { records: N, seconds: Math.round(orderSeconds * 100) / 100, recordsPerSecond: Math.round(N / orderSeconds), slices } };

  await prisma.agent.create({ data: { id: "agent_bench", name: "Bench agent", desk: "freight", allowedTools: ["issue_refund", "refund_order", "add_ticket_note"] } });
  await prisma.apiKey.create({ data: { id: "key_bench", agentId: "agent_bench", hash: hashApiKey(AGENT_KEY), prefix: AGENT_KEY.slice(0, 8) } });
  const { task } = await openTask(
    { ticketId: "B-1", accountId: "acc_b0", subject: "Refund the broken goods", parts: [{ source: "customer_message", text: "Please refund the broken goods." }] },
    { kind: "integration", id: "ik_bench" },
    { desk: "freight" },
  );

  // record j of acc_b0 is n = j * ACCOUNTS; each plan names `size` records of it, starting at a moving offset
  let k = 0;
  const stepsOf = (kind: "builtin" | "declared", size: number) =>
    Array.from({ length: size }, (_, s) => {
      const n = ((k + s) % PER_ACCOUNT) * ACCOUNTS;
      return kind === "builtin"
        ? { id: `s${s}`, tool: "issue_refund", args: { invoiceId: `in_b${n}`, amount: { minor: 2_500, currency: "USD" }, reason: "Damaged goods" } }
        : { id: `s${s}`, tool: "refund_order", args: { orderId: `ord_b${n}`, amount: { minor: 2_500, currency: "USD" }, reason: "Damaged goods" } };
    });
  const decide = async (kind: "builtin" | "declared", size: number): Promise<number> => {
    const steps = stepsOf(kind, size);
    const t = performance.now();
    const res = await SUBMIT(
      new Request(`http://bench.local/api/v1/tasks/${task.id}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ taskRevision: task.revision, steps }),
      }),
      { params: Promise.resolve({ taskId: task.id }) },
    );
    const ms = performance.now() - t;
    if (res.status !== 201) throw new Error(`a ${kind} decision failed: ${res.status} ${(await res.text()).slice(0, 600)}`);
    return ms;
  };

  const shapes: Record<string, { builtin: number[]; declared: number[] }> = {};
  for (const size of [1, 10]) {
    for (let w = 0; w < 10; w++) {
      await decide("builtin", size);
      await decide("declared", size);
    }
    const times = { builtin: [] as number[], declared: [] as number[] };
    for (let r = 0; r < ROUNDS; r++, k++) {
      // alternate which kind goes first, so neither always meets a warm cache the other left
      const order: ("builtin" | "declared")[] = r % 2 === 0 ? ["builtin", "declared"] : ["declared", "builtin"];
      for (const kind of order) times[kind].push(await decide(kind, size));
    }
    shapes[`${size} step${size > 1 ? "s" : ""}`] = times;
  }
  const decisions = Object.fromEntries(
    Object.entries(shapes).map(([shape, t]) => [
      shape,
      { builtin: summary(t.builtin), declared: summary(t.declared), p50Ratio: Math.round((pct(t.declared, 50) / pct(t.builtin, 50)) * 100) / 100, p99Ratio: Math.round((pct(t.declared, 99) / pct(t.builtin, 99)) * 100) / 100 },
    ]),
  );
  const counts = { invoices: await prisma.invoice.count(), orders: await prisma.deskRecord.count({ where: { desk: "freight", kind: "order" } }) };
  await prisma.$disconnect();

  const result = {
    database: dbKind,
    at: new Date().toISOString(),
    accounts: ACCOUNTS,
    ...counts,
    how: "in process, through the batch and submit route handlers (no HTTP socket); the agent submits refund plans on one task of acc_b0, issue_refund on its invoices and refund_order on its orders, interleaved round by round",
    imported,
    decisions,
    cpus: os.cpus().length,
    load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
  const all = fs.existsSync(RESULTS) ? (JSON.parse(fs.readFileSync(RESULTS, "utf8")) as Record<string, unknown>) : {};
  all[dbKind] = result;
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, JSON.stringify(all, null, 2) + "\n");
  console.log(JSON.stringify(result, null, 2));
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(async () => {
    if (dbKind === "postgresql") await onPgServer(`DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`).catch(() => {});
    else for (const s of ["", "-wal", "-shm"]) fs.rmSync(sqliteFile + s, { force: true });
  });
