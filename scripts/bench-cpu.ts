/**
 * `npm run bench:cpu`: server CPU time per request on the decision path, one request at a time,
 * beside the in-repo bare route (`app/api/bench/bare`) served by the same build and process.
 *
 *   npm run bench:cpu                       # SQLite, demo desk
 *   npm run bench:cpu -- --db postgres      # PostgreSQL (PLANDESK_BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432)
 *   options: --rounds <n> (default 10; each round: 10 tasks × submit, edit, GET, approve, 10 × claim + outcome, queue)
 *            --profile <dir> (the server runs with `node --cpu-prof --cpu-prof-dir=<dir>` and <dir>/phases.json
 *            records each measured request's window on the monotonic clock the profile uses, so
 *            `tsx scripts/profile-phases.ts <dir>` splits the profile by request kind)
 *
 * The bare route is measured 100 times first and 10 times after each task's requests, so it runs
 * under the same JIT, heap and machine load as what it is compared with.
 * Builds nothing (run `npx next build` first). Starts `scripts/server.mjs` (what `npm start`
 * serves) on a fresh, seeded database with PLANDESK_BENCH=1, then measures each phase as the
 * difference of utime + stime (from /proc/<pid>/stat, in clock ticks) of the server's process tree
 * before and after every request — CPU time, far steadier than wall time on a shared machine. On
 * PostgreSQL the CPU of the backends serving the benchmark's own database is added (found by
 * `pg_stat_activity.datname`), so the database's share is counted, and shown apart ("of it the
 * database's"). Ten rounds by default: the bare route's own figure moves by a third between runs of
 * three rounds (a collection lands on whichever request triggers it, and CPU time is counted in 10 ms
 * clock ticks), and every × is divided by it. The targets are the decision
 * path's budgets in multiples of the bare route (bench/README.md, `npm run bench:cpu`): claim, outcome and GET run
 * ≤ 3×; approve and the queue ≤ 5×; submit and edit of 10 steps ≤ 8×.
 * Results: `cpu.json` in bench/results/ (one entry per database, replaced on rerun, with the load
 * average, so a figure measured on a busy machine says so) and the table `cpu.md` beside it.
 * Every request goes to 127.0.0.1.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { freePort, migrateAndSeed, signInCookieAt, startAppInstance, stopAppInstance } from "../testing/app-instances";
import { UNLIMITED_RATES } from "../testing/unlimited-rates";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const dbKind = opt("db", "sqlite");
const rounds = Math.max(1, Number(opt("rounds", "10")));
const profileDir = opt("profile", "") ? path.resolve(opt("profile", "")) : null;
if (!["sqlite", "postgres"].includes(dbKind)) throw new Error("--db is sqlite or postgres");

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Budgets in multiples of the bare route's CPU per request. */
const TARGETS: Record<string, number> = {
  claim: 3,
  "report outcome": 3,
  "GET run (agent)": 3,
  "approve all (10 steps)": 5,
  "queue API": 5,
  "submit (10 steps)": 8,
  "edit (10 steps)": 8,
};

/** The pids of `rootPid` and all its descendants, read from /proc. */
function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)!).push(Number(d));
    } catch {
      /* the process ended meanwhile */
    }
  }
  const out: number[] = [];
  const todo = [rootPid];
  while (todo.length) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

/** CPU milliseconds (user + system) the given processes have used so far. */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const p of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone */
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

interface Phase {
  n: number;
  cpu: number;
  /** Of `cpu`, the PostgreSQL backends' share (0 on SQLite, whose work runs in the server process). */
  dbCpu: number;
  wall: number;
  failed: number;
}

