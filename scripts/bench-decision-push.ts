/**
 * `npm run bench:push`: how long after a person's decision the waiting agent knows it, at every
 * waiting age, on both databases (bench/results/decision-push.{json,md}).
 *
 * For each database (a fresh, migrated, demo-seeded database of its own) and each way of serving:
 * - `same instance`: the agents' console is the process that records the decisions (one instance:
 *   what a single-instance desk runs — the operator's browser and the agent reach one server);
 * - `other instance`: the agents wait on a second process (testing/http-instance-child.ts) while
 *   the decisions are recorded by the first — PostgreSQL NOTIFY between them, or on SQLite the
 *   other process's audit poller (PLANDESK_LIVE_POLL_MS, 1 s).
 * Agents are `@plandesk/client` clients over HTTP calling `waitForDecision` (push by the run's
 * event stream, the default), one per demo task that takes a two-step reply plan, all waiting at
 * once; each is decided (approved or rejected, alternately) after its waiting age — 0.2, 1, 3,
 * 10, 25 or 40 s — by the service functions a console request runs. Latency: from the decision's
 * commit (its call returned) to `waitForDecision` resolving in the agent. Target: p99 ≤ 1 s.
 *   npm run bench:push [-- --rounds 2]
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const AGES_S = [0.2, 1, 3, 10, 25, 40];
const argOf = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || d : d;
};
const ROUNDS = argOf("--rounds", 2);

type Sample = { ageS: number; ms: number; kind: string };
type ModeResult = { database: string; serving: string; samples: number; p50: number; p95: number; p99: number; max: number; byAge: Record<string, number>; wrong: number };

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (n: number) => Math.round(n * 10) / 10;

/** `call` again after its Retry-After while the console answers `rate_limited` (10 requests a second per agent key). */
async function paced<T extends { ok: boolean; error?: { code: string } }>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    const res = await call();
    if (res.ok || res.error?.code !== "rate_limited") return res;
    await new Promise((r) => setTimeout(r, 1100));
  }
}

