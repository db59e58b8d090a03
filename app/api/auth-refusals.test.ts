/**
 * Refused credentials are counted, not each written to the audit log (issue #45, "refusals
 * beyond a rate are counted"; lib/server/auth/auth-refusals.ts), through the real route handlers
 * on SQLite and PostgreSQL: a revoked key, a key of the wrong kind, an integration key on the
 * agent API, an agent key on the console API. Each is counted per (minute, key or person, route,
 * code) in `refusal_count`, audited once a minute as `denied`, and a client address past its
 * refused-credential rate is answered 429 with Retry-After — valid keys from the same address
 * and other addresses unaffected.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as getTaskRoute } from "@/app/api/v1/tasks/[taskId]/route";
import { GET as getRecordRoute } from "@/app/api/v1/records/[kind]/[id]/route";
import { GET as listRunsRoute } from "@/app/api/runs/route";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { CLIENT_IP_HEADER } from "@/lib/net/client-address.mjs";
import { routeCtx, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

type Json = Record<string, any>;
const LIMIT_VARS = ["PLANDESK_AUTH_FAILURE_BURST", "PLANDESK_AUTH_FAILURE_RATE"] as const;
const saved = Object.fromEntries(LIMIT_VARS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of LIMIT_VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** A request with `key` as its Bearer credential from client address `address`. */
function keyed(path: string, key: string, address = "203.0.113.7"): Request {
  return new Request(`${TEST_ORIGIN}${path}`, { headers: { accept: "application/json", authorization: `Bearer ${key}`, [CLIENT_IP_HEADER]: address } });
}
const getTask = (key: string, address?: string) => getTaskRoute(keyed("/api/v1/tasks/task_75006", key, address), routeCtx({ taskId: "task_75006" }));
const getRecord = (key: string, address?: string) => getRecordRoute(keyed("/api/v1/records/account/cus_nobody", key, address), routeCtx({ kind: "account", id: "cus_nobody" }));
const listRuns = (key: string, address?: string) => listRunsRoute(keyed("/api/runs", key, address));

/** A new agent of the default desk with a key (plain text returned); `revoked` revokes the key. */
async function newAgentKey(name: string, revoked = false): Promise<{ agentId: string; keyId: string; key: string }> {
  const agentId = `agent_ar_${name}`;
  const key = `pd_ar_${name}_key`;
  await prisma.agent.create({ data: { id: agentId, name: `Refusal ${name} agent`, allowedTools: ["add_ticket_note"] } });
  await prisma.apiKey.create({ data: { id: `key_ar_${name}`, agentId, hash: hashApiKey(key), prefix: key.slice(0, 8), revokedAt: revoked ? new Date() : null } });
  return { agentId, keyId: `key_ar_${name}`, key };
}

/** A new integration key of the freight desk (plain text returned); `revoked` revokes it. */
async function newIntegrationKey(name: string, revoked = false): Promise<{ id: string; key: string }> {
  const id = `ik_ar_${name}`;
  const key = `pdi_ar_${name}_key`;
  await prisma.integrationKey.create({ data: { id, name: `Refusal ${name}`, hash: hashApiKey(key), prefix: key.slice(0, 8), desk: "freight", revokedAt: revoked ? new Date() : null } });
  return { id, key };
}

const lastSeq = async () => (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
const countOf = async (address: string, code?: string) =>
  (await prisma.refusalCount.findMany({ where: { address, ...(code ? { code } : {}) } })).reduce((n, r) => n + r.count, 0);

/** Waits until at least `secondsLeft` seconds remain in the UTC minute, so a burst of refusals falls in one minute. */
async function roomInMinute(secondsLeft: number): Promise<void> {
  while (60 - new Date().getUTCSeconds() < secondsLeft) await new Promise((r) => setTimeout(r, 250));
}

/** Sends `n` requests made by `send`, 50 at a time; returns their statuses. */
async function flood(n: number, send: () => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < n; sent += 50) {
    const answers = await Promise.all(Array.from({ length: Math.min(50, n - sent) }, send));
    for (const a of answers) {
      statuses.push(a.status);
      await a.body?.cancel();
    }
  }
  return statuses;
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("a revoked key replayed in a loop", () => {
  it("1,000 requests with a revoked agent key: every answer 401 unauthorized, one denied event naming the agent, a count of 1,000; another key unaffected", { timeout: 300_000 }, async () => {
    const revoked = await newAgentKey("revoked", true);
    const valid = await newAgentKey("valid");
    await roomInMinute(30);
    const since = await lastSeq();
    const FLOOD = 1000;
    const statuses = await flood(FLOOD, () => getTask(revoked.key));
    expect(statuses.filter((s) => s === 401)).toHaveLength(FLOOD);

    const last = await getTask(revoked.key);
    const body = (await last.json()) as Json;
    expect({ status: last.status, code: body.error.code, message: body.error.message }).toEqual({ status: 401, code: "unauthorized", message: "This API key is unknown or revoked." });

    const identity = `agent-key:${revoked.keyId}`;
    const rows = await prisma.refusalCount.findMany({ where: { address: identity } });
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(FLOOD + 1);
    for (const row of rows) expect(row).toMatchObject({ route: "GET /api/v1/tasks/{taskId}", code: "unauthorized", missing: "agent_key" });
    // the key's text appears nowhere, not even its prefix
    expect(JSON.stringify(rows)).not.toContain("pd_ar_revoked");

    // one denied event per minute the flood touched (one, unless the machine took over 30 s)
    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: since } }, orderBy: { seq: "asc" } });
    const minutes = new Set(rows.map((r) => r.minute.toISOString()));
    expect(minutes.size).toBeLessThanOrEqual(2);
    expect(events).toHaveLength(minutes.size);
    expect(events[0]).toMatchObject({ type: "denied", actorKind: "agent", actorId: revoked.agentId, runId: null });
    expect(events[0].data).toMatchObject({ code: "unauthorized", credential: "revoked_key", keyId: revoked.keyId, missing: { kind: "agent_key" }, repeatsCounted: true });
    expect(JSON.stringify(events[0].data)).not.toContain("pd_ar_revoked");

    // a valid key — from the same address — is answered as usual
    expect((await getTask(valid.key)).status).toBe(200);
  });

  it("a revoked integration key on the records door: 401 each time, one denied event naming the integration, the rest counted", async () => {
    const revoked = await newIntegrationKey("revoked", true);
    await roomInMinute(20);
    const since = await lastSeq();
    const statuses = await flood(100, () => getRecord(revoked.key));
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(await countOf(`integration-key:${revoked.id}`, "unauthorized")).toBe(100);
    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: since } } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "denied", actorKind: "integration", actorId: revoked.id });
    expect(events[0].data).toMatchObject({ credential: "revoked_key", keyId: revoked.id, repeatsCounted: true });
  });
});

