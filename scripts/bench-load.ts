/**
 * `npm run bench:load`: load benchmark of the production build.
 *
 *   npm run bench:load                        # SQLite, demo desk, one instance
 *   npm run bench:load -- --scale             # SQLite, demo desk + the scale desk (db:seed --scale)
 *   npm run bench:load -- --db postgres       # the same on PostgreSQL (PLANDESK_BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432)
 *   npm run bench:load -- --instances 2       # two server processes (scripts/server.mjs, what `npm start` serves) on one database, load split round-robin
 *   options: --duration <s> (per measurement, default 6), --connections 8,64, --seed <n>, --rebuild (re-seed the template),
 *            --node-options "<flags>" (the servers' NODE_OPTIONS),
 *            --claims <n> (claimable steps to prepare, default 3000), --reviews <n> (runs to edit and approve, default 1200)
 *
 * Builds nothing (run `npx next build` first). For each configuration it copies a seeded template
 * database (made once by `db:migrate` + `db:seed [--scale]`; rebuilt when older than 6 hours) into a
 * fresh one, prepares fixtures through the service functions (runs whose steps are approved and
 * claimable, runs waiting for an edit and an approval), starts scripts/server.mjs (what `npm start` serves) on free loopback ports
 * with PLANDESK_BENCH=1, and measures with autocannon, side by side at each connection count:
 * a bare route handler (app/api/bench/bare), claim, approve, edit, GET run and the queue —
 * requests/s, p50/p90/p99 latency (ms, every response timed), non-2xx answers — plus the servers'
 * RSS (VmRSS of the process tree, sampled every 250 ms). Each measurement is bounded by
 * `--duration` and, for writes, by the targets prepared (a write never repeats a target).
 * Results: bench/results/load.json (one entry per configuration, replaced on rerun) and the table
 * bench/results/load.md (with bench/results/load-notes.md appended when present).
 * Load stays on 127.0.0.1.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import type { LoadMeasurement } from "./bench-load-support";
import { freePort, signInCookieAt, startAppInstance, type AppInstance } from "../testing/app-instances";
import { UNLIMITED_RATES } from "../testing/unlimited-rates";
import { serverNodeArgs } from "../lib/net/server-heap.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);

// ── options ───────────────────────────────────────────────────────────────────

function argOf(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[i + 1] : "";
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return undefined;
}
const scaleArg = argOf("scale");
const scaleFactor = scaleArg === undefined ? 0 : scaleArg === "" ? 1 : Number(scaleArg);
const dbKind = (argOf("db") ?? "sqlite") as "sqlite" | "postgres";
const instances = Math.max(1, Number(argOf("instances") ?? 1));
const duration = Math.max(2, Number(argOf("duration") ?? 6));
const connectionLevels = (argOf("connections") ?? "8,64").split(",").map(Number).filter((n) => n > 0);
const seed = Number(argOf("seed") ?? 11);
const rebuild = argOf("rebuild") !== undefined;
const nodeOptions = argOf("node-options");
if (!["sqlite", "postgres"].includes(dbKind)) throw new Error("--db is sqlite or postgres");
if (!Number.isFinite(scaleFactor) || scaleFactor < 0) throw new Error("--scale takes a positive factor");
const size = scaleFactor === 0 ? "demo" : scaleFactor === 1 ? "scale" : `scale-${scaleFactor}`;
const configKey = `${dbKind}/${size}/${instances}x`;
const resultsDir = path.join(root, "bench", "results");
const workDir = path.join(root, "data", "bench");
fs.mkdirSync(workDir, { recursive: true });
fs.mkdirSync(resultsDir, { recursive: true });
const log = (...a: unknown[]) => console.log(`[bench:load ${((performance.now() / 1000) | 0).toString().padStart(4)}s]`, ...a);

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.error("bench:load needs a production build: run `npx next build` first.");
  process.exit(1);
}

// ── the database: a fresh copy of a seeded template ───────────────────────────

const TEMPLATE_MAX_AGE_MS = 6 * 3_600_000;
const pgBase = (process.env.PLANDESK_BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432").replace(/\/+$/, "").replace(/\/[^/:@]*$/, (m) => (m.includes("@") ? m : ""));
const pgUrl = (db: string) => `${pgBase}/${db}`;
const templateName = `template-${size}-seed${seed}`;
const metaFile = path.join(workDir, `${dbKind}-${templateName}.json`);

function runScript(args: string[], env: Record<string, string>) {
  const r = spawnSync("npx", ["tsx", ...args], { stdio: "inherit", env: { ...process.env, ...env, PLANDESK_DEMO: "1" } });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (exit ${r.status ?? r.signal})`);
}

async function pgQuery(db: string, sql: string) {
  const { Client } = await import("pg");
  const c = new Client({ connectionString: pgUrl(db) });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Makes (or reuses) the seeded template and returns the URL of a fresh copy to benchmark on. */
