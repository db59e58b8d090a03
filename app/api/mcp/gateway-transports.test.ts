/**
 * Plandesk in front of the tools over BOTH transports an upstream may speak
 * (docs/design.md "MCP gateway"), on SQLite and PostgreSQL: the shipped carrier MCP server (examples/carrier-mcp, built
 * with the MCP SDK's McpServer) is the freight desk's upstream over stdio, then over Streamable HTTP
 * with a bearer token, and an MCP SDK client is the agent on `/api/mcp`. For each, the carrier's own
 * call log proves: an operator's edited arguments are what it receives, once, with the step's
 * idempotency key, though two executor instances run at once; a rejected write never reaches it; a
 * write stopped after its approval (the task revised) never reaches it, and the agent asking again is
 * told the stop; a stop condition the carrier reports ends the run, and the run's later write is
 * never called.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { isoDay, reject, reviseTheTask, senior } from "@/testing/adapter-operator";
import { startHttpCarrier } from "@/testing/http-carrier";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as mcpPost } from "./route";
import { POST as registerServer } from "../admin/desks/[deskId]/mcp-servers/route";
import { POST as importServer } from "../admin/desks/[deskId]/mcp-servers/[upstreamId]/import/route";

type Json = Record<string, any>;

const TOKEN = "transports-test-token-3c2b1a0f9e8d";
/** The shipment the carrier has delivered meanwhile: a redelivery of it meets the step's stop condition. */
const DELIVERED = "sh_5522";
let workDir: string;
let admin: string;
let httpCarrier: ChildProcess | undefined;

/** The call log `name` (each transport's carrier writes its own: "stdio", "http"). */
const callLog = (name: string): Json[] => {
  const p = path.join(workDir, `${name}.jsonl`);
  return existsSync(p) ? readFileSync(p, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : [];
};

/** An MCP SDK client on the /api/mcp route handler with the demo agent's key. */
async function agentClient(): Promise<Client> {
  const client = new Client({ name: "transports-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${TEST_ORIGIN}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${DEMO_AGENT_KEY}` } },
      fetch: async (url, init) => {
        const req = new Request(url, init);
        return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
      },
    }),
  );
  return client;
}

/** A book_redelivery for task_74991 through the gateway: the structured answer and whether it is an error. */
async function book(args: { shipmentId: string; date: string }, meta: Json = {}): Promise<{ isError: boolean; answer: Json }> {
  const client = await agentClient();
  try {
    const result = (await client.callTool({ name: "book_redelivery", arguments: args, _meta: { "plandesk/taskId": "task_74991", ...meta } })) as Json;
    return { isError: result.isError === true, answer: result.structuredContent as Json };
  } finally {
    await client.close();
  }
}

const session = (method: string, url: string, body: unknown) => apiRequest(method, url, { cookie: admin, origin: TEST_ORIGIN }, body);

/** Registers the carrier as the freight desk's upstream `name` and imports its tools: imported last, it serves them. */
async function registerCarrier(body: Json): Promise<void> {
  const registered = await registerServer(session("POST", "/api/admin/desks/freight/mcp-servers", body), routeCtx({ deskId: "freight" }));
  expect(registered.status, await registered.clone().text()).toBe(201);
  const id = ((await registered.json()) as Json).server.id as string;
  const imported = await importServer(session("POST", `/api/admin/desks/freight/mcp-servers/${id}/import`, undefined), routeCtx({ deskId: "freight", upstreamId: id }));
  expect(imported.status, await imported.clone().text()).toBe(201);
}

/** A person approves the run as it stands. */
async function approve(runId: string): Promise<void> {
  const run = toRunView(await loadRun(runId));
  await approveSteps(await senior(), runId, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `transports-approve:${runId}:${run.planVersion}` });
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "plandesk-transports-"));
  process.env.PLANDESK_MCP_SERVERS = JSON.stringify({
    "carrier-stdio": { command: "node", args: ["--import", "tsx", "examples/carrier-mcp/server.ts", "--call-log", path.join(workDir, "stdio.jsonl"), "--delivered", DELIVERED] },
  });
  await prepareTestDatabase(new Date());
  admin = await signInCookie("admin@plandesk.test");
}, 120_000);

