/**
 * The MCP gateway from `npm start` (docs/mcp-gateway.md "Put Plandesk in front of your MCP
 * servers"), on SQLite and PostgreSQL: on the freshly seeded demo database, with no admin step,
 * an MCP SDK client holding the demo agent's key lists the carrier's tools on `/api/mcp`, reads
 * tracking, and submits a redelivery for task_74991; the senior approves it in the console's
 * API; one executor pass makes Plandesk call the demo carrier (the registered stdio server
 * examples/carrier-mcp, whose call log is data/carrier-calls.jsonl), and its call log has exactly
 * that call once, with exactly the approved arguments.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addDays, formatISO } from "date-fns";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { CARRIER_STDIO_SERVER } from "@/lib/server/tools/mcp-upstreams";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { runGatewayAgent } from "../../../examples/mcp-gateway/agent";
import { POST as mcpPost } from "./route";
import { POST as approveRun } from "../runs/[runId]/approvals/route";
import { GET as getAgentRun } from "../v1/runs/[runId]/route";

type Json = Record<string, any>;

/** The demo carrier's call log, as the seeded stdio server writes it (relative to the working directory). */
const CALL_LOG = path.resolve(CARRIER_STDIO_SERVER.args[CARRIER_STDIO_SERVER.args.indexOf("--call-log") + 1]);
/** The call log's lines (other test files may append theirs: each is told apart by its step's idempotency key). */
const callLog = (): Json[] => (existsSync(CALL_LOG) ? readFileSync(CALL_LOG, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : []);

/** The /api/mcp route handler as a fetch (Next answers methods other than POST 405). */
const gatewayFetch: typeof fetch = async (url, init) => {
  const req = new Request(url, init);
  return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
};

/** An MCP SDK client on the /api/mcp route handler with the demo agent's key, as a client pointed at http://localhost:3000/api/mcp. */
async function demoAgent(): Promise<Client> {
  const client = new Client({ name: "demo-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${TEST_ORIGIN}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${DEMO_AGENT_KEY}` } },
      fetch: gatewayFetch,
    }),
  );
  return client;
}

beforeAll(async () => {
  // the seed as `npm start` runs it, and nothing else: no registration, import, grant or intent change here
  await prepareTestDatabase(new Date());
}, 120_000);