async function freshDatabase(): Promise<string> {
  const meta = fs.existsSync(metaFile) ? (JSON.parse(fs.readFileSync(metaFile, "utf8")) as { createdAt: string }) : null;
  const stale = !meta || Date.now() - new Date(meta.createdAt).getTime() > TEMPLATE_MAX_AGE_MS || rebuild;
  const seedArgs = ["scripts/seed.ts", ...(scaleFactor ? [`--scale=${scaleFactor}`, "--seed", String(seed)] : [])];
  if (dbKind === "sqlite") {
    const tpl = path.join(workDir, `${templateName}.db`);
    if (stale || !fs.existsSync(tpl)) {
      for (const s of ["", "-wal", "-shm"]) fs.rmSync(tpl + s, { force: true });
      const t = performance.now();
      log(`seeding the ${size} template ${path.relative(root, tpl)}…`);
      runScript(["scripts/migrate.ts", "deploy"], { DATABASE_URL: `file:${tpl}` });
      runScript(seedArgs, { DATABASE_URL: `file:${tpl}` });
      const Database = (await import("better-sqlite3")).default;
      const db = new Database(tpl);
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
      fs.writeFileSync(metaFile, JSON.stringify({ createdAt: new Date().toISOString(), seedSeconds: Math.round((performance.now() - t) / 1000) }));
    }
    const file = path.join(workDir, `run-${size}.db`);
    for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
    fs.copyFileSync(tpl, file);
    return `file:${file}`;
  }
  const tpl = `plandesk_bench_${size.replace(/\W/g, "_")}_tpl`;
  const exists = (await pgQuery("postgres", `SELECT 1 FROM pg_database WHERE datname = '${tpl}'`)).rowCount! > 0;
  if (stale || !exists) {
    const t = performance.now();
    log(`seeding the ${size} template database ${tpl}…`);
    await pgQuery("postgres", `DROP DATABASE IF EXISTS ${tpl} WITH (FORCE)`);
    await pgQuery("postgres", `CREATE DATABASE ${tpl}`);
    runScript(["scripts/migrate.ts", "deploy"], { DATABASE_URL: pgUrl(tpl) });
    runScript(seedArgs, { DATABASE_URL: pgUrl(tpl) });
    fs.writeFileSync(metaFile, JSON.stringify({ createdAt: new Date().toISOString(), seedSeconds: Math.round((performance.now() - t) / 1000) }));
  }
  const run = "plandesk_bench_run";
  await pgQuery("postgres", `DROP DATABASE IF EXISTS ${run} WITH (FORCE)`);
  await pgQuery("postgres", `CREATE DATABASE ${run} TEMPLATE ${tpl}`);
  return pgUrl(run);
}

// ── fixtures, through the service functions ───────────────────────────────────

interface Fixtures {
  claims: { runId: string; stepId: string; digest: string; taskRevision: number }[];
  reviewRuns: { runId: string; ticketId: string }[];
  getRunIds: string[];
}