afterAll(async () => {
  delete process.env.PLANDESK_MCP_SERVERS;
  if (httpCarrier && httpCarrier.exitCode === null) {
    const exited = new Promise((r) => httpCarrier!.once("exit", r));
    httpCarrier.kill("SIGTERM");
    await exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

describe.each([
  ["stdio", "stdio", async () => registerCarrier({ transport: "stdio", name: "carrier-stdio", server: "carrier-stdio" })],
  [
    "Streamable HTTP",
    "http",
    async () => {
      const started = await startHttpCarrier(TOKEN, path.join(workDir, "http.jsonl"), ["--delivered", DELIVERED]);
      httpCarrier = started.process;
      await registerCarrier({ transport: "http", name: "carrier-http", url: started.url, credential: { kind: "bearer", token: TOKEN } });
    },
  ],
] as const)("the carrier as the desk's upstream over %s", (transport, logName, register) => {
  beforeAll(register, 60_000);
  const calls = () => callLog(logName);

  it("an operator's edited arguments are what the carrier receives, once, with the step's idempotency key (two executor instances)", async () => {
    const before = calls().length;
    const { answer } = await book({ shipmentId: "sh_5531", date: isoDay(3) });
    expect(answer, JSON.stringify(answer)).toMatchObject({ status: "pending", runStatus: "pending_review" });
    await executeGatewaySteps();
    expect(calls()).toHaveLength(before);

    const who = await senior();
    const run = toRunView(await loadRun(answer.runId));
    const edit = await submitEdit(who, answer.runId, { baseVersion: run.planVersion, steps: run.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, date: isoDay(5) } })) });
    await approveSteps(who, answer.runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `transports-edit:${answer.runId}` });
    const passes = await Promise.all([executeGatewaySteps(), executeGatewaySteps()]);
    expect(passes.flatMap((p) => p.executed)).toEqual([answer.gatewayCallId]);
    await executeGatewaySteps();
    const received = calls().slice(before);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ tool: "book_redelivery", arguments: { shipmentId: "sh_5531", date: isoDay(5) }, _meta: { "plandesk/idempotencyKey": `plandesk:${answer.runId}:${answer.stepId}` } });
    expect(toRunView(await loadRun(answer.runId)).status).toBe("completed");
  }, 90_000);

  it("a rejected write never reaches the carrier", async () => {
    const before = calls().length;
    const { answer } = await book({ shipmentId: "sh_5531", date: isoDay(4) });
    await reject(answer.runId, "The customer will collect the parcel.");
    expect((await executeGatewaySteps()).ended).toContain(answer.gatewayCallId);
    expect(calls()).toHaveLength(before);
  }, 60_000);

  it("a write stopped after its approval (the task revised before Plandesk called) never reaches the carrier; the agent asking again is told the stop", async () => {
    const before = calls().length;
    const key = { "plandesk/idempotencyKey": `transports-stopped-${logName}` };
    const { answer } = await book({ shipmentId: "sh_5531", date: isoDay(6) }, key);
    await approve(answer.runId);
    await reviseTheTask("task_74991");
    await executeGatewaySteps();
    expect(calls()).toHaveLength(before);
    expect(toRunView(await loadRun(answer.runId)).status).toBe("stopped");
    const again = await book({ shipmentId: "sh_5531", date: isoDay(6) }, key);
    expect(again).toMatchObject({ isError: true, answer: { status: "rejected", code: "run_stopped", runId: answer.runId } });
  }, 60_000);

  it("a stop condition the carrier reports ends the run: the run stops, and its later write is never called", async () => {
    const before = calls().length;
    // two writes held as one run: the parcel the carrier already delivered, then another
    const first = await book({ shipmentId: DELIVERED, date: isoDay(3) });
    const second = await book({ shipmentId: "sh_5531", date: isoDay(3) }, { "plandesk/runId": first.answer.runId });
    expect(second.answer, JSON.stringify(second.answer)).toMatchObject({ status: "pending" });
    const runId = second.answer.runId as string;
    await approve(runId);
    await executeGatewaySteps();
    await executeGatewaySteps();
    const received = calls().slice(before);
    expect(received.map((c) => c.arguments.shipmentId)).toEqual([DELIVERED]);
    const run = toRunView(await loadRun(runId));
    expect(run.status).toBe("stopped");
    expect(await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { stopReason: true } })).toMatchObject({ stopReason: { code: "stop_condition_met", stepId: first.answer.stepId } });
    const rows = await prisma.gatewayCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" }, select: { stepId: true, status: true } });
    expect(rows).toEqual([
      { stepId: first.answer.stepId, status: "failed" },
      { stepId: second.answer.stepId, status: "ended" },
    ]);
  }, 90_000);
});
