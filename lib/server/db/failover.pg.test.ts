/**
 * A PostgreSQL restart and a failover under load (PostgreSQL pass only: vitest.config.mts leaves
 * this file out of the SQLite run). The file starts its own primary and synchronous streaming
 * standby (testing/pg-clusters.ts), migrates and seeds the primary, and runs two app instances
 * (testing/http-instance-child.ts: separate processes, each with its own connection pool) whose
 * DATABASE_URL names a stable address — a TCP forwarder (testing/tcp-switch.ts) standing for the
 * DNS name or virtual IP a managed service moves to the new primary. Agents claim steps through
 * @plandesk/client with idempotency keys and its retries, while:
 * - the primary restarts (`pg_ctl stop -m fast`, then `start`): every answer is a 2xx or a 503
 *   `database_unavailable` with Retry-After, never a 500, and every claim completes;
 * - the primary is killed (`pg_ctl stop -m immediate`), the address is moved to the standby before
 *   it is promoted (writes refused read-only, 25006) and again after `pg_ctl promote`: every claim
 *   acknowledged before the kill is on the new primary with its token, no step is claimed twice,
 *   every answer in the outage is a 503 with Retry-After, and the client's retries complete every
 *   call after the switch.
 * Env PLANDESK_FAILOVER_RESULTS=<file.json> writes the figures (bench/results/failover.json).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient, type AgentClient, type Claim } from "@plandesk/client";
import { DEMO_AGENT_KEY } from "../demo/seed";
import { copyDatabase, createPrimaryAndStandby, removeClusters, type PgClusters } from "../../../testing/pg-clusters";
import { prepareTestDatabase } from "../../../testing/test-support";
import { startTcpSwitch, type TcpSwitch } from "../../../testing/tcp-switch";

/** One answer an instance sent (every attempt, retries included), when it arrived. */
type Answer = { at: number; status: number; code: string | null; retryAfter: string | null };
/** A claim to make and, once made, what the client finally got. */
type Job = { runId: string; stepId: string; digest: string; taskRevision: number; token?: string; status?: number; ackedAt?: number };

const STEPS_PER_RUN = 12;
const RETRY_AFTER_SECONDS = 1;
const WORKERS = 8;

let clusters: PgClusters | undefined;
let address: TcpSwitch | undefined;
const instances: { proc: ChildProcessWithoutNullStreams; origin: string; output: string }[] = [];
let answers: Answer[] = [];
let clients: AgentClient[] = [];
const figures: Record<string, unknown> = {};

/**
 * Starts one app instance on `databaseUrl` and waits until it listens. Everything it prints (its
 * JSON log lines on stdout, anything on stderr) is kept in `output` and read to the end, so a
 * full pipe never blocks the instance.
 */
async function startInstance(databaseUrl: string) {
  const proc = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [path.join(process.cwd(), "testing", "http-instance-child.ts")], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PLANDESK_DB_RETRY_AFTER_SECONDS: String(RETRY_AFTER_SECONDS), PLANDESK_PG_POOL_MAX: "5" },
  });
  const instance = { proc, origin: "", output: "" };
  instances.push(instance);
  return new Promise<typeof instance>((resolve, reject) => {
    const read = (d: Buffer) => {
      instance.output += d;
      const port = /\{"listening":(\d+)\}/.exec(instance.output)?.[1];
      if (port && !instance.origin) {
        instance.origin = `http://127.0.0.1:${port}`;
        resolve(instance);
      }
    };
    proc.stdout.on("data", read);
    proc.stderr.on("data", read);
    proc.once("exit", () => reject(new Error(`instance ended: ${instance.output}`)));
  });
}

/** A fetch recording every answer's status, error code and Retry-After in `answers`. */
const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const body = res.ok ? null : ((await res.clone().json().catch(() => null)) as { error?: { code?: string } } | null);
  answers.push({ at: performance.now(), status: res.status, code: body?.error?.code ?? null, retryAfter: res.headers.get("retry-after") });
  return res;
};

/** Waits until `check` holds (polling every 20 ms, at most `ms`). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Claims every job through the clients (WORKERS at a time, alternating instances); resolves when
 * all answered. Jobs from index `held.from` on wait for `held.until` (the database going away), so
 * whatever the machine's speed some claims are sent while it is away.
 */
async function claimAll(jobs: Job[], held: { from: number; until: Promise<void> }): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = next++; i < jobs.length; i = next++) {
        if (i >= held.from) await held.until;
        const job = jobs[i];
        const res = await clients[(w + i) % clients.length].claimStep(job.runId, job.stepId, { digest: job.digest, taskRevision: job.taskRevision }, { idempotencyKey: `failover-${job.runId}-${job.stepId}` });
        job.status = res.status;
        if (res.ok) {
          job.token = (res.claim as Claim).token;
          job.ackedAt = performance.now();
        }
      }
    }),
  );
}