/** Prepares `claimSteps` approved, independent steps to claim and `reviewRuns` runs waiting for an edit and an approval. */
async function prepareFixtures(url: string, claimSteps: number, reviewRuns: number): Promise<Fixtures> {
  process.env.DATABASE_URL = url;
  process.env.PLANDESK_DEMO = "1";
  const { prisma } = await import("../lib/server/db/db");
  const { submitRun } = await import("../lib/server/runs/submit-run");
  const { approveSteps } = await import("../lib/server/approvals/approve-steps");
  const { loadViewer } = await import("../lib/server/auth/session");
  const { DEMO_AGENT_ID } = await import("../lib/server/demo/seed");
  const { DEMO_AGENT_TOOLS } = await import("../lib/demo/desk-data");
  const { digest } = await import("../lib/plan/digest");
  const agent = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS] as string[], keyId: "key_demo" };
  const supervisor = (await loadViewer("usr_supervisor"))!;
  const tasks = await prisma.task.findMany({ where: { id: { in: ["task_74991", "task_74992", "task_74994", "task_74995", "task_74996", "task_74997", "task_74998", "task_74999", "task_75000", "task_75001"] } } });
  const out: Fixtures = { claims: [], reviewRuns: [], getRunIds: [] };
  const t = performance.now();
  const STEPS = 20;
  for (let r = 0; out.claims.length < claimSteps; r++) {
    const task = tasks[r % tasks.length];
    const steps = Array.from({ length: STEPS }, (_, k) => ({
      id: `st_${k + 1}`,
      tool: "send_reply",
      args: { ticketId: task.ticketId, body: `Update ${k + 1} on your ticket: we are working on it.` },
      rationale: "Keep the customer informed.",
      dependsOn: [],
    }));
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, null);
    await approveSteps(supervisor, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `bench-approve-${run.id}` });
    for (const s of run.steps) out.claims.push({ runId: run.id, stepId: s.id, digest: digest(s), taskRevision: task.revision });
  }
  log(`prepared ${out.claims.length} claimable steps in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const t2 = performance.now();
  for (let r = 0; r < reviewRuns; r++) {
    const task = tasks[r % tasks.length];
    const steps = [
      { id: "st_note", tool: "add_ticket_note", args: { ticketId: task.ticketId, note: "Customer called about this ticket." } },
      { id: "st_reply", tool: "send_reply", args: { ticketId: task.ticketId, body: "We are looking into it and will reply today." }, rationale: "Acknowledge the customer." },
    ];
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, null);
    out.reviewRuns.push({ runId: run.id, ticketId: task.ticketId });
  }
  log(`prepared ${out.reviewRuns.length} runs waiting for review in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
  out.getRunIds = out.reviewRuns.slice(0, 200).map((r) => r.runId);
  await prisma.$disconnect();
  return out;
}

// ── servers ───────────────────────────────────────────────────────────────────

type Server = AppInstance;

/**
 * Starts an instance on `port` as production serves it (scripts/server.mjs, what `npm start` runs: one
 * process) with PLANDESK_BENCH=1 (the bare route); every instance gets the same public origin.
 * `--node-options "<flags>"` replaces the server's NODE_OPTIONS (e.g. another heap cap).
 */
const startServer = (url: string, port: number, publicOrigin: string): Promise<Server> =>
  startAppInstance({ databaseUrl: url, port, publicOrigin, command: "server", readyPath: "/api/bench/bare", env: { ...UNLIMITED_RATES, PLANDESK_BENCH: "1", ...(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}) } });

/** VmRSS (bytes) of `pid` and its descendants, from /proc: their sum and the largest single process (one process for scripts/server.mjs). */
function treeRss(pid: number): { sum: number; max: number } {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)!).push(Number(d));
    } catch {
      /* gone */
    }
  }
  let total = 0;
  let max = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
      if (m) {
        total += Number(m[1]) * 1024;
        max = Math.max(max, Number(m[1]) * 1024);
      }
    } catch {
      /* gone */
    }
    stack.push(...(children.get(p) ?? []));
  }
  return { sum: total, max };
}

