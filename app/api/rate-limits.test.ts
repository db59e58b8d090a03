/**
 * Per-key and per-person rate limits on every API (docs/security.md "Per-key and per-person rate
 * limits"), through the real route handlers with real keys and sessions, on
 * SQLite and PostgreSQL, with small limits set here (PLANDESK_AGENT_RATE / _BURST,
 * PLANDESK_INTEGRATION_RATE / _BURST, PLANDESK_PERSON_RATE / _BURST are read on every request).
 * The red-team finding re-measured: a key's flood past its rate is answered 429 with Retry-After,
 * reads and saves nothing, and grows a count, not the append-only audit log.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as getTaskRoute } from "@/app/api/v1/tasks/[taskId]/route";
import { POST as submitRoute } from "@/app/api/v1/tasks/[taskId]/runs/route";
import { POST as batchRoute } from "@/app/api/v1/records/batch/route";
import { GET as listRunsRoute } from "@/app/api/runs/route";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { loadViewer } from "@/lib/server/auth/session";
import { listDenials } from "@/lib/server/audit/list-denials";
import { prisma } from "@/lib/server/db/db";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

type Json = Record<string, any>;
const LIMIT_VARS = ["PLANDESK_AGENT_RATE", "PLANDESK_AGENT_BURST", "PLANDESK_INTEGRATION_RATE", "PLANDESK_INTEGRATION_BURST", "PLANDESK_PERSON_RATE", "PLANDESK_PERSON_BURST"] as const;
const saved = Object.fromEntries(LIMIT_VARS.map((k) => [k, process.env[k]]));

/** Sets the limits for this test (the rest keep the suite's); undone after each test. */
function limits(vars: Partial<Record<(typeof LIMIT_VARS)[number], string>>) {
  Object.assign(process.env, vars);
}
afterEach(() => {
  for (const k of LIMIT_VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** A new agent of the freight desk with its own key (plain text returned). */
async function newAgent(name: string, allowedTools: string[] = ["add_ticket_note"]): Promise<{ id: string; keyId: string; key: string }> {
  const id = `agent_rl_${name}`;
  const key = `pd_rl_${name}_key`;
  await prisma.agent.create({ data: { id, name: `Rate ${name} agent`, allowedTools } });
  await prisma.apiKey.create({ data: { id: `key_rl_${name}`, agentId: id, hash: hashApiKey(key), prefix: key.slice(0, 8) } });
  return { id, keyId: `key_rl_${name}`, key };
}

const getTask = (key: string) => getTaskRoute(apiRequest("GET", "/api/v1/tasks/task_75006", { key }), routeCtx({ taskId: "task_75006" }));

async function submit(key: string, note: string, idempotencyKey?: string, rawBody?: string): Promise<Response> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75006" } });
  const body = rawBody ?? JSON.stringify({ taskRevision: task.revision, steps: [{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "75006", note } }] });
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  return submitRoute(new Request(`${TEST_ORIGIN}/api/v1/tasks/task_75006/runs`, { method: "POST", headers, body }), routeCtx({ taskId: "task_75006" }));
}

/** A submission the agent may not make (send_reply is not on its allowlist): refused 422 and audited when it gets through. */
async function refusedWrite(key: string, revision: number): Promise<Response> {
  const steps = [{ id: "s_reply", tool: "send_reply", args: { ticketId: "75007", body: "Thanks for getting in touch; we are looking into it." }, rationale: "The customer asked." }];
  return submitRoute(
    new Request(`${TEST_ORIGIN}/api/v1/tasks/task_75007/runs`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ taskRevision: revision, steps }) }),
    routeCtx({ taskId: "task_75007" }),
  );
}

/** Asserts a 429 rate_limited answer with a Retry-After of whole seconds (≥ 1, at most `max`) equal to the body's; returns the seconds. */
async function expectRateLimited(res: Response, max: number): Promise<number> {
  const body = (await res.json()) as Json;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status: 429, code: "rate_limited" });
  const header = res.headers.get("retry-after") ?? "";
  expect(header).toMatch(/^[1-9]\d*$/);
  expect(Number(header)).toBeLessThanOrEqual(max);
  expect(body.error.retryAfterSeconds).toBe(Number(header));
  expect(body.error.message).toMatch(/^Too many requests: at most \d+ requests? at once, then .+ per second per (agent key|integration key|person)\. Try again in \d+ s\.$/);
  return Number(header);
}