async function main() {
  const port = await freePort();
  const publicOrigin = `http://127.0.0.1:${port}`;
  let databaseUrl: string;
  let dropDatabase = async () => {};
  let pgAdmin: pg.Client | null = null;
  const dbName = `plandesk_bench_cpu_${process.pid}`;
  if (dbKind === "postgres") {
    const base = process.env.PLANDESK_BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432";
    pgAdmin = new pg.Client({ connectionString: `${base}/postgres` });
    await pgAdmin.connect();
    await pgAdmin.query(`CREATE DATABASE ${dbName} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    databaseUrl = `${base}/${dbName}`;
    dropDatabase = async () => {
      await pgAdmin!.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await pgAdmin!.end();
    };
  } else {
    const file = path.join(os.tmpdir(), `${dbName}.db`);
    databaseUrl = `file:${file}`;
    dropDatabase = async () => {
      for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
    };
  }
  console.log(`bench:cpu: ${dbKind}, ${rounds} rounds; migrating and seeding…`);
  migrateAndSeed(databaseUrl);
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const instance = await startAppInstance({ databaseUrl, port, publicOrigin, env: { ...UNLIMITED_RATES, PLANDESK_BENCH: "1", PLANDESK_SWEEP: "0" }, nodeArgs });
  /** Each measured request's window in microseconds of CLOCK_MONOTONIC (what V8's profile timestamps count). */
  const windows: { phase: string; startUs: number; endUs: number }[] = [];
  const monoUs = () => Number(process.hrtime.bigint() / 1000n);
  const serverPid = instance.proc.pid!;
  const databasePids = async (): Promise<number[]> =>
    pgAdmin ? (await pgAdmin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [dbName])).rows.map((r) => Number(r.pid)) : [];

  const phases = new Map<string, Phase>();
  const measure = async <T>(name: string, fn: () => Promise<{ ok: boolean; value: T }>): Promise<T | null> => {
    const serverPids = processTree(serverPid);
    const dbPids = await databasePids();
    const c0 = cpuMs(serverPids);
    const d0 = cpuMs(dbPids);
    const t0 = performance.now();
    const w0 = monoUs();
    const r = await fn();
    const t1 = performance.now();
    if (profileDir) windows.push({ phase: name, startUs: w0, endUs: monoUs() });
    // a process that started during the request counts from zero (its whole CPU time is in the window)
    const c1 = cpuMs([...new Set([...serverPids, ...processTree(serverPid)])]);
    const d1 = cpuMs([...new Set([...dbPids, ...(await databasePids())])]);
    const p = phases.get(name) ?? phases.set(name, { n: 0, cpu: 0, dbCpu: 0, wall: 0, failed: 0 }).get(name)!;
    p.n++;
    p.cpu += c1 - c0 + (d1 - d0);
    p.dbCpu += d1 - d0;
    p.wall += t1 - t0;
    if (!r.ok) p.failed++;
    return r.ok ? r.value : null;
  };
  const call = async (method: string, url: string, body: unknown, headers: Record<string, string>, expect: number | number[]) => {
    const res = await fetch(`${instance.origin}${url}`, {
      method,
      headers: { "content-type": "application/json", origin: publicOrigin, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ok = Array.isArray(expect) ? expect.includes(res.status) : res.status === expect;
    if (!ok) console.error(`${method} ${url} → ${res.status} ${text.slice(0, 200)}`);
    return { ok, value: text ? JSON.parse(text) : null };
  };
  const agent = { authorization: "Bearer pd_demo_agent_key" };

  try {
    // warm-up: every route compiled and cached once before anything is measured
    for (let i = 0; i < 50; i++) await call("POST", "/api/bench/bare", { digest: "x".repeat(64), taskRevision: 1 }, {}, 200);
    // The bare route is measured before and between the rounds (10 requests per task), so it meets
    // the same warmed-up code, heap and machine load as the requests it is the yardstick for.
    const bareRequests = async (n: number) => {
      for (let i = 0; i < n; i++) await measure("bare POST", () => call("POST", "/api/bench/bare", { digest: "x".repeat(64), taskRevision: 1 }, {}, 200));
    };
    await bareRequests(100);
    const cookie = await signInCookieAt(instance, "senior@plandesk.test");
    const taskList = (await call("GET", "/api/v1/tasks", undefined, agent, 200)).value as { tasks: { id: string; ticketId: string; revision: number }[] };
    const tasks = taskList.tasks.slice(0, 10);
    for (let r = 0; r < rounds; r++) {
      for (const task of tasks) {
        const steps = Array.from({ length: 10 }, (_, i) => ({ tool: "add_ticket_note", args: { ticketId: task.ticketId, note: `bench ${r}.${i}` } }));
        const submitted = await measure("submit (10 steps)", () => call("POST", `/api/v1/tasks/${task.id}/runs`, { taskRevision: task.revision, steps }, agent, 201));
        if (!submitted) continue;
        let run = submitted.run as { id: string; planVersion: number; steps: { id: string; tool: string; args: Record<string, unknown>; digest: string }[] };
        const edited = run.steps.map((s, i) => ({ id: s.id, tool: s.tool, args: i === 0 ? { ...s.args, note: `${s.args.note} (checked)` } : s.args }));
        if (!(await measure("edit (10 steps)", () => call("POST", `/api/runs/${run.id}/edits`, { baseVersion: run.planVersion, steps: edited }, { cookie }, 201)))) continue;
        const got = await measure("GET run (agent)", () => call("GET", `/api/v1/runs/${run.id}`, undefined, agent, 200));
        if (!got) continue;
        run = got.run;
        const approved = await measure("approve all (10 steps)", () =>
          call("POST", `/api/runs/${run.id}/approvals`, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: randomUUID() }, { cookie }, [200, 201]),
        );
        if (!approved) continue;
        for (const step of run.steps) {
          const claimed = await measure("claim", () =>
            call("POST", `/api/v1/runs/${run.id}/steps/${step.id}/claim`, { digest: step.digest, taskRevision: task.revision }, { ...agent, "idempotency-key": randomUUID() }, 200),
          );
          if (!claimed) continue;
          await measure("report outcome", () => call("POST", `/api/v1/runs/${run.id}/steps/${step.id}/outcome`, { token: claimed.claim.token, status: "succeeded" }, agent, 200));
        }
        await measure("queue API", () => call("GET", "/api/runs", undefined, { cookie }, 200));
        await bareRequests(10);
      }
    }
  } finally {
    stopAppInstance(instance);
    if (profileDir) {
      fs.writeFileSync(path.join(profileDir, "phases.json"), JSON.stringify(windows));
      // the profile is written as the server exits
      while (instance.proc.exitCode === null && instance.proc.signalCode === null) await new Promise((r) => setTimeout(r, 200));
    }
    await dropDatabase();
  }

  const bare = phases.get("bare POST")!;
  const bareCpu = bare.cpu / bare.n;
  const rows = [...phases.entries()].map(([phase, p]) => {
    const cpu = p.cpu / p.n;
    const x = cpu / bareCpu;
    const target = TARGETS[phase];
    return { phase, n: p.n, failed: p.failed, cpuMsPerRequest: +cpu.toFixed(2), databaseCpuMsPerRequest: +(p.dbCpu / p.n).toFixed(2), wallMs: +(p.wall / p.n).toFixed(1), xBare: +x.toFixed(1), target: target ?? null, met: target ? x <= target : null };
  });
  const entry = { db: dbKind, at: new Date().toISOString(), loadAverage: os.loadavg().map((l) => +l.toFixed(2)), cpus: os.cpus().length, node: process.version, rounds, rows };
  if (profileDir) {
    // a profiled server is slower: its figures are printed, never written over the results
    console.log(JSON.stringify(rows, null, 1));
    console.log(`bench:cpu: profile and phases.json in ${profileDir}; split it with: npx tsx scripts/profile-phases.ts ${profileDir}`);
    return;
  }
  const dir = path.join(root, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "cpu.json");
  const all = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : []) as (typeof entry)[];
  const merged = [...all.filter((e) => e.db !== dbKind), entry].sort((a, b) => a.db.localeCompare(b.db));
  fs.writeFileSync(file, JSON.stringify(merged, null, 2) + "\n");
  const md = [
    "# Server CPU per request (`npm run bench:cpu`)",
    "",
    "One request at a time; CPU time (user + system) of the server's process tree, plus on PostgreSQL the backends of the benchmark's database. × = multiple of the bare route in the same run.",
    "",
    ...merged.flatMap((e) => [
      `## ${e.db} — ${e.at} (load average ${e.loadAverage.join(", ")}, ${e.cpus} cores, node ${e.node}, ${e.rounds} rounds)`,
      "",
      "| request | n | failed | CPU ms / request | of it the database's | wall ms | × bare | target | met |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---|",
      ...e.rows.map((r) => `| ${r.phase} | ${r.n} | ${r.failed} | ${r.cpuMsPerRequest} | ${e.db === "postgres" ? (r.databaseCpuMsPerRequest ?? "") : "in-process"} | ${r.wallMs} | ${r.xBare} | ${r.target ? `≤ ${r.target}×` : ""} | ${r.met === null ? "" : r.met ? "yes" : "no"} |`),
      "",
    ]),
  ].join("\n");
  fs.writeFileSync(path.join(dir, "cpu.md"), md);
  console.log(md);
}

main().catch((e) => {
  console.error(`bench:cpu: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
