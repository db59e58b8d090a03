/**
 * `npm run bench:reset`: how long `POST /api/demo/reset` (and `npm run db:reset`) takes to bring a
 * used demo desk back to the seeded one — the goal is under 2 s — on SQLite and on PostgreSQL.
 *
 *   npm run bench:reset                 # both databases (PostgreSQL at PLANDESK_BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432)
 *   npm run bench:reset -- --db sqlite  # one
 *
 * For each database: a fresh database is migrated and seeded, then a few scenarios are made (so
 * the reset has runs, approvals, executions and audit events to remove) and the reset is timed in
 * process (lib/server/scenarios/reset-demo.ts), six times: the first reset of a process seeds
 * through the public doors and snapshots the desk (`firstResetSeedsMs`), the five after it restore
 * the snapshot (`runsMs`, median and worst). Writes the runs, median and
 * worst (ms) with the load average to bench/results/reset.json. Each database runs in its own
 * process (the Prisma client is bound to DATABASE_URL at start).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const argv = process.argv.slice(2);
const only = argv.includes("--db") ? argv[argv.indexOf("--db") + 1] : null;
const child = argv.includes("--child");
const ROUNDS = 5;

async function measure(db: string) {
  const { deploy } = await import("./migrate");
  const { seedDemoDesk } = await import("../lib/server/demo/seed");
  const { makeScenario } = await import("../lib/server/scenarios/scenarios");
  const { resetDemoDesk } = await import("../lib/server/scenarios/reset-demo");
  const { prisma } = await import("../lib/server/db/db");
  await deploy(process.env.DATABASE_URL!);
  await seedDemoDesk(new Date());
  const ms: number[] = [];
  const emptyMs: number[] = [];
  let seededMs = 0;
  // The process's first reset seeds through the public doors and takes the snapshot; the rest restore it.
  for (let i = 0; i <= ROUNDS; i++) {
    for (const s of ["cross-account-refund", "partial-stop", "unknown-outcome"]) await makeScenario(s, new Date());
    const r = await resetDemoDesk(new Date());
    if (i === 0 && !r.restored) {
      seededMs = r.ms;
      continue;
    }
    if (!r.restored) throw new Error(`reset ${i} seeded again instead of restoring the snapshot`);
    ms.push(r.ms);
    emptyMs.push(r.emptyMs);
  }
  await prisma.$disconnect();
  const sorted = [...ms].sort((a, b) => a - b);
  return { db, at: new Date().toISOString(), loadAverage: os.loadavg().map((l) => +l.toFixed(2)), firstResetSeedsMs: seededMs, runsMs: ms, emptyMs, medianMs: sorted[Math.floor(sorted.length / 2)], worstMs: sorted[sorted.length - 1], goalMs: 2000 };
}

async function main() {
  if (child) {
    console.log(JSON.stringify(await measure(only!)));
    return;
  }
  const results: { db: string; medianMs: number; worstMs: number; goalMs: number; loadAverage: number[] }[] = [];
  for (const db of only ? [only] : ["sqlite", "postgres"]) {
    let url: string;
    let cleanup = async () => {};
    const name = `plandesk_bench_reset_${process.pid}`;
    if (db === "postgres") {
      const base = process.env.PLANDESK_BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432";
      const admin = new pg.Client({ connectionString: `${base}/postgres` });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
      url = `${base}/${name}`;
      cleanup = async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      };
    } else {
      const file = path.join(os.tmpdir(), `${name}.db`);
      url = `file:${file}`;
      cleanup = async () => {
        for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
      };
    }
    try {
      const r = spawnSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "bench-reset.ts"), "--child", "--db", db], {
        env: { ...process.env, DATABASE_URL: url, PLANDESK_DEMO: "1" },
        encoding: "utf8",
      });
      if (r.status !== 0) throw new Error(`bench:reset on ${db} failed:\n${r.stdout}\n${r.stderr}`);
      const line = r.stdout.trim().split("\n").pop()!;
      results.push(JSON.parse(line));
    } finally {
      await cleanup();
    }
  }
  const file = path.join(root, "bench", "results", "reset.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const previous = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : []) as { db: string }[];
  const merged = [...previous.filter((p) => !results.some((r) => r.db === p.db)), ...results].sort((a, b) => a.db.localeCompare(b.db));
  fs.writeFileSync(file, JSON.stringify(merged, null, 2) + "\n");
  for (const r of results) console.log(`${r.db}: reset median ${r.medianMs} ms, worst ${r.worstMs} ms, first (seeds) ${(r as { firstResetSeedsMs?: number }).firstResetSeedsMs} ms (goal under ${r.goalMs} ms; load ${r.loadAverage.join(", ")})`);
}

main().catch((e) => {
  console.error(`bench:reset: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