/** A gate: `until` resolves when `open()` is called. */
function gate(): { until: Promise<void>; open: () => void } {
  let open = () => {};
  const until = new Promise<void>((r) => (open = r));
  return { until, open };
}

/** Counts of answers by class: 2xx, 503 database_unavailable with Retry-After, any other 503, 500, other. */
function tally(list: Answer[]) {
  return {
    requests: list.length,
    answered2xx: list.filter((a) => a.status >= 200 && a.status < 300).length,
    answered503: list.filter((a) => a.status === 503 && a.code === "database_unavailable" && a.retryAfter === String(RETRY_AFTER_SECONDS)).length,
    answered500: list.filter((a) => a.status === 500).length,
    other: list.filter((a) => !(a.status >= 200 && a.status < 300) && !(a.status === 503 && a.code === "database_unavailable" && a.retryAfter === String(RETRY_AFTER_SECONDS))).length,
  };
}

/** Signs the demo's senior agent in through the first instance (better-auth's email sign-in). */
const signInSenior = () =>
  fetch(`${instances[0].origin}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin: process.env.PLANDESK_URL!, "content-type": "application/json" },
    body: JSON.stringify({ email: "senior@plandesk.test", password: "plandesk-demo" }),
  });

/** What the instances logged as unexpected errors (the 500s), for an assertion's message. */
const unexpectedErrors = () => instances.flatMap((i) => i.output.split("\n").filter((l) => l.includes("unexpected error"))).join("\n");

/** The claims stored on the server of `url`, by `runId/stepId`. */
async function storedClaims(url: string): Promise<Map<string, string[]>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const rows = (await c.query<{ runId: string; stepId: string; token: string }>(`SELECT "runId", "stepId", token FROM step_execution`)).rows;
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(`${r.runId}/${r.stepId}`, [...(out.get(`${r.runId}/${r.stepId}`) ?? []), r.token]);
    return out;
  } finally {
    await c.end();
  }
}

let restartJobs: Job[] = [];
let failoverJobs: Job[] = [];
const started = performance.now();

beforeAll(async () => {
  // The instances start (a few seconds of compiling each) while the clusters are made: their
  // address refuses connections until it leads to the primary.
  address = await startTcpSwitch(null);
  const stableUrl = `postgresql://postgres@127.0.0.1:${address.port}/plandesk`;
  const starting = Promise.all([startInstance(stableUrl), startInstance(stableUrl)]);
  clusters = await createPrimaryAndStandby();
  // the migrated, seeded demo desk of this file's test database, copied to the primary
  await prepareTestDatabase();
  await copyDatabase(process.env.DATABASE_URL!, clusters.primary, "plandesk");
  address.switchTo(clusters.primary.port);
  await starting;
  clients = instances.map((i) => createAgentClient({ baseUrl: i.origin, apiKey: DEMO_AGENT_KEY, fetch: recordingFetch, retry: { maxRetries: 60, budgetSeconds: 60 } }));
  expect((await signInSenior()).status, "sign-in with the database up").toBe(200);
  // claimable steps: one run of independent ticket notes (approved by the desk's policy) per task
  const listed = await clients[0].listTasks();
  if (!listed.ok) throw new Error(JSON.stringify(listed));
  const jobs: Job[] = [];
  for (const task of (listed as unknown as { tasks: { id: string; ticketId: string; revision: number }[] }).tasks) {
    const steps = Array.from({ length: STEPS_PER_RUN }, (_, k) => ({ id: `n${k + 1}`, tool: "add_ticket_note", args: { ticketId: task.ticketId, note: `Failover check note ${k + 1}.` }, dependsOn: [] }));
    const sub = await clients[0].submitRun(task.id, { taskRevision: task.revision, steps }, { idempotencyKey: `failover-submit-${task.id}` });
    if (!sub.ok) continue; // a task with a run of its own already
    for (const s of sub.run.steps) jobs.push({ runId: sub.run.id, stepId: s.id, digest: s.digest, taskRevision: task.revision });
    if (jobs.length >= 10 * STEPS_PER_RUN) break;
  }
  expect(jobs.length, "claimable steps prepared").toBeGreaterThanOrEqual(6 * STEPS_PER_RUN);
  restartJobs = jobs.slice(0, jobs.length / 2);
  failoverJobs = jobs.slice(jobs.length / 2);
  figures.setupSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
}, 120_000);

afterAll(async () => {
  for (const i of instances) i.proc.kill("SIGTERM");
  await address?.close();
  await removeClusters(clusters);
  figures.fileSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
  const out = process.env.PLANDESK_FAILOVER_RESULTS;
  if (out) fs.writeFileSync(out, JSON.stringify(figures, null, 2) + "\n");
}, 60_000);

