/**
 * Several instances on one PostgreSQL database, over HTTP: two production
 * servers (scripts/server.mjs, what `npm start` serves) on their own ports share one freshly
 * migrated and seeded PostgreSQL database, one BETTER_AUTH_SECRET and one PLANDESK_URL, as behind
 * a load balancer. Claims, edits and approvals race across them (exactly one winner each round,
 * every loser a typed 409), a session made on one instance works on the other, and both
 * instances' background deadline sweeps run at once (each run escalated and expired exactly once).
 * The same races through the service functions, on both databases: lib/server/runs/instances.test.ts.
 */
import { expect, test } from "@playwright/test";
import pg from "pg";
import { dropPgTestDatabase } from "../testing/test-databases";
import { freePort, freshSeededPgDatabase, signInCookieAt, startAppInstance, stopAppInstance, type AppInstance } from "../testing/app-instances";

const AGENT = { authorization: "Bearer pd_demo_agent_key", "content-type": "application/json" };
const SWEEP_SECONDS = 2;
/** The instances' metrics token: the spec reads each one's count of deadline-sweep passes. */
const METRICS_TOKEN = "instances-spec-metrics-token-0123456789";

/** The deadline-sweep passes `instance` has ended so far (`plandesk_background_passes_total`). */
async function sweepPasses(instance: AppInstance): Promise<number> {
  const res = await fetch(`${instance.origin}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const line = (await res.text()).split("\n").find((l) => l.startsWith("plandesk_background_passes_total{") && l.includes('loop="deadline_sweep"') && l.includes('result="ok"'));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}
const EXPIRES_IN_SECONDS = 60; // the shortest life policy allows (escalation at 45 s)

let databaseUrl = "";
let instances: AppInstance[] = [];
let seniorCookie = "";
let sweptRunIds: string[] = [];
/** The last audit event written by the seed: everything after it happened while the instances served. */
let seqBeforeServing = 0;

async function lastAuditSeq(): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return Number((await c.query("SELECT coalesce(max(seq), 0) AS n FROM audit_event")).rows[0].n);
  } finally {
    await c.end();
  }
}

/** The run's status as stored (no request to an instance, so nothing is persisted by reading it). */
async function storedStatus(runId: string): Promise<string> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return String((await c.query("SELECT status FROM run WHERE id = $1", [runId])).rows[0]?.status);
  } finally {
    await c.end();
  }
}

type Answer = { status: number; body: { error?: { code: string } } & Record<string, unknown> };

async function call(instance: AppInstance, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(`${instance.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const asSenior = () => ({ cookie: seniorCookie, origin: instances[0].publicOrigin, "content-type": "application/json" });

/** Submits a run through the agent API of instance `i`; returns its id and steps. */
async function submit(i: number, ticketId: string, steps: unknown[], expiresInSeconds?: number) {
  const task = await call(instances[i], "GET", `/api/v1/tasks/task_${ticketId}`, AGENT);
  const res = await call(instances[i], "POST", `/api/v1/tasks/task_${ticketId}/runs`, AGENT, {
    taskRevision: (task.body.task as { revision: number }).revision,
    steps,
    ...(expiresInSeconds ? { expiresInSeconds } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.run as { id: string; boundTaskRevision: number; steps: { id: string; digest: string }[] };
}

/** Fires every request at once; exactly one answers `winStatus`, every other a 409 with one of `losers`. */
function expectOneWinner(answers: Answer[], winStatus: number, losers: string[]) {
  const winners = answers.filter((a) => a.status === winStatus);
  expect(winners, JSON.stringify(answers.map((a) => [a.status, a.body.error?.code]))).toHaveLength(1);
  for (const a of answers.filter((x) => x !== winners[0])) {
    expect(a.status).toBe(409);
    expect(losers).toContain(a.body.error?.code);
  }
  return winners[0];
}

const gatedPlan = (ticketId: string) => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer asked for an update." } },
  { id: "s2", tool: "send_reply", args: { ticketId, body: "Thanks for your patience; we are looking into it and will write again." } },
];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  databaseUrl = await freshSeededPgDatabase();
  seqBeforeServing = await lastAuditSeq();
  const [a, b, lb] = [await freePort(), await freePort(), await freePort()];
  const publicOrigin = `http://localhost:${lb}`; // the load balancer's origin, shared by both
  instances = await Promise.all(
    [a, b].map((port) => startAppInstance({ databaseUrl, port, publicOrigin, env: { PLANDESK_SWEEP_SECONDS: String(SWEEP_SECONDS), PLANDESK_PG_POOL_MAX: "4", PLANDESK_METRICS_TOKEN: METRICS_TOKEN } })),
  );
  seniorCookie = await signInCookieAt(instances[0], "senior@plandesk.test");
  // Runs for the sweep, submitted first so their deadlines pass while the races run.
  sweptRunIds = [];
  for (const [k, t] of ["75006", "75007", "75008"].entries()) sweptRunIds.push((await submit(k % 2, t, gatedPlan(t), EXPIRES_IN_SECONDS)).id);
});

test.afterAll(async () => {
  await Promise.all(instances.map((i) => stopAppInstance(i)));
  if (databaseUrl) await dropPgTestDatabase(databaseUrl);
});

test("a session signed in on one instance is honoured by the other", async () => {
  for (const i of instances) expect((await call(i, "GET", "/api/runs?status=pending_review", asSenior())).status).toBe(200);
});

test("claims: eight claims of one step across both instances, one token, seven already_claimed", async () => {
  const run = await submit(0, "75002", [
    { id: "s1", tool: "add_ticket_note", args: { ticketId: "75002", note: "Customer called about the delivery." } },
    { id: "s2", tool: "add_ticket_note", args: { ticketId: "75002", note: "Followed up." }, dependsOn: [] },
  ]);
  const step = run.steps.find((s) => s.id === "s1")!;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, k) =>
      call(instances[k % 2], "POST", `/api/v1/runs/${run.id}/steps/s1/claim`, { ...AGENT, "idempotency-key": `claim-${k}` }, { digest: step.digest, taskRevision: run.boundTaskRevision }),
    ),
  );
  const winner = expectOneWinner(answers, 200, ["already_claimed"]);
  expect((winner.body.claim as { stepId: string }).stepId).toBe("s1");
});

