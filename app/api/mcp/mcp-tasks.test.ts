/**
 * The MCP long-running-call mechanism on Plandesk's gateway (docs/design.md "MCP gateway", "Tasks";
 * lib/server/gateway/gateway-tasks.ts), on SQLite and PostgreSQL, on the freshly seeded demo desk
 * (the carrier registered over stdio; its call log proves what it received): an MCP SDK client
 * that negotiates tasks follows a held write as a task — working while a person reviews it, then
 * the carrier's own answer to exactly the approved (edited) arguments, once; a rejection, a stop
 * and an expiry end the task `failed` with the typed answer, and `tasks/result` waits for that end
 * (never longer than the run's deadline). A client that asks for no task gets the typed `pending`
 * answer, whose `gatewayCallId` is the same write's task. Reads, tasks/list and tasks/cancel are
 * not tasks; another agent's task is not found.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type CallToolResult, type Task } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { MODEL_IMMEDIATE_RESPONSE } from "@/lib/server/gateway/gateway-tasks";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { CARRIER_STDIO_SERVER } from "@/lib/server/tools/mcp-upstreams";
import { isoDay, reject, reviseTheTask, senior } from "@/testing/adapter-operator";
import { TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as mcpPost } from "./route";

type Json = Record<string, any>;

/** The demo carrier's call log (other files append theirs: each call is told apart by its step's idempotency key). */
const CALL_LOG = path.resolve(CARRIER_STDIO_SERVER.args[CARRIER_STDIO_SERVER.args.indexOf("--call-log") + 1]);
const callsOf = (runId: string, stepId: string): Json[] =>
  (existsSync(CALL_LOG) ? readFileSync(CALL_LOG, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : []).filter(
    (l) => l._meta?.["plandesk/idempotencyKey"] === `plandesk:${runId}:${stepId}`,
  );

/** An MCP SDK client on the /api/mcp route handler with `key`, as a client pointed at http://localhost:3000/api/mcp. */
async function agentClient(key = DEMO_AGENT_KEY): Promise<Client> {
  const client = new Client({ name: "tasks-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${TEST_ORIGIN}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}`, "plandesk-task-id": "task_74991" } },
      fetch: async (url, init) => {
        const req = new Request(url, init);
        return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
      },
    }),
  );
  await client.listTools(); // the SDK learns which tools may run as tasks
  return client;
}

/** A book_redelivery for task_74991 on `date` asked as a task (`task: {ttl}`): the CreateTaskResult. */
async function bookAsTask(client: Client, date: string, meta: Json = {}) {
  return client.request({ method: "tools/call", params: { name: "book_redelivery", arguments: { shipmentId: "sh_5531", date }, task: { ttl: 60_000 }, _meta: meta } }, CreateTaskResultSchema);
}

/** The gateway write behind task `taskId`: its run and step. */
const writeOf = (taskId: string) => prisma.gatewayCall.findUniqueOrThrow({ where: { id: taskId }, select: { runId: true, stepId: true, status: true } }) as Promise<{ runId: string; stepId: string; status: string }>;

/** The McpError a promise rejects with. */
async function mcpErrorOf(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

let client: Client;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  // the tasks' suggested poll interval is the executor's pass interval: 500 ms here (its floor)
  process.env.PLANDESK_GATEWAY_SECONDS = "0.2";
  client = await agentClient();
}, 120_000);

afterAll(async () => {
  delete process.env.PLANDESK_GATEWAY_SECONDS;
  await client?.close();
});