describe("PostgreSQL restart and failover under load", () => {
  it("a restart of the primary: every answer a 2xx or a 503 database_unavailable with Retry-After, never a 500; every claim completes", async () => {
    answers = [];
    const down = gate();
    const load = claimAll(restartJobs, { from: 20, until: down.until });
    await until(() => restartJobs.filter((j) => j.token).length >= 12, "12 claims before the restart");
    // a restart, in its two halves so that claims are sure to be sent while the server is down
    const restartAt = performance.now();
    await clusters!.primary.stop("fast");
    down.open();
    await until(() => answers.some((a) => a.at > restartAt && a.status === 503), "a 503 while the primary is down");
    await clusters!.primary.start();
    const backAt = performance.now();
    await load;
    const during = answers.filter((a) => a.at >= restartAt && a.at <= backAt);
    figures.restart = { claims: restartJobs.length, restartSeconds: Number(((backAt - restartAt) / 1000).toFixed(2)), all: tally(answers), duringRestart: tally(during) };
    expect(tally(answers).answered500, unexpectedErrors()).toBe(0);
    expect(tally(answers).other, JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 503))).toBe(0);
    expect(tally(answers).answered503, "requests met the restart").toBeGreaterThan(0);
    expect(restartJobs.every((j) => j.status === 200 && j.token)).toBe(true);
    const stored = await storedClaims(clusters!.primary.url("plandesk"));
    for (const j of restartJobs) expect(stored.get(`${j.runId}/${j.stepId}`)).toEqual([j.token]);
  }, 60_000);

  it("a failover to the standby: no acknowledged claim lost, none granted twice, 503s with Retry-After in the outage, the retries complete after the switch", async () => {
    const { primary, standby } = clusters!;
    answers = [];
    const down = gate();
    const load = claimAll(failoverJobs, { from: 20, until: down.until });
    await until(() => failoverJobs.filter((j) => j.token).length >= 12, "12 claims before the failure");
    await primary.stop("immediate"); // the address still leads to the dead primary: connections refused
    const killAt = performance.now(); // the primary is gone; every claim acknowledged by now must survive
    down.open();
    const ackedBefore = failoverJobs.filter((j) => j.ackedAt !== undefined && j.ackedAt < killAt).map((j) => ({ ...j }));
    await until(() => answers.some((a) => a.at > killAt && a.status === 503), "a 503 after the kill");
    // a person signing in meanwhile (better-auth's endpoint, outside the route wrapper) is answered alike
    const signIn = await signInSenior();
    expect({ status: signIn.status, retryAfter: signIn.headers.get("retry-after"), code: ((await signIn.json()) as { error?: { code?: string } }).error?.code }).toEqual({
      status: 503,
      retryAfter: String(RETRY_AFTER_SECONDS),
      code: "database_unavailable",
    });
    // the address moves before the standby is promoted: writes reach a read-only server (25006)
    address!.switchTo(standby.port);
    const switchedAt = performance.now();
    await until(() => instances.some((i) => /"reason":"25006"/.test(i.output)), "a write refused by the read-only standby");
    await until(() => answers.some((a) => a.at > switchedAt && a.status === 503), "a 503 from the read-only standby");
    await standby.promote();
    const promotedAt = performance.now();
    await load;
    const outage = answers.filter((a) => a.at > killAt && a.at <= promotedAt);
    const stored = await storedClaims(standby.url("plandesk"));
    const lost = ackedBefore.filter((j) => !(stored.get(`${j.runId}/${j.stepId}`) ?? []).includes(j.token!));
    const duplicated = [...stored.values()].filter((tokens) => tokens.length > 1).length;
    const tokensByStep = new Map(failoverJobs.map((j) => [`${j.runId}/${j.stepId}`, j.token]));
    const mismatched = failoverJobs.filter((j) => (stored.get(`${j.runId}/${j.stepId}`) ?? [])[0] !== tokensByStep.get(`${j.runId}/${j.stepId}`));
    figures.failover = {
      claims: failoverJobs.length,
      acknowledgedBeforeKill: ackedBefore.length,
      outageSeconds: Number(((promotedAt - killAt) / 1000).toFixed(2)),
      all: tally(answers),
      duringOutage: tally(outage),
      acknowledgedLost: lost.length,
      grantedTwice: duplicated + mismatched.length,
      completedAfterPromotion: failoverJobs.filter((j) => j.ackedAt! > promotedAt).length,
      synchronousStandby: true,
    };
    expect(lost).toEqual([]);
    expect(duplicated).toBe(0);
    expect(mismatched).toEqual([]);
    expect(tally(answers).answered500, unexpectedErrors()).toBe(0);
    expect(tally(answers).other, JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 503))).toBe(0);
    expect(tally(outage).answered503).toBeGreaterThan(0);
    expect(outage.every((a) => a.status === 200 || (a.status === 503 && a.code === "database_unavailable" && a.retryAfter !== null))).toBe(true);
    expect(failoverJobs.every((j) => j.status === 200 && j.token)).toBe(true);
    expect(failoverJobs.some((j) => j.ackedAt! > promotedAt), "calls completed by the retries after the switch").toBe(true);
  }, 60_000);
});
