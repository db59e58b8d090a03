/**
 * `npm run bench:import -- [--db sqlite|postgresql] [--n 200000]`: the records door's throughput.
 * Makes a throw-away database (a temp SQLite file, or `plandesk_bench_records_<random>` on the
 * PostgreSQL at PLANDESK_TEST_PG_SERVER or 127.0.0.1:5432, dropped at the end), then sends n/20
 * accounts and n invoices (each with a fee) through the batch route handler
 * (app/api/v1/records/batch/route.ts) in ONE in-process Request whose body is a stream generated
 * as it is read — the handler's own streaming, chunking and SQL, no HTTP socket or server. Then
 * the same stream again (every version already stored: the replay path). Reports records/s and
 * the process's peak RSS, and writes them to bench/results/records-import.json (by database).
 * Run it under the server's heap cap to see the memory a server would use:
 * `NODE_OPTIONS=--max-old-space-size=256 npm run bench:import -- --db sqlite` (lib/net/server-heap.mjs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import pg from "pg";

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
function recordStream(): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  const total = ACCOUNTS + N;
  return new ReadableStream({
    pull(c) {
      if (i >= total) return c.close();
      let s = "";
      for (let k = 0; k < 1000 && i < total; k++, i++) {
        if (i < ACCOUNTS) s += JSON.stringify({ kind: "account", id: `acc_b${i}`, name: `Bench account ${i}`, tags: ["good_standing"], sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" });
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
            sourceVersion: 1,
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
  const pass = async () => {
    const t = performance.now();
    const req = new Request("http://bench.local/api/v1/records/batch", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-ndjson" },
      body: recordStream(),
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
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const invoices = await prisma.invoice.count();
  await prisma.$disconnect();

  const result = {
    database: dbKind,
    at: new Date().toISOString(),
    accounts: ACCOUNTS,
    invoices,
    how: "one in-process Request with a streamed NDJSON body through the batch route handler (no HTTP socket); chunks of 1,000 records per transaction",
    import: first,
    replay,
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