async function child(dialect: "sqlite" | "postgresql"): Promise<void> {
  const { freshTestDatabaseUrl, recreatePgTestDatabase, dropPgTestDatabase } = await import("../testing/test-databases");
  const { migrateAndSeed } = await import("../testing/app-instances");
  const env = dialect === "postgresql" ? { PLANDESK_TEST_DB: "postgres" } : {};
  const url = freshTestDatabaseUrl(env);
  if (dialect === "postgresql") await recreatePgTestDatabase(url);
  migrateAndSeed(url);
  process.env.DATABASE_URL = url;
  process.env.PLANDESK_LOG_LEVEL ??= "warn";
  const { startInProcessServer } = await import("../testing/in-process-server");
  const { createAgentClient, waitForDecision } = await import("@plandesk/client");
  const { approveSteps } = await import("../lib/server/approvals/approve-steps");
  const { rejectRun } = await import("../lib/server/approvals/reject-run");
  const { loadViewer } = await import("../lib/server/auth/session");
  const { prisma } = await import("../lib/server/db/db");
  const senior = (await loadViewer("usr_senior"))!;
  const here = await startInProcessServer(0);
  // the other instance: its own process, pool and live feed on the same database
  const other = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [path.join(process.cwd(), "testing", "http-instance-child.ts")], {
    env: { ...process.env, DATABASE_URL: url, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const otherPort = await new Promise<number>((resolve, reject) => {
    let out = "";
    other.stdout!.on("data", (d) => {
      out += d;
      const m = /\{"listening":(\d+)\}/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    other.on("exit", (c) => reject(new Error(`the other instance exited ${c}`)));
  });
  const results: ModeResult[] = [];
  try {
    for (const serving of ["same instance", "other instance"] as const) {
      const port = serving === "same instance" ? here.port : otherPort;
      const client = createAgentClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "pd_demo_agent_key", retry: false });
      const samples: Sample[] = [];
      let wrong = 0;
      const listed = await client.listTasks();
      if (!listed.ok) throw new Error(JSON.stringify(listed.error));
      let free = (listed.tasks as { id: string; ticketId: string }[]).map((t) => t);
      for (let r = 0; r < ROUNDS && free.length > 0; r++) {
        const waits: Promise<void>[] = [];
        const stillFree: typeof free = [];
        let k = 0;
        for (const t of free) {
          const task = await paced(() => client.getTask(t.id));
          if (!task.ok) continue;
          const steps = [
            { id: "s1", tool: "add_ticket_note", args: { ticketId: t.ticketId, note: `Bench ${serving} round ${r}.` } },
            { id: "s2", tool: "send_reply", args: { ticketId: t.ticketId, body: "Thanks for your patience; we are looking into it and will write again." } },
          ];
          const sub = await paced(() => client.submitRun(t.id, { taskRevision: task.task.revision, steps, expiresInSeconds: 600 }, { idempotencyKey: `push-${serving.replace(" ", "-")}-${r}-${t.id}` }));
          if (!sub.ok || sub.run.status !== "pending_review") {
            if (r === 0) console.error(`  ${t.id}: not waiting for review (${sub.ok ? sub.run.status : `${sub.error.code}: ${sub.error.message}`})`);
            continue;
          }
          const run = sub.run;
          const ageS = AGES_S[k % AGES_S.length];
          const approve = k % 2 === 0;
          k++;
          if (!approve) stillFree.push(t);
          let decidedAt = 0;
          const waiting = waitForDecision(client, { runId: run.id, expiresAt: run.expiresAt });
          waits.push(
            (async () => {
              await new Promise((res) => setTimeout(res, ageS * 1000));
              if (approve) await approveSteps(senior, run.id, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `push-approve-${run.id}` });
              else await rejectRun(senior, run.id, { planVersion: run.planVersion, reason: "Bench: handled elsewhere." });
              decidedAt = performance.now();
              const d = await waiting;
              const knownAt = performance.now();
              if (d.kind !== (approve ? "approved" : "rejected")) wrong++;
              samples.push({ ageS, ms: knownAt - decidedAt, kind: d.kind });
            })(),
          );
        }
        await Promise.all(waits);
        free = stillFree;
      }
      if (samples.length === 0) throw new Error(`no decisions were measured (${dialect}, ${serving})`);
      const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
      const byAge: Record<string, number> = {};
      for (const a of AGES_S) {
        const v = samples.filter((s) => s.ageS === a).map((s) => s.ms).sort((x, y) => x - y);
        if (v.length) byAge[`${a}s`] = round(v[v.length - 1]);
      }
      results.push({ database: dialect, serving, samples: ms.length, p50: round(pct(ms, 50)), p95: round(pct(ms, 95)), p99: round(pct(ms, 99)), max: round(ms[ms.length - 1]), byAge, wrong });
    }
  } finally {
    other.kill("SIGTERM");
    here.server.closeAllConnections();
    here.server.close();
    await prisma.$disconnect();
    if (dialect === "postgresql") await dropPgTestDatabase(url);
    else fs.rmSync(url.slice("file:".length), { force: true });
  }
  console.log(`RESULT ${JSON.stringify(results)}`);
  process.exit(0);
}

async function main(): Promise<void> {
  const all: ModeResult[] = [];
  for (const dialect of ["sqlite", "postgresql"] as const) {
    console.log(`▷ ${dialect}…`);
    const r = spawnSync(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [__filename, "--child", dialect, "--rounds", String(ROUNDS)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    if (r.status !== 0 || !line) throw new Error(`the ${dialect} run failed (exit ${r.status}):\n${r.stdout}`);
    all.push(...(JSON.parse(line.slice(7)) as ModeResult[]));
  }
  const load = fs.readFileSync("/proc/loadavg", "utf8").trim().split(" ").slice(0, 3).join(" ");
  const at = new Date().toISOString();
  const out = { measuredAt: at, cores: os.cpus().length, load, rounds: ROUNDS, agesSeconds: AGES_S, targetP99Ms: 1000, results: all };
  fs.mkdirSync("bench/results", { recursive: true });
  fs.writeFileSync("bench/results/decision-push.json", JSON.stringify(out, null, 2) + "\n");
  const rows = all.map((m) => `| ${m.database} | ${m.serving} | ${m.samples} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.max} | ${AGES_S.map((a) => m.byAge[`${a}s`] ?? "–").join(" / ")} | ${m.wrong} | ${m.p99 <= 1000 ? "met" : "missed"} |`);
  const md = [
    "# From a decision to the waiting agent knowing it",
    "",
    `Measured ${at} on ${os.cpus().length} cores (load ${load}); \`npm run bench:push\` (scripts/bench-decision-push.ts), ${ROUNDS} rounds.`,
    "Agents: `@plandesk/client` `waitForDecision` over HTTP (the run's event stream), all waiting at once, each decided after its waiting age; ms from the decision's commit to the agent's `waitForDecision` resolving. Target: p99 ≤ 1,000 ms.",
    "",
    `| database | agents wait on | decisions | p50 ms | p95 ms | p99 ms | max ms | max ms at waiting age ${AGES_S.map((a) => `${a} s`).join(" / ")} | wrong decisions | target |`,
    "|---|---|---:|---:|---:|---:|---:|---|---:|---|",
    ...rows,
    "",
  ].join("\n");
  fs.writeFileSync("bench/results/decision-push.md", md);
  console.log(md);
}

const at = process.argv.indexOf("--child");
if (at > 0) {
  child(process.argv[at + 1] as "sqlite" | "postgresql").catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