// ── measurements ──────────────────────────────────────────────────────────────

/** A measurement as the report reads it, with the largest single process always measured. */
type Measurement = LoadMeasurement & { rssPeakProcessMB: number };

type Req = { method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string };

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

/**
 * Sends `next()` requests over `connections` connections split across `servers` (round-robin),
 * for `seconds` or until `limit` requests were sent. Every response is timed.
 */
async function measure(name: string, servers: Server[], connections: number, next: () => Req | null, limit: number | null): Promise<Measurement> {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let peak = 0;
  let peakProcess = 0;
  const sampler = setInterval(() => {
    const rss = servers.map((x) => treeRss(x.proc.pid!));
    peak = Math.max(peak, rss.reduce((s, r) => s + r.sum, 0));
    peakProcess = Math.max(peakProcess, ...rss.map((r) => r.max));
  }, 250);
  const started = performance.now();
  const per = servers.map((_, k) => Math.floor(connections / servers.length) + (k < connections % servers.length ? 1 : 0));
  let exhausted = false;
  let issued = 0; // requests built from `next()`; once it runs dry, filler requests are not recorded
  const runs = servers.map(
    (server, k) =>
      new Promise<void>((resolve, reject) => {
        const inst = autocannon(
          {
            url: server.origin,
            connections: per[k],
            ...(limit === null ? { duration } : { amount: Math.ceil(limit / servers.length) + per[k] }),
            requests: [
              {
                setupRequest: (req: Record<string, unknown>) => {
                  const r = next();
                  if (!r) {
                    exhausted = true;
                    return { ...req, method: "GET", path: "/api/bench/bare", headers: {}, body: undefined };
                  }
                  issued++;
                  return { ...req, method: r.method, path: r.path, headers: { accept: "application/json", ...(r.body ? { "content-type": "application/json" } : {}), ...r.headers }, body: r.body };
                },
              },
            ],
          },
          (err: Error | null) => (err ? reject(err) : resolve()),
        );
        inst.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
          if (exhausted && times.length >= issued) return;
          times.push(responseTime);
          statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
        });
        inst.on("reqError", () => errors++);
        const stopAt = setTimeout(() => inst.stop(), duration * 1000 + 100);
        const poll = setInterval(() => {
          if (exhausted) inst.stop();
        }, 50);
        inst.on("done", () => {
          clearTimeout(stopAt);
          clearInterval(poll);
        });
      }),
  );
  await Promise.all(runs);
  clearInterval(sampler);
  const secs = (performance.now() - started) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const non2xx = Object.entries(statuses)
    .filter(([s]) => !s.startsWith("2"))
    .reduce((n, [, c]) => n + c, 0);
  const m: Measurement = {
    name,
    connections,
    requests: times.length,
    seconds: Number(secs.toFixed(2)),
    rps: Math.round(times.length / secs),
    p50: Math.round(pct(sorted, 50) * 10) / 10,
    p90: Math.round(pct(sorted, 90) * 10) / 10,
    p99: Math.round(pct(sorted, 99) * 10) / 10,
    max: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
    non2xx,
    errors,
    statuses,
    rssPeakMB: Math.round(peak / 1048576),
    rssPeakProcessMB: Math.round(peakProcess / 1048576),
  };
  log(
    `${name.padEnd(8)} c=${String(connections).padStart(3)}  ${String(m.rps).padStart(5)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  n=${m.requests}${non2xx ? `  non-2xx ${JSON.stringify(statuses)}` : ""}  RSS ${m.rssPeakMB} MB (largest process ${m.rssPeakProcessMB} MB)`,
  );
  return m;
}

