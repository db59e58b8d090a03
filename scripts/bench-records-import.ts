/**
 * `npm run bench:import -- [--db sqlite|postgresql] [--n 200000]`: the records door's throughput.
 * Makes a throw-away database (a temp SQLite file, or `plandesk_bench_records_<random>` on the
 * PostgreSQL at PLANDESK_TEST_PG_SERVER or 127.0.0.1:5432, dropped at the end), then sends n/20
 * accounts and n invoices (each with a fee) through the batch route handler
 * (app/api/v1/records/batch/route.ts) in ONE in-process Request whose body is a stream generated
 * as it is read — the handler's own streaming, chunking and SQL, no HTTP socket or server. Then
 * the same stream again (every version already stored: the replay path). Reports records/s and
 * the process's peak RSS, and writes them to bench/results/records-import.json (by database).
 * Then decisions while an import runs: an agent's plan submission (a refund against one of the
 * imported invoices, through the submit route handler: snapshot, validation, gate, the writes) is
 * timed one at a time while nothing else runs (idle), then while the same stream is imported again
 * at source version 2 (every record applied), in the same process as a single instance would be;
 * reports p50/p99 of both and their ratio (the goal: p99 during an import within 2× of idle).
 * Run it under the server's heap cap to see the memory a server would use:
 * `NODE_OPTIONS=--max-old-space-size=256 npm run bench:import -- --db sqlite` (lib/net/server-heap.mjs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import pg from "pg";
import { liftRateLimits } from "../testing/unlimited-rates";

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : def;
};
const dbKind = arg("--db", "sqlite") === "postgresql" ? "postgresql" : "sqlite";
const N = Number(arg("--n", "200000")) || 200_000;
const ACCOUNTS = Math.max(1, Math.floor(N / 20));
const KEY = "pd_bench_records_key";
const RESULTS = path.resolve(__dirname, "../bench/results/records-import.json");

const suffix = Math.random().toString(36).slice(2, 10);
const pgServer = process.env.PLANDESK_TEST_PG_SERVER ?? "postgresql://postgres@127.0.0.1:5432";
const pgName = `plandesk_bench_records_${suffix}`;
const sqliteFile = path.join(os.tmpdir(), `plandesk-bench-records-${suffix}.db`);
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

/** The NDJSON of the benchmark, generated as the reader pulls it (1,000 lines per chunk). */
function recordStream(version = 1): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  const total = ACCOUNTS + N;
  return new ReadableStream({
    pull(c) {
      if (i >= total) return c.close();
      let s = "";
      for (let k = 0; k < 1000 && i < total; k++, i++) {
        if (i < ACCOUNTS) s += JSON.stringify({ kind: "account", id: `acc_b${i}`, name: `Bench account ${i}`, tags: ["good_standing"], sourceVersion: version, sourceUpdatedAt: "2026-03-01T10:00:00Z" });
        else {
          const n = i - ACCOUNTS;
          s += JSON.stringify({
            kind: "invoice",
            id: `in_b${n}`,
            accountId: `acc_b${n % ACCOUNTS}`,
            status: "open",
            currency: "USD",
            totalMinor: 100_000 + n,
            openMinor: 50_000,
            fees: [{ code: "LATE_FEE", amount: { minor: 2_500, currency: "USD" } }],
            dueDate: "2026-04-30",
            sourceVersion: version,
            sourceUpdatedAt: "2026-03-01T10:00:00Z",
          });
        }
        s += "\n";
      }
      c.enqueue(enc.encode(s));
    },
  });
}

