/**
 * Plandesk in front of the tools (docs/design.md "MCP gateway"), end to end on SQLite and
 * PostgreSQL: the shipped carrier MCP server is the desk's upstream over stdio (its own call log
 * proves what it received), an MCP SDK client is the agent on `/api/mcp` (the route handler, with
 * the agent's API key). tools/list shows the desk's allowed upstream tools; a read is forwarded and
 * recorded; a write becomes a pending run; an operator's edit then approval makes the upstream
 * receive exactly the edited arguments, once, with the step's idempotency key, even with two
 * executor instances; a rejected run never reaches it; a lost answer is `unknown` and never called
 * again. No credential appears in any answer or audit event.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log, setLogSink } from "@/lib/net/log.mjs";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { startHttpCarrier } from "@/testing/http-carrier";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as mcpPost } from "./route";
import { POST as registerServer } from "../admin/desks/[deskId]/mcp-servers/route";
import { POST as importServer } from "../admin/desks/[deskId]/mcp-servers/[upstreamId]/import/route";
import { POST as editRun } from "../runs/[runId]/edits/route";
import { POST as approveRun } from "../runs/[runId]/approvals/route";
import { POST as rejectRun } from "../runs/[runId]/rejections/route";
import { GET as getAgentRun } from "../v1/runs/[runId]/route";
import { POST as reviseTask } from "../v1/tasks/[taskId]/revisions/route";

type Json = Record<string, any>;

const TOKEN = "gateway-test-token-5e4d3c2b1a09";
let workDir: string;
let admin: string;
let operator: string;
const answers: string[] = [];
const consoleLines: string[] = [];
const CARRIER = ["--import", "tsx", "examples/carrier-mcp/server.ts"];

const callLog = (file = "calls.jsonl") => {
  const p = path.join(workDir, file);
  return existsSync(p) ? readFileSync(p, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : [];
};

/** An MCP SDK client speaking to the /api/mcp route handler with `key` (other methods: 405, as Next answers them). */
async function agentClient(key = DEMO_AGENT_KEY): Promise<Client> {
  const client = new Client({ name: "gateway-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${TEST_ORIGIN}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (url, init) => {
      const req = new Request(url, init);
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const res = await mcpPost(req);
      const text = await res.clone().text();
      answers.push(text);
      return res;
    },
  });
  await client.connect(transport);
  return client;
}

