/**
 * `npm run bench:pooler`: decision latency on PostgreSQL directly vs through PgBouncer in
 * transaction mode (docs/operations.md "Behind a transaction pooler"), at 8 and 32 connections.
 *
 *   npm run bench:pooler                          # 8 and 32 connections, 200 rounds per measurement
 *   options: --connections 8,32, --rounds <n> (submit + approve + claim rounds per measurement)
 *
 * Makes a throw-away database `plandesk_test_bench_pooler_<random>` on PLANDESK_TEST_PG_URL
 * (default postgresql://postgres@127.0.0.1:5432/postgres; migrated and seeded with the demo desk,
 * dropped at the end) and starts one PgBouncer (testing/pgbouncer.ts: pool_mode = transaction,
 * default_pool_size 20). For each connection count and each way in, a separate process (the
 * app's pool of that many connections: PLANDESK_PG_POOL_MAX; through the pooler with
 * PLANDESK_DATABASE_POOLER=transaction; each way twice, in the order direct, pooler, pooler,
 * direct) runs that many workers at once, each on its own demo task (31; beyond that two share one),
 * through the service functions (no HTTP): submit a run (a serializable transaction), approve it
 * (acknowledging the task's earlier runs, still executing) and claim its first step (the decision
 * path: row-lock transactions). Every call is timed; the first round of each worker warms the process and is left out. Before the concurrent phase the
 * process counts the statements one approve and one claim send (every `pg` query). Results:
 * bench/results/pooler.json and bench/results/pooler.md (p50/p99 in ms, decisions per second,
 * statements per decision).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPgBouncer } from "../testing/pgbouncer";
import { migrateAndSeed } from "../testing/app-instances";
import { dropPgTestDatabase, recreatePgTestDatabase, testPgServerUrl } from "../testing/test-databases";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);

function argOf(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** One measurement's figures (ms; `perSecond`: decisions — approve and claim — per second). */
interface Figures {
  way: "direct" | "pooler";
  connections: number;
  decisions: number;
  p50: number;
  p99: number;
  submitP50: number;
  submitP99: number;
  perSecond: number;
  statements: { approve: number; claim: number };
  failures: number;
  /** The machine's 1-minute load average when the measurement ended. */
  load: string;
}

const pct = (sorted: number[], p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10 : NaN);

// ── worker: one app process ──────────────────────────────────────────────────

async function worker(): Promise<void> {
  const conns = Number(process.env.BENCH_CONNECTIONS);
  const rounds = Number(process.env.BENCH_ROUNDS);
  const pg = (await import("pg")).default;
  let statements = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  const { prisma } = await import("../lib/server/db/db");
  const { submitRun } = await import("../lib/server/runs/submit-run");
  const { approveSteps } = await import("../lib/server/approvals/approve-steps");
  const { claimStep } = await import("../lib/server/claims/claim-step");
  const { loadViewer } = await import("../lib/server/auth/session");
  const { DEMO_AGENT_TOOLS } = await import("../lib/demo/desk-data");
  const { concurrentAcks } = await import("../testing/test-support");
  const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS] as string[], keyId: "key_demo" };
  const senior = (await loadViewer("usr_senior"))!;
  const tasks = JSON.parse(process.env.BENCH_TASKS!) as string[];
  const decisions: number[] = [];
  const submits: number[] = [];
  let failures = 0;
  const round = async (taskId: string, record: boolean, counts?: { approve: number; claim: number }) => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
    const steps = [
      { id: "st_note", tool: "add_ticket_note", args: { ticketId: task.ticketId, note: "Customer called." } },
      { id: "st_reply", tool: "send_reply", args: { ticketId: task.ticketId, body: "We are on it." }, rationale: "Acknowledge." },
    ];
    let t = performance.now();
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, null);
    if (record) submits.push(performance.now() - t);
    // The task's earlier runs are still executing (each round claims one step): acknowledged, as a person would.
    const acks = await concurrentAcks(run.id);
    let before = statements;
    t = performance.now();
    const approve = (a: typeof acks) => approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `bp-${run.id}`, ...a });
    // With more workers than tasks two share one: the other's run may start executing meanwhile.
    const approved = await approve(acks).catch(async (e) => {
      if ((e as { code?: string }).code !== "concurrent_run_unacknowledged") throw e;
      return approve(await concurrentAcks(run.id));
    });
    if (record) decisions.push(performance.now() - t);
    if (counts) counts.approve = statements - before;
    const s = approved.run.steps[0];
    before = statements;
    t = performance.now();
    await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: task.revision }, null);
    if (record) decisions.push(performance.now() - t);
    if (counts) counts.claim = statements - before;
  };
  const counts = { approve: 0, claim: 0 };
  await round(tasks[0], false);
  await round(tasks[0], false, counts);
  const perWorker = Math.max(2, Math.ceil(rounds / conns) + 1);
  const started = performance.now();
  let measuredMs = 0;
  await Promise.all(
    Array.from({ length: conns }, async (_, w) => {
      for (let i = 0; i < perWorker; i++) {
        try {
          await round(tasks[w % tasks.length], i > 0);
        } catch (e) {
          failures++;
          if (failures <= 3) console.error(e);
        }
      }
    }),
  );
  measuredMs = performance.now() - started;
  const sorted = decisions.sort((a, b) => a - b);
  const sortedSubmits = submits.sort((a, b) => a - b);
  const out = {
    decisions: sorted.length,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    submitP50: pct(sortedSubmits, 50),
    submitP99: pct(sortedSubmits, 99),
    perSecond: Math.round((sorted.length / measuredMs) * 1000 * ((perWorker - 1) / perWorker)),
    statements: counts,
    failures,
  };
  process.stdout.write(`BENCH ${JSON.stringify(out)}\n`);
  await prisma.$disconnect();
}