describe("the MCP gateway on the seeded demo desk, with no admin step", () => {
  it("the demo agent lists and reads the carrier's tools; a redelivery for task_74991 approved by the senior is called on the carrier once, with the approved arguments", async () => {
    const date = formatISO(addDays(new Date(), 3), { representation: "date" });
    const client = await demoAgent();
    let held: Json;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["book_redelivery", "get_tracking"]);

      const read = (await client.callTool({ name: "get_tracking", arguments: { shipmentId: "sh_5531" }, _meta: { "plandesk/taskId": "task_74991" } })) as Json;
      expect(read.isError, JSON.stringify(read)).toBeFalsy();
      expect(JSON.parse(read.content[0].text)).toMatchObject({ shipmentId: "sh_5531" });
      const readId = read._meta["plandesk/readId"] as string;

      const result = (await client.callTool({
        name: "book_redelivery",
        arguments: { shipmentId: "sh_5531", date },
        _meta: { "plandesk/taskId": "task_74991", "plandesk/evidence": [readId] },
      })) as Json;
      held = result.structuredContent as Json;
      expect(held, JSON.stringify(held)).toMatchObject({ status: "pending", runStatus: "pending_review" });
    } finally {
      await client.close();
    }
    // held for a person: nothing reaches the carrier before approval
    const key = `plandesk:${held.runId}:${held.stepId}`;
    const callsOfStep = () => callLog().filter((l) => l._meta?.["plandesk/idempotencyKey"] === key);
    await executeGatewaySteps();
    expect(callsOfStep()).toEqual([]);

    const senior = await signInCookie("senior@plandesk.test");
    const approved = await approveRun(
      apiRequest("POST", `/api/runs/${held.runId}/approvals`, { cookie: senior, origin: TEST_ORIGIN }, { planVersion: 1, stepIds: "all", idempotencyKey: `approve-${held.runId}` }),
      routeCtx({ runId: held.runId }),
    );
    expect(approved.status, await approved.clone().text()).toBe(201);

    const pass = await executeGatewaySteps();
    expect(pass.executed).toHaveLength(1);
    const calls = callsOfStep();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ tool: "book_redelivery", arguments: { shipmentId: "sh_5531", date } });
    const run = (await (await getAgentRun(apiRequest("GET", `/api/v1/runs/${held.runId}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId: held.runId }))).json()).run as Json;
    expect(run.status).toBe("completed");
    expect((await prisma.gatewayCall.findFirstOrThrow({ where: { runId: held.runId } })).status).toBe("succeeded");

    // later passes call nothing more
    await executeGatewaySteps();
    expect(callsOfStep()).toHaveLength(1);
  }, 90_000);

  it("the seed did each step as the demo admin, through the admin functions: each is on the audit trail", async () => {
    const changes = await prisma.auditEvent.findMany({ where: { type: "admin_change", actorId: "usr_admin" }, orderBy: { seq: "asc" }, select: { data: true } });
    const steps = changes.map((e) => e.data as Json).filter((d) => JSON.stringify(d.after ?? null).includes("book_redelivery"));
    expect(steps.map((d) => d.what)).toEqual(["tool_catalog.import", "agent.allowed_tools", "grant.set", "grant.set", "grant.set", "desk.intents.save"]);
    expect(steps.filter((d) => d.what === "grant.set").map((d) => d.userId)).toEqual(["usr_operator", "usr_senior", "usr_supervisor"]);
  });

  it("the client package's recipe (examples/mcp-gateway, the official MCP SDK client): the task named once in the connection's header; the held write, once approved and executed, answers the carrier's own result", async () => {
    const date = formatISO(addDays(new Date(), 4), { representation: "date" });
    const lines: string[] = [];
    const agent = runGatewayAgent({ url: TEST_ORIGIN, key: DEMO_AGENT_KEY, taskId: "task_74991", shipmentId: "sh_5531", date, pollMs: 100, timeoutMs: 60_000, idempotencyKey: "recipe-test-1", log: (l) => lines.push(l), fetch: gatewayFetch });
    // the write is held: a person approves it, an executor pass calls the carrier
    // the run is submitted first, its gateway call recorded right after: wait for both
    const heldCall = async () => {
      const run = await prisma.run.findFirst({ where: { idempotencyKey: "mcp:recipe-test-1" }, select: { id: true } });
      return run ? prisma.gatewayCall.findFirst({ where: { kind: "write", runId: run.id } }) : null;
    };
    await expect.poll(heldCall, { timeout: 30_000, interval: 100 }).toBeTruthy();
    const row = (await heldCall())!;
    expect(row.taskId).toBe("task_74991");
    const senior = await signInCookie("senior@plandesk.test");
    const approved = await approveRun(
      apiRequest("POST", `/api/runs/${row.runId}/approvals`, { cookie: senior, origin: TEST_ORIGIN }, { planVersion: 1, stepIds: "all", idempotencyKey: `approve-${row.runId}` }),
      routeCtx({ runId: row.runId! }),
    );
    expect(approved.status, await approved.clone().text()).toBe(201);
    expect((await executeGatewaySteps()).executed).toHaveLength(1);

    const outcome = await agent;
    expect(outcome.tools).toEqual(["book_redelivery", "get_tracking"]);
    expect(outcome.readId).toMatch(/^gwc_/);
    expect(outcome.held).toMatchObject({ kind: "pending", runId: row.runId });
    expect(outcome.final).toMatchObject({ kind: "result", runId: row.runId });
    const text = (outcome.final as { result: { content: { text: string }[] } }).result.content[0].text;
    expect(JSON.parse(text)).toMatchObject({ shipmentId: "sh_5531", date, status: "booked" });
    const run = (await (await getAgentRun(apiRequest("GET", `/api/v1/runs/${row.runId}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId: row.runId! }))).json()).run as Json;
    expect(run.steps[0].evidence).toEqual([expect.objectContaining({ recordType: "gateway_read", recordId: outcome.readId })]);
    // the carrier was called once for it
    expect(callLog().filter((l) => l._meta?.["plandesk/idempotencyKey"] === `plandesk:${row.runId}:${row.stepId}`)).toHaveLength(1);
    expect(lines.some((l) => l.startsWith("book_redelivery held for approval"))).toBe(true);
  }, 90_000);
});