const lastSeq = async () => (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("per-key rate limits on the agent API", () => {
  it("61 requests at once with burst 60: exactly one is refused 429 rate_limited with Retry-After; another key and a person are unaffected", async () => {
    // 0.01 tokens per second: nothing comes back while the 61 are answered
    limits({ PLANDESK_AGENT_BURST: "60", PLANDESK_AGENT_RATE: "0.01" });
    const a = await newAgent("burst");
    const answers = await Promise.all(Array.from({ length: 61 }, () => getTask(a.key)));
    const refused = answers.filter((r) => r.status !== 200);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(60);
    expect(refused).toHaveLength(1);
    await expectRateLimited(refused[0], 100);
    expect((await getTask(a.key)).status).toBe(429);

    const b = await newAgent("other");
    expect((await getTask(b.key)).status).toBe(200);
    const cookie = await signInCookie("supervisor@plandesk.test");
    expect((await listRunsRoute(apiRequest("GET", "/api/runs", { cookie }))).status).toBe(200);
  });

  it("a refused request reads and saves nothing: a malformed body is not even parsed, and its Idempotency-Key stays free", async () => {
    limits({ PLANDESK_AGENT_BURST: "1", PLANDESK_AGENT_RATE: "0.01" });
    const a = await newAgent("idem");
    expect((await getTask(a.key)).status).toBe(200); // the one token
    const runsBefore = await prisma.run.count({ where: { agentId: a.id } });
    await expectRateLimited(await submit(a.key, "First try.", "rl-idem-1"), 100);
    await expectRateLimited(await submit(a.key, "", undefined, "{not json"), 100);
    expect(await prisma.run.count({ where: { agentId: a.id } })).toBe(runsBefore);
    expect(await prisma.idempotencyRecord.count({ where: { key: { contains: "rl-idem-1" } } })).toBe(0);

    // the bucket refills: the same key with ANOTHER body is a first request (not idempotency_conflict), saved once
    limits({ PLANDESK_AGENT_RATE: "1000000" });
    const passed = await submit(a.key, "Second try, another body.", "rl-idem-1");
    expect(passed.status, await passed.clone().text()).toBe(201);
    const replay = await submit(a.key, "Second try, another body.", "rl-idem-1");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await prisma.run.count({ where: { agentId: a.id } })).toBe(runsBefore + 1);
    expect(await prisma.idempotencyRecord.count({ where: { key: { contains: "rl-idem-1" } } })).toBe(1);
  });

  it("the records door takes one token per request, not per line", async () => {
    limits({ PLANDESK_INTEGRATION_BURST: "2", PLANDESK_INTEGRATION_RATE: "0.01" });
    const key = "pd_rl_records_key";
    await prisma.integrationKey.create({ data: { id: "ik_rl_records", name: "Rate ERP", hash: hashApiKey(key), prefix: key.slice(0, 8), desk: "freight" } });
    const lines = (batch: number) =>
      Array.from({ length: 5 }, (_, i) => JSON.stringify({ kind: "account", id: `acc_rl_${batch}_${i}`, name: `Rate ${batch}.${i}`, sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" })).join("\n") + "\n";
    const batch = (n: number) =>
      batchRoute(new Request(`${TEST_ORIGIN}/api/v1/records/batch`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" }, body: lines(n), duplex: "half" } as RequestInit));
    for (const n of [1, 2]) {
      const res = await batch(n);
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.json()).applied).toBe(5);
    }
    await expectRateLimited(await batch(3), 100);
    expect(await prisma.customerAccount.count({ where: { id: { startsWith: "acc_rl_" } } })).toBe(10);
    // the agent keys' limits are their own
    expect((await getTask((await newAgent("beside-records")).key)).status).toBe(200);
  });
});

describe("per-person rate limits on the console API", () => {
  it("beyond a person's burst their requests are refused 429 with Retry-After; another person is unaffected; /denials names the person once", async () => {
    limits({ PLANDESK_PERSON_BURST: "3", PLANDESK_PERSON_RATE: "0.01" });
    const operator = await signInCookie("operator@plandesk.test");
    const senior = await signInCookie("senior@plandesk.test");
    const operatorId = (await prisma.user.findUniqueOrThrow({ where: { email: "operator@plandesk.test" } })).id;
    const since = await lastSeq();
    const list = (cookie: string) => listRunsRoute(apiRequest("GET", "/api/runs", { cookie }));
    for (let i = 0; i < 3; i++) expect((await list(operator)).status).toBe(200);
    await expectRateLimited(await list(operator), 100);
    await expectRateLimited(await list(operator), 100);
    expect((await list(senior)).status).toBe(200);

    const denied = await prisma.auditEvent.findMany({ where: { type: "denied", seq: { gt: since } } });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "user", actorId: operatorId, runId: null });
    expect(denied[0].data).toMatchObject({ action: "rate", code: "rate_limited", bucket: `person:${operatorId}`, route: "GET /api/runs", burst: 3, ratePerSecond: 0.01 });
    const counted = await prisma.refusalCount.findMany({ where: { address: `person:${operatorId}` } });
    expect(counted.reduce((n, r) => n + r.count, 0)).toBe(2);
    expect(counted[0]).toMatchObject({ route: "GET /api/runs", code: "rate_limited", missing: "rate", origin: null });
  });
});

describe("refusals beyond the rate are counted, not audited one by one", () => {
  it("1,000 refused writes of a limited key: one denied event a minute naming the agent, a count of 1,000, no refused event each", { timeout: 300_000 }, async () => {
    limits({ PLANDESK_AGENT_BURST: "1", PLANDESK_AGENT_RATE: "0.001" });
    const a = await newAgent("flood");
    const supervisor = (await loadViewer("usr_supervisor"))!;

    // below the rate a refused write is audited on its own: what 1,000 of them did before
    const before = await lastSeq();
    const { revision } = await prisma.task.findUniqueOrThrow({ where: { id: "task_75007" } });
    const first = await refusedWrite(a.key, revision);
    expect(first.status, await first.clone().text()).toBe(422);
    expect(await prisma.auditEvent.count({ where: { seq: { gt: before }, actorKind: "agent", actorId: a.id, type: "submission_refused" } })).toBe(1);
    const bucketAfterToken = await prisma.rateBucket.findUniqueOrThrow({ where: { key: `agent-key:${a.keyId}` } });

    // start with at least 30 s left in the UTC minute, so the flood (6–15 s here) falls in one
    while (new Date().getUTCSeconds() > 30) await new Promise((r) => setTimeout(r, 250));
    const since = await lastSeq();
    const FLOOD = 1000;
    const statuses: number[] = [];
    for (let sent = 0; sent < FLOOD; sent += 50) {
      const answers = await Promise.all(Array.from({ length: Math.min(50, FLOOD - sent) }, () => refusedWrite(a.key, revision)));
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(FLOOD);

    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: since } } });
    const counted = await prisma.refusalCount.findMany({ where: { address: `agent-key:${a.keyId}` } });
    expect(counted.reduce((n, r) => n + r.count, 0)).toBe(FLOOD);
    for (const row of counted) expect(row).toMatchObject({ route: "POST /api/v1/tasks/{taskId}/runs", code: "rate_limited", missing: "rate" });
    // one denied event per minute the flood touched (one, unless the machine took over 30 s), nothing else
    const minutes = new Set(counted.map((r) => r.minute.toISOString()));
    expect(minutes.size).toBeLessThanOrEqual(2);
    expect(events.filter((e) => e.actorId === a.id)).toHaveLength(minutes.size);
    expect(events.every((e) => e.type === "denied" && e.actorKind === "agent" && e.actorId === a.id && e.runId === null)).toBe(true);
    expect(events[0].data).toMatchObject({ action: "rate", code: "rate_limited", keyId: a.keyId, bucket: `agent-key:${a.keyId}`, route: "POST /api/v1/tasks/{taskId}/runs", retryAfterSeconds: expect.any(Number) });

    // refusals take nothing: the bucket is as the last admitted request left it
    const bucket = await prisma.rateBucket.findUniqueOrThrow({ where: { key: `agent-key:${a.keyId}` } });
    expect({ tokens: bucket.tokens, refilledAt: bucket.refilledAt }).toEqual({ tokens: bucketAfterToken.tokens, refilledAt: bucketAfterToken.refilledAt });

    // /denials names the agent
    const { rows } = await listDenials(supervisor, { limit: 20 });
    const row = rows.find((r) => r.actor.id === a.id);
    expect(row).toMatchObject({ action: "rate", code: "rate_limited", actor: { kind: "agent", name: "agent Rate flood agent" } });
    expect(row!.missing).toContain("at most 1 request at once, then 0.001 per second per agent key");
  });
});