test("edits: four edits from version 1 across both instances make one version 2, the rest stale_plan_version", async () => {
  const run = await submit(1, "75004", gatedPlan("75004"));
  const details = await call(instances[0], "GET", `/api/runs/${run.id}`, asSenior());
  const steps = (details.body.run as { steps: { id: string; tool: string; args: Record<string, unknown> }[] }).steps.map(({ id, tool, args }) => ({ id, tool, args }));
  const variant = (n: number) => steps.map((s) => (s.id === "s1" ? { ...s, args: { ...s.args, note: `Edited on instance, variant ${n}.` } } : s));
  const answers = await Promise.all([1, 2, 3, 4].map((n) => call(instances[n % 2], "POST", `/api/runs/${run.id}/edits`, asSenior(), { baseVersion: 1, steps: variant(n) })));
  const winner = expectOneWinner(answers, 201, ["stale_plan_version"]);
  expect((winner.body.planVersion as { version: number }).version).toBe(2);
  const after = await call(instances[1], "GET", `/api/v1/runs/${run.id}`, AGENT);
  expect((after.body.run as { planVersion: number }).planVersion).toBe(2);
});

test("approvals: six approvals of one step across both instances write one approval and one audit event", async () => {
  const run = await submit(0, "75005", gatedPlan("75005"));
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, k) => call(instances[k % 2], "POST", `/api/runs/${run.id}/approvals`, asSenior(), { planVersion: 1, stepIds: ["s2"], idempotencyKey: `approve-${k}` })),
  );
  // Approving a step already approved is not a refusal (the answer shows the approval in force).
  for (const a of answers) expect([200, 201, 409], JSON.stringify(a.body)).toContain(a.status);
  expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1);
  const audit = await call(instances[1], "GET", `/api/runs/${run.id}/audit`, asSenior());
  const events = audit.body.events as { type: string; actor?: { kind?: string } }[];
  expect(events.filter((e) => e.type === "approved" && e.actor?.kind === "user")).toHaveLength(1);
  const after = await call(instances[1], "GET", `/api/v1/runs/${run.id}`, AGENT);
  const view = after.body.run as { status: string; steps: { id: string; approval: { state: string; approverId: string | null } | null }[] };
  expect(view.status).toBe("approved");
  expect(view.steps.find((s) => s.id === "s2")!.approval).toMatchObject({ state: "active", approverId: "usr_senior" });
});

test("both instances' deadline sweeps escalate and expire each run exactly once", async () => {
  test.setTimeout(150_000);
  // Polled in the database, not through GET /api/v1/runs/{id}: that read persists an expiry it
  // notices itself (expireIfDue), which would be an expiry no sweeper made or reported.
  for (const id of sweptRunIds) {
    await expect.poll(() => storedStatus(id), { timeout: 120_000, intervals: [2_000] }).toBe("expired");
  }
  // Two more sweeps on both instances after every run expired: still one of each.
  const passes = await Promise.all(instances.map(sweepPasses));
  for (const [k, i] of instances.entries()) {
    await expect.poll(() => sweepPasses(i), { timeout: 60_000, message: `two more sweeps on instance ${k}` }).toBeGreaterThanOrEqual(passes[k] + 2);
  }
  for (const id of sweptRunIds) {
    const audit = await call(instances[1], "GET", `/api/runs/${id}/audit`, asSenior());
    const types = (audit.body.events as { type: string }[]).map((e) => e.type);
    expect(types.filter((t) => t === "escalated"), id).toHaveLength(1);
    expect(types.filter((t) => t === "expired"), id).toHaveLength(1);
  }
  // What the two sweepers say they did adds up to the escalations and expiries recorded (of these
  // runs and of any demo run that came due meanwhile): no transition was counted by both.
  const said = (what: "escalated" | "expired") =>
    instances.reduce((sum, i) => sum + [...i.output().matchAll(new RegExp(`deadline sweep escalated (\\d+), expired (\\d+)`, "g"))].reduce((s, m) => s + Number(m[what === "escalated" ? 1 : 2]), 0), 0);
  const recorded = async (type: string) => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return Number((await c.query(`SELECT count(*) AS n FROM audit_event WHERE type = $1 AND "actorKind" = 'system' AND seq > $2`, [type, seqBeforeServing])).rows[0].n);
    } finally {
      await c.end();
    }
  };
  expect(said("escalated")).toBe(await recorded("escalated"));
  expect(said("expired")).toBe(await recorded("expired"));
  expect(said("expired")).toBeGreaterThanOrEqual(sweptRunIds.length);
  for (const i of instances) expect(i.output()).not.toContain("deadline sweep failed");
});