const signIn = signInCookieAt;

// ── main ──────────────────────────────────────────────────────────────────────

/** The 1-minute load average (/proc/loadavg): other work on the machine competes with the benchmark. */
const loadAverage = () => Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

async function main() {
  const t0 = performance.now();
  const loadBefore = loadAverage();
  log(`configuration ${configKey}; ${duration} s per measurement at ${connectionLevels.join(" and ")} connections`);
  const url = await freshDatabase();
  log(`fresh database ready (${dbKind === "sqlite" ? path.relative(root, url.slice(5)) : url.replace(/\/\/[^@]*@/, "//…@")})`);
  // Enough targets for the writes at the fastest rate seen here (with headroom); a measurement
  // that runs out of targets ends early and says so in its request count.
  const claimSteps = Number(argOf("claims") ?? 3000);
  const reviewRuns = Number(argOf("reviews") ?? 1200);
  const fixtures = await prepareFixtures(url, claimSteps, reviewRuns);

  const servers: Server[] = running;
  const ports: number[] = [];
  for (let k = 0; k < instances; k++) ports.push(await freePort());
  const publicOrigin = `http://127.0.0.1:${ports[0]}`;
  for (const port of ports) servers.push(await startServer(url, port, publicOrigin));
  log(`serving on ${servers.map((s) => s.origin).join(", ")}`);
  const idleRss = Math.round(servers.reduce((s, x) => s + treeRss(x.proc.pid!).sum, 0) / 1048576);
  const cookie = await signIn(servers[0], "operator@plandesk.test");
  const agentAuth = { authorization: "Bearer pd_demo_agent_key" };
  const console_ = { cookie, origin: publicOrigin };

  // Warm-up: every route compiled and cached once per server.
  for (const s of servers) {
    await fetch(`${s.origin}/api/runs?status=pending_review`, { headers: { cookie } });
    await fetch(`${s.origin}/api/v1/runs/${fixtures.getRunIds[0]}`, { headers: agentAuth });
  }

  const results: Measurement[] = [];
  let claimAt = 0;
  let editAt = 0;
  let approveAt = 0;
  const edited: { runId: string; version: number }[] = [];
  let getAt = 0;
  for (const c of connectionLevels) {
    // A warm-up of the bare route at this concurrency (not recorded).
    await measureQuiet(servers, c);
    results.push(await measure("bare", servers, c, () => ({ method: "POST", path: "/api/bench/bare", body: "{}" }), null));
    results.push(
      await measure("get_run", servers, c, () => ({ method: "GET", path: `/api/v1/runs/${fixtures.getRunIds[getAt++ % fixtures.getRunIds.length]}`, headers: agentAuth }), null),
    );
    results.push(await measure("queue", servers, c, () => ({ method: "GET", path: "/api/runs?status=pending_review", headers: console_ }), null));
    const claimBudget = Math.floor((fixtures.claims.length - claimAt) / (connectionLevels.length - connectionLevels.indexOf(c)));
    const claimEnd = claimAt + claimBudget;
    results.push(
      await measure(
        "claim",
        servers,
        c,
        () => {
          if (claimAt >= claimEnd) return null;
          const x = fixtures.claims[claimAt++];
          return { method: "POST", path: `/api/v1/runs/${x.runId}/steps/${x.stepId}/claim`, headers: agentAuth, body: JSON.stringify({ digest: x.digest, taskRevision: x.taskRevision }) };
        },
        claimBudget,
      ),
    );
    const editBudget = Math.floor((fixtures.reviewRuns.length - editAt) / (connectionLevels.length - connectionLevels.indexOf(c)));
    const editEnd = editAt + editBudget;
    results.push(
      await measure(
        "edit",
        servers,
        c,
        () => {
          if (editAt >= editEnd) return null;
          const { runId, ticketId } = fixtures.reviewRuns[editAt++];
          edited.push({ runId, version: 2 });
          const body = {
            baseVersion: 1,
            steps: [
              { id: "st_note", tool: "add_ticket_note", args: { ticketId, note: "Customer called about this ticket." } },
              { id: "st_reply", tool: "send_reply", args: { ticketId, body: "We are looking into it and will reply again before the end of the week." } },
            ],
          };
          return { method: "POST", path: `/api/runs/${runId}/edits`, headers: console_, body: JSON.stringify(body) };
        },
        editBudget,
      ),
    );
    // Approve only what the edit phase changed: an edit still in flight when its measurement ended
    // (or refused) left its run at version 1, and approving version 2 there would be refused.
    const { prisma } = await import("../lib/server/db/db");
    const pending = edited.splice(approveAt);
    const done = new Set((await prisma.run.findMany({ where: { id: { in: pending.map((x) => x.runId) }, planVersion: 2 }, select: { id: true } })).map((r) => r.id));
    edited.push(...pending.filter((x) => done.has(x.runId)));
    const approveEnd = edited.length;
    results.push(
      await measure(
        "approve",
        servers,
        c,
        () => {
          if (approveAt >= approveEnd) return null;
          const x = edited[approveAt++];
          return { method: "POST", path: `/api/runs/${x.runId}/approvals`, headers: console_, body: JSON.stringify({ planVersion: x.version, stepIds: "all", idempotencyKey: `bench-${x.runId}` }) };
        },
        approveEnd - approveAt,
      ),
    );
  }
  const peakRss = Math.max(...results.map((r) => r.rssPeakMB));
  const peakProcessRss = Math.max(...results.map((r) => r.rssPeakProcessMB));
  stopServers();
  await new Promise((r) => setTimeout(r, 500));

  const entry = {
    config: configKey,
    db: dbKind,
    size,
    instances,
    at: new Date().toISOString(),
    machine: { cpus: (await import("node:os")).cpus().length, node: process.version, loadAverage: { before: loadBefore, after: loadAverage() } },
    durationSeconds: duration,
    serverNodeArgs: [...serverNodeArgs({ ...process.env, ...(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}) }), nodeOptions ?? ""].filter(Boolean).join(" "),
    rss: { idleMB: idleRss, peakMB: peakRss, peakProcessMB: peakProcessRss },
    fixtures: { claimSteps: fixtures.claims.length, reviewRuns: fixtures.reviewRuns.length },
    results,
    wallSeconds: Math.round((performance.now() - t0) / 1000),
  };
  const file = path.join(resultsDir, "load.json");
  const all = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { entries: (typeof entry)[] }) : { entries: [] };
  all.entries = [...all.entries.filter((e) => e.config !== configKey), entry].sort((a, b) => a.config.localeCompare(b.config));
  fs.writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  const { renderLoadMarkdown } = await import("./bench-load-support");
  const notes = path.join(resultsDir, "load-notes.md");
  fs.writeFileSync(path.join(resultsDir, "load.md"), renderLoadMarkdown(all.entries, fs.existsSync(notes) ? fs.readFileSync(notes, "utf8") : ""));
  log(`done in ${entry.wallSeconds} s → bench/results/load.json, bench/results/load.md`);
}

/** Two seconds of the bare route at `c` connections, not recorded (JIT and sockets warm). */
async function measureQuiet(servers: Server[], c: number) {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          autocannon({ url: `${s.origin}/api/bench/bare`, connections: Math.max(1, Math.floor(c / servers.length)), duration: 2 }, () => resolve());
        }),
    ),
  );
}

/** Servers started by this run: stopped on every way out. */
const running: Server[] = [];
const stopServers = () => {
  for (const s of running.splice(0)) {
    try {
      process.kill(-s.proc.pid!, "SIGTERM"); // the process group
    } catch {
      /* already gone */
    }
  }
};
process.on("exit", stopServers);
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => process.exit(130));

main().catch((e) => {
  console.error(`bench:load: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