describe("a valid key on the wrong API", () => {
  it("an integration key on the agent API and an agent key on the console API: the key's 401, counted per key and route, audited once a minute each", async () => {
    const integration = await newIntegrationKey("on-agent-api");
    const agent = await newAgentKey("on-console");
    await roomInMinute(20);
    const since = await lastSeq();
    expect((await flood(60, () => getTask(integration.key))).every((s) => s === 401)).toBe(true);
    expect((await flood(60, () => listRuns(agent.key))).every((s) => s === 401)).toBe(true);

    expect(await countOf(`integration-key:${integration.id}`, "unauthorized")).toBe(60);
    expect(await countOf(`agent-key:${agent.keyId}`, "unauthorized")).toBe(60);
    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: since } }, orderBy: { seq: "asc" } });
    expect(events.map((e) => [e.type, e.actorKind, e.actorId])).toEqual(
      expect.arrayContaining([
        ["denied", "integration", integration.id],
        ["denied", "agent", agent.agentId],
      ]),
    );
    expect(events).toHaveLength(2);
    expect(events.find((e) => e.actorKind === "integration")!.data).toMatchObject({ credential: "integration_key", keyId: integration.id, missing: { kind: "agent_key" } });
    expect(events.find((e) => e.actorKind === "agent")!.data).toMatchObject({ credential: "agent_key", keyId: agent.keyId, missing: { kind: "person" } });

    // the integration key itself still works where it belongs (its own API) — a 404 for a record it does not hold
    expect((await getRecord(integration.key)).status).toBe(404);
  });
});

describe("a client address past its refused-credential rate", () => {
  it("is answered 429 rate_limited with Retry-After (counted, not audited); valid keys from that address and other addresses are unaffected", async () => {
    process.env.PLANDESK_AUTH_FAILURE_BURST = "5";
    process.env.PLANDESK_AUTH_FAILURE_RATE = "0.01";
    const revoked = await newAgentKey("rate", true);
    const valid = await newAgentKey("rate-valid");
    const address = "198.51.100.23";
    await roomInMinute(20);
    const since = await lastSeq();

    const first = await flood(5, () => getTask(revoked.key, address));
    expect(first).toEqual([401, 401, 401, 401, 401]);
    for (let i = 0; i < 20; i++) {
      const res = await getTask(revoked.key, address);
      const body = (await res.json()) as Json;
      expect({ status: res.status, code: body.error.code }).toEqual({ status: 429, code: "rate_limited" });
      const header = res.headers.get("retry-after") ?? "";
      expect(header).toMatch(/^[1-9]\d*$/);
      expect(body.error.retryAfterSeconds).toBe(Number(header));
      expect(body.error.message).toMatch(/^Too many refused credentials from this address: at most 5 at once, then 0\.01 per second\. Try again in \d+ s\.$/);
    }
    // a random unknown key from the same address is refused the same way (it is the address that is limited)
    expect((await getTask("pd_never_issued_key", address)).status).toBe(429);

    // a valid key from the same address, and the revoked key from another address
    expect((await getTask(valid.key, address)).status).toBe(200);
    expect((await getTask(revoked.key, "198.51.100.99")).status).toBe(401);

    const identity = `agent-key:${revoked.keyId}`;
    expect(await countOf(identity, "unauthorized")).toBe(6);
    expect(await countOf(identity, "rate_limited")).toBe(20);
    expect(await countOf(address, "rate_limited")).toBe(1); // the unknown key: nobody's, counted under the address
    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: since } } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "denied", actorKind: "agent", actorId: revoked.agentId });
    expect(events[0].data).toMatchObject({ code: "unauthorized" });
  });
});