// ── driver ───────────────────────────────────────────────────────────────────

function runWorker(env: Record<string, string>): Promise<Omit<Figures, "way" | "connections" | "load">> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "bench-pooler.ts"), "--worker"], {
      env: { ...process.env, PLANDESK_DEMO: "1", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("BENCH "));
      if (code !== 0 || !line) return reject(new Error(`worker exited ${code}:\n${out}`));
      resolve(JSON.parse(line.slice("BENCH ".length)));
    });
  });
}

async function main(): Promise<void> {
  const levels = (argOf("connections") ?? "8,32").split(",").map(Number).filter((n) => n > 0);
  const rounds = Number(argOf("rounds") ?? 200);
  const server = new URL(testPgServerUrl());
  server.pathname = `/plandesk_test_bench_pooler_${Math.random().toString(36).slice(2, 10)}`;
  const direct = server.toString();
  await recreatePgTestDatabase(direct);
  const bouncer = await startPgBouncer(20);
  const results: Figures[] = [];
  try {
    migrateAndSeed(direct);
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: direct });
    await c.connect();
    // Tasks a run can be submitted on: one per worker (a task has one live plan at a time).
    const rows = (await c.query(`SELECT t.id FROM task t WHERE t.id LIKE 'task_7%' ORDER BY t.id`)).rows as { id: string }[];
    // A freshly seeded database has no planner statistics yet: without this the first
    // measurement runs on the plans of empty tables while autovacuum catches up.
    await c.query("VACUUM ANALYZE");
    await c.end();
    const tasks = rows.map((r) => r.id);
    console.log(`${tasks.length} tasks; ${bouncer.version}; PostgreSQL at ${server.host}`);
    // Warm-up, not recorded: the server's caches and the first runs of every task.
    await runWorker({ DATABASE_URL: direct, PLANDESK_PG_POOL_MAX: "8", BENCH_CONNECTIONS: "8", BENCH_ROUNDS: "64", BENCH_TASKS: JSON.stringify(tasks), PLANDESK_DATABASE_POOLER: "" });
    for (const conns of levels) {
      // Direct, pooler, pooler, direct: a trend in the machine's load falls on both ways alike.
      for (const way of ["direct", "pooler", "pooler", "direct"] as const) {
        const env: Record<string, string> = {
          DATABASE_URL: way === "direct" ? direct : bouncer.urlFor(direct),
          PLANDESK_PG_POOL_MAX: String(conns),
          BENCH_CONNECTIONS: String(conns),
          BENCH_ROUNDS: String(rounds),
          BENCH_TASKS: JSON.stringify(tasks),
          PLANDESK_DATABASE_POOLER: way === "pooler" ? "transaction" : "",
        };
        const f = { way, connections: conns, ...(await runWorker(env)), load: fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0] };
        console.log(JSON.stringify(f));
        results.push(f);
      }
    }
  } finally {
    await bouncer.stop();
    await dropPgTestDatabase(direct);
  }
  const dir = path.join(root, "bench", "results");
  const meta = { at: new Date().toISOString(), cores: os.availableParallelism(), load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "), pgbouncer: bouncer.version, poolSize: 20, rounds };
  fs.writeFileSync(path.join(dir, "pooler.json"), JSON.stringify({ ...meta, results }, null, 2) + "\n");
  const md = [
    "# Decisions through PgBouncer (transaction mode) vs directly",
    "",
    `Measured ${meta.at} on ${meta.cores} cores (load ${meta.load}), ${meta.pgbouncer}, default_pool_size ${meta.poolSize}; \`npm run bench:pooler\` (scripts/bench-pooler.ts).`,
    "Decisions are approve and claim (row-lock transactions) through the service functions, each worker on its own task; submit is a serializable transaction. Each way is measured twice (direct, pooler, pooler, direct).",
    "",
    "| connections | way | decisions | p50 ms | p99 ms | decisions/s | submit p50 / p99 ms | statements per approve / claim | failures | load |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map((r) => `| ${r.connections} | ${r.way} | ${r.decisions} | ${r.p50} | ${r.p99} | ${r.perSecond} | ${r.submitP50} / ${r.submitP99} | ${r.statements.approve} / ${r.statements.claim} | ${r.failures} | ${r.load} |`),
    "",
  ].join("\n");
  fs.writeFileSync(path.join(dir, "pooler.md"), md);
  console.log(md);
}

(process.argv.includes("--worker") ? worker() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