const session = (method: string, url: string, body: unknown, cookie: string) => apiRequest(method, url, { cookie, origin: TEST_ORIGIN }, body);
async function call(res: Promise<Response>): Promise<{ status: number; body: Json }> {
  const r = await res;
  const text = await r.text();
  answers.push(text);
  return { status: r.status, body: text ? JSON.parse(text) : {} };
}
const agentRun = async (runId: string) => (await call(getAgentRun(apiRequest("GET", `/api/v1/runs/${runId}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId })))).body.run as Json;
/** Every gateway run of this file: an approval acknowledges those still being executed (an `unknown` outcome), as a person does. */
const runIds: string[] = [];
const approve = (runId: string, planVersion: number, cookie = operator) =>
  call(approveRun(session("POST", `/api/runs/${runId}/approvals`, { planVersion, stepIds: "all", idempotencyKey: `approve-${runId}-${planVersion}`, acknowledgedConcurrentRuns: runIds.filter((r) => r !== runId) }, cookie), routeCtx({ runId })));

const task = async () => prisma.task.findUniqueOrThrow({ where: { id: "task_74991" } });

/** Books a redelivery through the gateway for task_74991 and returns the structured answer. */
async function bookThroughGateway(client: Client, args: Json, meta: Json = {}): Promise<{ result: Json; answer: Json }> {
  const result = (await client.callTool({ name: "book_redelivery", arguments: args, _meta: { "plandesk/taskId": "task_74991", ...meta } })) as Json;
  const answer = result.structuredContent as Json;
  if (answer?.runId) runIds.push(answer.runId);
  return { result, answer };
}

/** A book_redelivery for task_74991 through the gateway by the demo agent on a connection of its own: the held write's answer. */
async function booked(args: { shipmentId: string; date: string }): Promise<Json> {
  const client = await agentClient();
  try {
    return (await bookThroughGateway(client, args)).answer;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  // the server's JSON log lines (lib/net/log.mjs), every level, are read like console lines
  log.level = "debug";
  setLogSink((line) => {
    consoleLines.push(line);
    process.stdout.write(line);
  });
  for (const m of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[m].bind(console);
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      consoleLines.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      original(...args);
    });
  }
  workDir = mkdtempSync(path.join(tmpdir(), "plandesk-gateway-"));
  // the stdio servers this Plandesk server may start: the carrier with this file's call logs, and the same carrier answering slowly
  process.env.PLANDESK_MCP_SERVERS = JSON.stringify({
    "carrier-gw": { command: "node", args: [...CARRIER, "--call-log", path.join(workDir, "calls.jsonl")] },
    "carrier-gw-slow": { command: "node", args: [...CARRIER, "--call-log", path.join(workDir, "calls.jsonl"), "--answer-delay-ms", "30000"] },
    "carrier-gw-late": { command: "node", args: [...CARRIER, "--call-log", path.join(workDir, "calls.jsonl"), "--start-delay-ms", "4000"] },
    "retail-impostor": { command: "node", args: ["--import", "tsx", "testing/retail-mcp-server.ts", "--impostor"] },
  });
  await prepareTestDatabase(new Date());
  admin = await signInCookie("admin@plandesk.test");
  operator = await signInCookie("operator@plandesk.test");
  const registered = await call(registerServer(session("POST", "/api/admin/desks/freight/mcp-servers", { transport: "stdio", name: "carrier-gw", server: "carrier-gw" }, admin), routeCtx({ deskId: "freight" })));
  expect(registered.status).toBe(201);
  const imported = await call(importServer(session("POST", `/api/admin/desks/freight/mcp-servers/${registered.body.server.id}/import`, undefined, admin), routeCtx({ deskId: "freight", upstreamId: registered.body.server.id })));
  expect(imported.status).toBe(201);
  // the demo seed already lets the demo agent call the carrier's tools, the freight desk's people
  // approve and author its write, and delivery exceptions (task_74991's intent) permit both
  // (lib/server/demo/demo-gateway.ts); this file's carrier, imported last, serves them
}, 120_000);

afterAll(async () => {
  setLogSink(null);
  vi.restoreAllMocks();
  delete process.env.PLANDESK_MCP_SERVERS;
  rmSync(workDir, { recursive: true, force: true });
});

describe("Plandesk's MCP gateway (/api/mcp)", () => {
  it("tools/list shows the desk's upstream tools the agent may call, with their schema and annotations; another desk's agent sees none of them; no key is 401", async () => {
    const client = await agentClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["book_redelivery", "get_tracking"]);
      expect(tools.find((t) => t.name === "get_tracking")).toMatchObject({ annotations: { readOnlyHint: true }, inputSchema: { type: "object", required: ["shipmentId"] } });
    } finally {
      await client.close();
    }
    const retail = await agentClient(DEMO_RETAIL_AGENT_KEY);
    try {
      expect((await retail.listTools()).tools).toEqual([]);
      const refused = (await retail.callTool({ name: "get_tracking", arguments: { shipmentId: "sh_5531" } })) as Json;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ status: "rejected", code: "not_found" });
    } finally {
      await retail.close();
    }
    const anonymous = await mcpPost(new Request(`${TEST_ORIGIN}/api/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }));
    expect(anonymous.status).toBe(401);
    expect(callLog()).toEqual([]);
  }, 60_000);

  it("another desk's server cannot take over a tool: its read-only book_redelivery is refused at import, and the freight agent's book_redelivery stays a held write", async () => {
    const registered = await call(registerServer(session("POST", "/api/admin/desks/retail/mcp-servers", { transport: "stdio", name: "impostor", server: "retail-impostor" }, admin), routeCtx({ deskId: "retail" })));
    expect(registered.status).toBe(201);
    const imported = await call(importServer(session("POST", `/api/admin/desks/retail/mcp-servers/${registered.body.server.id}/import`, undefined, admin), routeCtx({ deskId: "retail", upstreamId: registered.body.server.id })));
    expect(imported.body).toMatchObject({ changed: [], problems: [expect.objectContaining({ name: "book_redelivery", code: "tool_name_taken" })] });
    const client = await agentClient();
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "book_redelivery")?.annotations?.readOnlyHint).not.toBe(true);
    } finally {
      await client.close();
    }
  });

  it("a JSON-RPC batch (several calls for one request's rate token) is refused 400 and nothing is called", async () => {
    const before = callLog().length;
    const calls = [1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_tracking", arguments: { shipmentId: "sh_5522" } } }));
    const res = await mcpPost(new Request(`${TEST_ORIGIN}/api/mcp`, { method: "POST", headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(calls) }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({ code: -32600 });
    expect(callLog().length).toBe(before);
  });

  it("a read is forwarded to the upstream at once and recorded as a gateway read the plan can cite", async () => {
    const client = await agentClient();
    try {
      const result = (await client.callTool({ name: "get_tracking", arguments: { shipmentId: "sh_5531" }, _meta: { "plandesk/taskId": "task_74991" } })) as Json;
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0].text)).toMatchObject({ shipmentId: "sh_5531" });
      const readId = result._meta["plandesk/readId"] as string;
      expect(readId).toMatch(/^gwc_/);
      const row = await prisma.gatewayCall.findUniqueOrThrow({ where: { id: readId } });
      expect(row).toMatchObject({ kind: "read", status: "ok", tool: "get_tracking", taskId: "task_74991", agentId: DEMO_AGENT_ID, runId: null });
      expect(callLog().map((l) => [l.tool, l.arguments])).toEqual([["get_tracking", { shipmentId: "sh_5531" }]]);
      // bad arguments never leave Plandesk
      const bad = (await client.callTool({ name: "get_tracking", arguments: { shipmentId: "" } })) as Json;
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ status: "rejected", code: "validation_failed" });
      expect(callLog()).toHaveLength(1);

      // a write citing the read carries it as the step's evidence
      const { answer } = await bookThroughGateway(client, { shipmentId: "sh_5531", date: "2026-12-20" }, { "plandesk/evidence": [readId] });
      const run = await agentRun(answer.runId);
      expect(run.steps[0].evidence).toEqual([expect.objectContaining({ recordType: "gateway_read", recordId: readId })]);
      await call(rejectRun(session("POST", `/api/runs/${answer.runId}/rejections`, { planVersion: 1, reason: "Not this one" }, operator), routeCtx({ runId: answer.runId })));
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a write becomes a pending run; an operator's edit then approval → the upstream receives exactly the edited arguments, once, with the step's idempotency key (two executor instances)", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-21" });
    expect(answer, JSON.stringify(answer)).toMatchObject({ status: "pending", runStatus: "pending_review", poll: `/api/v1/runs/${answer.runId}`, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    // nothing executes before approval
    await executeGatewaySteps();
    expect(callLog()).toHaveLength(before);

    const run = await agentRun(answer.runId);
    const step = run.steps[0];
    expect(step).toMatchObject({ id: answer.stepId, tool: "book_redelivery", args: { shipmentId: "sh_5531", date: "2026-12-21" } });
    const edited = await call(
      editRun(session("POST", `/api/runs/${answer.runId}/edits`, { baseVersion: 1, steps: [{ id: step.id, tool: step.tool, args: { shipmentId: "sh_5531", date: "2026-12-23" }, provenance: {}, author: { kind: "model" } }] }, operator), routeCtx({ runId: answer.runId })),
    );
    expect(edited.status).toBe(201);
    const version = edited.body.run?.planVersion ?? 2;
    const approved = await approve(answer.runId, version);
    expect(approved.status).toBe(201);

    // two instances execute at once: the claim makes exactly one of them call
    const passes = await Promise.all([executeGatewaySteps(), executeGatewaySteps()]);
    expect(passes.flatMap((p) => p.executed)).toHaveLength(1);
    const calls = callLog().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ tool: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2026-12-23" }, _meta: { "plandesk/idempotencyKey": `plandesk:${answer.runId}:${answer.stepId}` } });
    const after = await agentRun(answer.runId);
    expect(after.status).toBe("completed");
    const row = await prisma.gatewayCall.findFirstOrThrow({ where: { runId: answer.runId } });
    expect(row.status).toBe("succeeded");
    // later passes call nothing more
    await executeGatewaySteps();
    expect(callLog().slice(before)).toHaveLength(1);
  }, 90_000);

  it("a rejected run never reaches the upstream; its gateway call ends", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-22" });
    const rejected = await call(rejectRun(session("POST", `/api/runs/${answer.runId}/rejections`, { planVersion: 1, reason: "The customer asked for no redelivery" }, operator), routeCtx({ runId: answer.runId })));
    expect(rejected.status).toBe(201);
    const pass = await executeGatewaySteps();
    expect(pass.ended).toContain(answer.gatewayCallId);
    expect(callLog()).toHaveLength(before);
    expect((await prisma.gatewayCall.findUniqueOrThrow({ where: { id: answer.gatewayCallId } })).status).toBe("ended");
  }, 60_000);

  it("a task revision that arrives while Plandesk connects to a slow-starting upstream stops the run, and the call is never made (the fence is asked right before it); the agent asking again is told the stop", async () => {
    const before = callLog().length;
    const meta = { "plandesk/idempotencyKey": "stopped-while-connecting" };
    const client = await agentClient();
    const { answer } = await bookThroughGateway(client, { shipmentId: "sh_5531", date: "2026-12-23" }, meta).finally(() => client.close());
    expect((await approve(answer.runId, 1)).status).toBe(201);
    const late = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["carrier-gw-late"];
    await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: late.args } });
    try {
      const pass = executeGatewaySteps();
      // the step is claimed and its call begun: Plandesk is now waiting for the carrier to start
      await expect.poll(async () => (await prisma.gatewayCall.findUniqueOrThrow({ where: { id: answer.gatewayCallId } })).status, { timeout: 20_000, interval: 50 }).toBe("calling");
      const revised = await reviseTask(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }, { comment: "The customer will collect the parcel instead." }), routeCtx({ taskId: "task_74991" }));
      expect(revised.status).toBe(201);
      const done = await pass;
      expect(done.executed).not.toContain(answer.gatewayCallId);
    } finally {
      const fast = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["carrier-gw"];
      await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: fast.args } });
    }
    expect(callLog()).toHaveLength(before);
    const row = await prisma.gatewayCall.findUniqueOrThrow({ where: { id: answer.gatewayCallId } });
    expect(row.status).toBe("failed");
    expect(row.error).toContain("fence refused");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: answer.runId } })).status).toBe("stopped");
    // the same call again: the stop, typed — not "pending" for a step nothing will ever execute
    const again = await agentClient();
    try {
      const { result, answer: told } = await bookThroughGateway(again, { shipmentId: "sh_5531", date: "2026-12-23" }, meta);
      expect(result.isError).toBe(true);
      expect(told).toMatchObject({ status: "rejected", code: "run_stopped", runId: answer.runId });
      expect(told.message).toContain("fence refused");
    } finally {
      await again.close();
    }
    expect(callLog()).toHaveLength(before);
  }, 90_000);

  it("a write the validator refuses is a typed rejection at once; a write without a task names what is missing", async () => {
    const client = await agentClient();
    try {
      const bad = await bookThroughGateway(client, { shipmentId: "sh_5531", date: "not-a-date" });
      expect(bad.result.isError).toBe(true);
      expect(bad.answer).toMatchObject({ status: "rejected", code: "validation_failed" });
      expect(bad.answer.issues.length).toBeGreaterThan(0);
      const noTask = (await client.callTool({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2026-12-22" } })) as Json;
      expect(noTask.structuredContent).toMatchObject({ status: "rejected", code: "validation_failed" });
      expect(noTask.structuredContent.message).toContain("plandesk/taskId");
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a lost answer (the carrier answers after Plandesk's timeout) is unknown, waits for a person, and is never called again", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-24" });
    expect((await approve(answer.runId, 1)).status).toBe(201);
    // the carrier becomes slow: it performs the booking, then answers after 30 s
    const slow = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["carrier-gw-slow"];
    await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: slow.args } });
    try {
      // 12 s: time enough to start the carrier on a loaded machine (the connection counts against it), far less than its 30 s answer
      const pass = await executeGatewaySteps({ callTimeoutMs: 12_000 });
      expect(pass.unknown).toEqual([answer.gatewayCallId]);
    } finally {
      const fast = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["carrier-gw"];
      await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: fast.args } });
    }
    const exec = await prisma.stepExecution.findFirstOrThrow({ where: { runId: answer.runId } });
    expect(exec.status).toBe("unknown");
    expect((await prisma.gatewayCall.findUniqueOrThrow({ where: { id: answer.gatewayCallId } })).status).toBe("unknown");
    // another pass (any instance) calls nothing
    await executeGatewaySteps();
    const calls = callLog().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0].arguments).toEqual({ shipmentId: "sh_5531", date: "2026-12-24" });
  }, 90_000);

  it("an instance that died mid-call leaves its call unknown after the timeout, never called again", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-26" });
    expect((await approve(answer.runId, 1)).status).toBe(201);
    // what a killed instance leaves: the step claimed, the gateway call "calling" since long ago
    const run = await agentRun(answer.runId);
    const { claimStep } = await import("@/lib/server/claims/claim-step");
    const agent = { id: DEMO_AGENT_ID, name: "agent", allowedTools: ["book_redelivery"], keyId: "k", desk: "freight" };
    await claimStep(agent, answer.runId, answer.stepId, { digest: run.steps[0].digest, taskRevision: (await task()).revision }, null);
    await prisma.gatewayCall.update({ where: { id: answer.gatewayCallId }, data: { status: "calling", callingSince: new Date(Date.now() - 10 * 60_000) } });
    const pass = await executeGatewaySteps({ callTimeoutMs: 60_000 });
    expect(pass.unknown).toEqual([answer.gatewayCallId]);
    expect((await prisma.stepExecution.findFirstOrThrow({ where: { runId: answer.runId } })).status).toBe("unknown");
    await executeGatewaySteps();
    expect(callLog()).toHaveLength(before);
  }, 60_000);

  it("kill -9 of the instance executing a call leaves its outcome unknown after the timeout; no instance calls again", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-29" });
    expect((await approve(answer.runId, 1)).status).toBe(201);
    const servers = JSON.parse(process.env.PLANDESK_MCP_SERVERS!);
    await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: servers["carrier-gw-slow"].args } });
    // another instance: a separate process on the same database, executing with the slow carrier
    const instance = spawn(process.execPath, ["--import", "tsx", "-e", "import('./lib/server/gateway/execute-gateway-steps.ts').then((m) => (m.executeGatewaySteps ?? m.default.executeGatewaySteps)({ callTimeoutMs: 60000 }))"], {
      env: { ...process.env, PLANDESK_TEST_DB_SET: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      // the carrier received the call (it logs before it answers): kill the instance mid-call
      await expect.poll(() => callLog().length, { timeout: 30_000, interval: 100 }).toBe(before + 1);
      const killed = new Promise((r) => instance.once("exit", r));
      instance.kill("SIGKILL");
      await killed;
    } finally {
      if (instance.exitCode === null && instance.signalCode === null) instance.kill("SIGKILL");
      await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "carrier-gw" }, data: { args: servers["carrier-gw"].args } });
    }
    expect((await prisma.gatewayCall.findUniqueOrThrow({ where: { id: answer.gatewayCallId } })).status).toBe("calling");
    // before the call's timeout has passed nothing happens; after it, any instance reports unknown and calls nothing
    expect((await executeGatewaySteps({ callTimeoutMs: 60_000 })).unknown).toEqual([]);
    const later = () => new Date(Date.now() + 2 * 60_000 + 5_000);
    expect((await executeGatewaySteps({ callTimeoutMs: 60_000, now: later })).unknown).toEqual([answer.gatewayCallId]);
    expect((await prisma.stepExecution.findFirstOrThrow({ where: { runId: answer.runId } })).status).toBe("unknown");
    await executeGatewaySteps({ callTimeoutMs: 60_000, now: later });
    const calls = callLog().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0].arguments).toEqual({ shipmentId: "sh_5531", date: "2026-12-29" });
  }, 90_000);

  it("a gateway step some other executor claimed is never called by Plandesk", async () => {
    const before = callLog().length;
    const answer = await booked({ shipmentId: "sh_5531", date: "2026-12-27" });
    expect((await approve(answer.runId, 1)).status).toBe(201);
    const run = await agentRun(answer.runId);
    const { claimStep } = await import("@/lib/server/claims/claim-step");
    const agent = { id: DEMO_AGENT_ID, name: "agent", allowedTools: ["book_redelivery"], keyId: "k", desk: "freight" };
    await claimStep(agent, answer.runId, answer.stepId, { digest: run.steps[0].digest, taskRevision: (await task()).revision }, null, new Date(Date.now() - 3 * 60_000));
    // a claim minutes old that the gateway never moved to "calling": not the gateway's, so it calls nothing and ends the row
    const pass = await executeGatewaySteps();
    expect(pass.ended).toEqual([answer.gatewayCallId]);
    expect(pass.executed).toEqual([]);
    expect(callLog()).toHaveLength(before);
  }, 60_000);

  it("an HTTP upstream with a bearer token: Plandesk reads and writes through it with its stored credential; a repeated call answers where the write stands, then the upstream's own answer", async () => {
    const log = path.join(workDir, "http.jsonl");
    const { url, process: carrier } = await startHttpCarrier(TOKEN, log);
    try {
      const registered = await call(registerServer(session("POST", "/api/admin/desks/freight/mcp-servers", { transport: "http", name: "carrier-http", url, credential: { kind: "bearer", token: TOKEN } }, admin), routeCtx({ deskId: "freight" })));
      expect(registered.status).toBe(201);
      // imported after the stdio carrier: it serves the carrier's tools from now on
      const imported = await call(importServer(session("POST", `/api/admin/desks/freight/mcp-servers/${registered.body.server.id}/import`, undefined, admin), routeCtx({ deskId: "freight", upstreamId: registered.body.server.id })));
      expect(imported.status).toBe(201);
      const stdioCalls = callLog().length;
      const httpLog = () => callLog("http.jsonl");

      const client = await agentClient();
      try {
        const read = (await client.callTool({ name: "get_tracking", arguments: { shipmentId: "sh_5522" } })) as Json;
        expect(read.isError).toBeFalsy();
        expect(httpLog().map((l) => l.tool)).toEqual(["get_tracking"]);

        const meta = { "plandesk/idempotencyKey": "agent-call-77" };
        const first = await bookThroughGateway(client, { shipmentId: "sh_5522", date: "2026-12-28" }, meta);
        expect(first.answer).toMatchObject({ status: "pending", runStatus: "pending_review" });
        const again = await bookThroughGateway(client, { shipmentId: "sh_5522", date: "2026-12-28" }, meta);
        expect(again.answer).toMatchObject({ status: "pending", runId: first.answer.runId, stepId: first.answer.stepId });
        expect(await prisma.gatewayCall.count({ where: { runId: first.answer.runId } })).toBe(1);

        expect((await approve(first.answer.runId, 1)).status).toBe(201);
        await executeGatewaySteps();
        const writes = httpLog().filter((l) => l.tool === "book_redelivery");
        expect(writes).toHaveLength(1);
        expect(writes[0]).toMatchObject({ arguments: { shipmentId: "sh_5522", date: "2026-12-28" }, _meta: { "plandesk/idempotencyKey": `plandesk:${first.answer.runId}:${first.answer.stepId}` } });

        // the same call once more: the upstream's own answer, nothing called again
        const done = (await client.callTool({ name: "book_redelivery", arguments: { shipmentId: "sh_5522", date: "2026-12-28" }, _meta: { "plandesk/taskId": "task_74991", ...meta } })) as Json;
        expect(done.isError).toBeFalsy();
        expect(JSON.parse(done.content[0].text)).toMatchObject({ shipmentId: "sh_5522", date: "2026-12-28", status: "booked" });
        expect(done._meta).toMatchObject({ "plandesk/runId": first.answer.runId, "plandesk/status": "succeeded" });
        expect(httpLog().filter((l) => l.tool === "book_redelivery")).toHaveLength(1);
      } finally {
        await client.close();
      }
      expect(callLog()).toHaveLength(stdioCalls);
    } finally {
      const exited = new Promise((r) => carrier.once("exit", r));
      carrier.kill("SIGTERM");
      await exited;
    }
  }, 90_000);

  it("no credential appears in any answer, console line, gateway record or audit event; the gateway's events are on the record", async () => {
    const stored = await prisma.gatewayCall.findMany();
    const texts = [...answers, ...consoleLines, ...stored.map((r) => JSON.stringify(r)), ...(await prisma.auditEvent.findMany({ select: { data: true } })).map((e) => JSON.stringify(e.data))];
    // the token itself, or a sealed credential (v1.<iv>.<tag>.<ciphertext>)
    expect(texts.filter((t) => t.includes(TOKEN) || /v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\./.test(t))).toEqual([]);
    expect(consoleLines.length + answers.length).toBeGreaterThan(20);
    expect(await prisma.auditEvent.count({ where: { type: "gateway_call" } })).toBeGreaterThan(5);
  });
});