describe("MCP tasks on Plandesk's gateway", () => {
  it("negotiated: the server declares task-augmented tools/call; a write may run as a task, a read may not; tasks/list and tasks/cancel are not offered", async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "book_redelivery")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "get_tracking")?.execution).toBeUndefined();
    const read = await mcpErrorOf(client.request({ method: "tools/call", params: { name: "get_tracking", arguments: { shipmentId: "sh_5531" }, task: {} } }, CreateTaskResultSchema));
    expect(read.code).toBe(-32601);
    expect((await mcpErrorOf(client.experimental.tasks.listTasks())).code).toBe(-32601);
    expect((await mcpErrorOf(client.experimental.tasks.cancelTask("gwc_any"))).code).toBe(-32601);
  });

  it("a write run as a task: working while a person reviews it, then the carrier's own answer to exactly the edited arguments, called once", async () => {
    const stream = client.experimental.tasks.callToolStream({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: isoDay(3) }, _meta: { "plandesk/idempotencyKey": "task-edited-1" } })[Symbol.asyncIterator]();
    const created = (await stream.next()).value as { type: string; task: Task };
    expect(created).toMatchObject({ type: "taskCreated", task: { status: "working", taskId: expect.stringMatching(/^gwc_/), ttl: null, pollInterval: 500 } });
    const { runId, stepId } = await writeOf(created.task.taskId);
    const polled = (await stream.next()).value as { type: string; task: Task & { _meta?: Json } };
    expect(polled.type).toBe("taskStatus");
    expect(polled.task.status).toBe("working");
    expect(polled.task.statusMessage).toContain("waits for a person's review");
    // nothing reaches the carrier while a person has not decided
    await executeGatewaySteps();
    expect(callsOf(runId, stepId)).toEqual([]);

    // the senior moves the date and approves; an executor pass calls the carrier
    const who = await senior();
    const run = toRunView(await loadRun(runId));
    const edit = await submitEdit(who, runId, { baseVersion: run.planVersion, steps: run.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, date: isoDay(5) } })) });
    await approveSteps(who, runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `task-approve:${runId}` });
    expect((await executeGatewaySteps()).executed).toHaveLength(1);

    const seen: string[] = [];
    let last: Json = {};
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      last = next.value as Json;
      if (last.type === "taskStatus") seen.push(last.task.status);
    }
    expect(seen.at(-1)).toBe("completed");
    expect(last.type, JSON.stringify(last)).toBe("result");
    const result = last.result as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ shipmentId: "sh_5531", date: isoDay(5), status: "booked" });
    expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId: created.task.taskId }, "plandesk/runId": runId, "plandesk/status": "succeeded" });
    const calls = callsOf(runId, stepId);
    expect(calls).toHaveLength(1);
    expect(calls[0].arguments).toEqual({ shipmentId: "sh_5531", date: isoDay(5) });
    // the same call again with the same key: the same task, completed; nothing is called again
    const again = await bookAsTask(client, isoDay(3), { "plandesk/idempotencyKey": "task-edited-1" });
    expect(again.task).toMatchObject({ taskId: created.task.taskId, status: "completed" });
    await executeGatewaySteps();
    expect(callsOf(runId, stepId)).toHaveLength(1);
  }, 90_000);

  it("rejected while tasks/result waits: the wait ends with the typed refusal, the task is failed, and the carrier is never called", async () => {
    const created = await bookAsTask(client, isoDay(3));
    expect(created.task).toMatchObject({ status: "working", ttl: null });
    expect(String(created._meta?.[MODEL_IMMEDIATE_RESPONSE])).toMatch(/^Plandesk holds book_redelivery as step .* a person reviews it/);
    const { runId, stepId } = await writeOf(created.task.taskId);
    const waiting = client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    let answered = false;
    void waiting.finally(() => (answered = true)).catch(() => undefined);
    // the wait holds while the write waits for a person
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe("working");
    expect(answered).toBe(false);
    await reject(runId, "The customer will collect the parcel.");
    const result = await waiting;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "rejected", code: "run_rejected", runId });
    expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId: created.task.taskId } });
    const task = await client.experimental.tasks.getTask(created.task.taskId);
    expect(task.status).toBe("failed");
    expect(task.statusMessage).toContain("The customer will collect the parcel.");
    await executeGatewaySteps();
    expect(callsOf(runId, stepId)).toEqual([]);
  }, 60_000);

  it("a client that asks for no task gets the typed pending answer; its gatewayCallId is the same write's task, which ends failed at the run's deadline", async () => {
    const plain = (await client.callTool({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: isoDay(4) } })) as Json;
    expect(plain.isError).toBe(false);
    const pending = plain.structuredContent as Json;
    expect(pending).toMatchObject({ status: "pending", runStatus: "pending_review", gatewayCallId: expect.stringMatching(/^gwc_/) });
    const task = (await client.experimental.tasks.getTask(pending.gatewayCallId)) as Task & { _meta?: Json };
    expect(task).toMatchObject({ taskId: pending.gatewayCallId, status: "working" });
    expect(task._meta?.["plandesk/progress"]).toEqual({ runId: pending.runId, stepId: pending.stepId, runStatus: "pending_review", expiresAt: pending.expiresAt, poll: pending.poll });
    // nobody decides: at the deadline the wait ends, typed
    await prisma.run.update({ where: { id: pending.runId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const result = await client.experimental.tasks.getTaskResult(pending.gatewayCallId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "rejected", code: "run_expired" });
    expect((await client.experimental.tasks.getTask(pending.gatewayCallId)).status).toBe("failed");
  }, 60_000);

  it("a write refused at submission is no task: a JSON-RPC error carrying the typed refusal; another agent's task is not found", async () => {
    const refused = await mcpErrorOf(bookAsTask(client, "not-a-date"));
    expect(refused.code).toBe(-32602);
    expect(refused.data).toMatchObject({ status: "rejected", code: "validation_failed" });
    expect((refused.data as Json).issues.length).toBeGreaterThan(0);

    const created = await bookAsTask(client, isoDay(6));
    const retail = await agentClient(DEMO_RETAIL_AGENT_KEY);
    try {
      expect((await mcpErrorOf(retail.experimental.tasks.getTask(created.task.taskId))).code).toBe(-32602);
      expect((await mcpErrorOf(retail.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema))).code).toBe(-32602);
    } finally {
      await retail.close();
    }
    await reject((await writeOf(created.task.taskId)).runId, "Not this one.");
  }, 60_000);

  it("a stop: the task revised while the write waits → the task fails with the typed stop, nothing called", async () => {
    const created = await bookAsTask(client, isoDay(7));
    const { runId, stepId } = await writeOf(created.task.taskId);
    await reviseTheTask("task_74991");
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "rejected", code: "run_stopped", runId });
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe("failed");
    await executeGatewaySteps();
    expect(callsOf(runId, stepId)).toEqual([]);
  }, 60_000);
});