async function main() {
  if (dbKind === "postgresql") await onPgServer(`CREATE DATABASE "${pgName}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
  const { deploy } = await import("./migrate");
  await deploy(process.env.DATABASE_URL);
  const { prisma } = await import("../lib/server/db/db");
  const { hashApiKey } = await import("../lib/server/auth/api-keys");
  const { POST } = await import("../app/api/v1/records/batch/route");
  await prisma.desk.upsert({ where: { id: "freight" }, create: { id: "freight", name: "Freight" }, update: {} });
  await prisma.integrationKey.create({ data: { id: "ik_bench", name: "Bench ERP", hash: hashApiKey(KEY), prefix: KEY.slice(0, 8), desk: "freight" } });

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const pass = async (version = 1) => {
    const t = performance.now();
    const req = new Request("http://bench.local/api/v1/records/batch", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-ndjson" },
      body: recordStream(version),
      duplex: "half",
    } as RequestInit);
    const res = await POST(req);
    const body = (await res.json()) as { lines: number; applied: number; ignored: number; errors: unknown[]; moreErrors: number };
    const secs = (performance.now() - t) / 1000;
    if (res.status !== 200 || body.errors.length > 0) throw new Error(`the batch failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
    return { seconds: Math.round(secs * 100) / 100, recordsPerSecond: Math.round(body.lines / secs), lines: body.lines, applied: body.applied, ignored: body.ignored };
  };
  const first = await pass();
  const replay = await pass();

  // Decisions: an agent submitting a refund plan on a ticket of acc_b0, against its imported invoices.
  const { openTask } = await import("../lib/server/tasks/open-task");
  const { POST: SUBMIT } = await import("../app/api/v1/tasks/[taskId]/runs/route");
  const AGENT_KEY = "pd_bench_records_agent";
  await prisma.agent.create({ data: { id: "agent_bench", name: "Bench agent", desk: "freight", allowedTools: ["issue_refund", "add_ticket_note"] } });
  await prisma.apiKey.create({ data: { id: "key_bench", agentId: "agent_bench", hash: hashApiKey(AGENT_KEY), prefix: AGENT_KEY.slice(0, 8) } });
  const { task } = await openTask(
    { ticketId: "B-1", accountId: "acc_b0", subject: "Refund the late fee", parts: [{ source: "customer_message", text: "Please refund the late fee." }] },
    { kind: "integration", id: "ik_bench" },
    { desk: "freight" },
  );
  let k = 0;
  const decide = async (): Promise<number> => {
    const invoice = `in_b${(k++ % Math.floor(N / ACCOUNTS)) * ACCOUNTS}`; // invoices of acc_b0
    const t = performance.now();
    const res = await SUBMIT(
      new Request(`http://bench.local/api/v1/tasks/${task.id}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ taskRevision: task.revision, steps: [{ id: "s1", tool: "issue_refund", args: { invoiceId: invoice, amount: { minor: 2_500, currency: "USD" }, reason: "Late fee waived as agreed" } }] }),
      }),
      { params: Promise.resolve({ taskId: task.id }) },
    );
    const ms = performance.now() - t;
    if (res.status !== 201) throw new Error(`a decision failed: ${res.status} ${(await res.text()).slice(0, 400)}`);
    return ms;
  };
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
  const summary = (xs: number[]) => ({ n: xs.length, p50Ms: Math.round(pct(xs, 50) * 10) / 10, p99Ms: Math.round(pct(xs, 99) * 10) / 10 });
  for (let w = 0; w < 10; w++) await decide(); // warm-up
  const idle: number[] = [];
  for (let i = 0; i < 150; i++) idle.push(await decide());
  const during: number[] = [];
  let importing = true;
  const importDuring = pass(2).finally(() => (importing = false));
  while (importing && during.length < 2000) during.push(await decide());
  const secondImport = await importDuring;
  const decisions = { idle: summary(idle), duringImport: summary(during), p99Ratio: Math.round((pct(during, 99) / pct(idle, 99)) * 100) / 100, importDuringDecisions: secondImport };
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const invoices = await prisma.invoice.count();
  await prisma.$disconnect();

  const result = {
    database: dbKind,
    at: new Date().toISOString(),
    accounts: ACCOUNTS,
    invoices,
    how: "one in-process Request with a streamed NDJSON body through the batch route handler (no HTTP socket); transactions of 250 records (BATCH_CHUNK), the event loop yielded between two",
    import: first,
    replay,
    decisions,
    peakRssMB: Math.round(peakRss / 1024 / 1024),
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    heapLimitMB: Math.round(v8.getHeapStatistics().heap_size_limit / 1024 / 1024),
    cpus: os.cpus().length,
    load: fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0],
  };
  const all = fs.existsSync(RESULTS) ? (JSON.parse(fs.readFileSync(RESULTS, "utf8")) as Record<string, unknown>) : {};
  all[dbKind] = result;
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, JSON.stringify(all, null, 2) + "\n");
  console.log(JSON.stringify(result));
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
