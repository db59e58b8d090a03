/**
 * All or nothing through Plandesk's MCP gateway (docs/design.md "MCP gateway", "Staged runs"), on
 * SQLite and PostgreSQL: a carrier whose bookings stage and commit (testing/staged-carrier-mcp-server.ts,
 * its visible bookings in a log of their own) is the freight desk's upstream over stdio; an MCP SDK
 * client is the agent on `/api/mcp`, holding three staged writes as one plan for task_74991
 * (`_meta["plandesk/runId"]` joins a held run); Plandesk's executor runs as in mcp-gateway.test.ts.
 * Stopped before promotion (a task revision after two of three staged), nothing is visible and no
 * commit is made; approved and executed, the three land together, in one commit; a lost
 * promotion answer is `unknown`, never committed again. Writes that do not stage but declare a
 * compensating tool can be undone after a partial stop (`POST /api/runs/{runId}/undo`): a new plan,
 * reviewed, then executed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { DEMO_CARRIER_INTENT } from "@/lib/server/demo/demo-gateway";
import { setGrant } from "@/lib/server/admin/admin";
import { getIntentCatalogForAdmin, saveIntentCatalog } from "@/lib/server/tasks/intent-catalog-admin";
import { setAgentAllowedTools } from "@/lib/server/tools/imported-tools";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { previewUndo } from "@/lib/server/gateway/undo-written-steps";
import { loadViewer } from "@/lib/server/auth/viewer";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as mcpPost } from "./route";
import { POST as registerServer } from "../admin/desks/[deskId]/mcp-servers/route";
import { POST as importServer } from "../admin/desks/[deskId]/mcp-servers/[upstreamId]/import/route";
import { POST as approveRun } from "../runs/[runId]/approvals/route";
import { GET as getAgentRun } from "../v1/runs/[runId]/route";
import { POST as reviseTask } from "../v1/tasks/[taskId]/revisions/route";
import { POST as undoRun } from "../runs/[runId]/undo/route";

type Json = Record<string, any>;

const SERVER = ["--import", "tsx", "testing/staged-carrier-mcp-server.ts"];
const ADMIN = { id: "usr_admin", role: "admin" as const };
let stateDir: string;
let admin: string;
let operator: string;
const runIds: string[] = [];

const log = (name: "calls" | "visible") => {
  const p = path.join(stateDir, `${name}.jsonl`);
  return existsSync(p) ? readFileSync(p, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : [];
};
const session = (method: string, url: string, body: unknown, cookie: string) => apiRequest(method, url, { cookie, origin: TEST_ORIGIN }, body);
async function call(res: Promise<Response>): Promise<{ status: number; body: Json }> {
  const r = await res;
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : {} };
}
const agentRun = async (runId: string) => (await call(getAgentRun(apiRequest("GET", `/api/v1/runs/${runId}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId })))).body.run as Json;
const approve = (runId: string) =>
  call(approveRun(session("POST", `/api/runs/${runId}/approvals`, { planVersion: 1, stepIds: "all", idempotencyKey: `approve-${runId}`, acknowledgedConcurrentRuns: runIds.filter((r) => r !== runId) }, operator), routeCtx({ runId })));

/** An MCP SDK client on the /api/mcp route handler with the demo agent's key. */
async function agentClient(): Promise<Client> {
  const client = new Client({ name: "staged-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${TEST_ORIGIN}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${DEMO_AGENT_KEY}` } },
    fetch: async (url, init) => {
      const req = new Request(url, init);
      return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
    },
  });
  await client.connect(transport);
  return client;
}

/** Three staged redeliveries for task_74991 held as one plan: the first call opens a run, the next two join it. Returns the last answer (the run holding all three). */
async function stageThree(dates: string[]): Promise<Json> {
  const client = await agentClient();
  try {
    let runId: string | undefined;
    let answer: Json = {};
    for (const [i, date] of dates.entries()) {
      const result = (await client.callTool({ name: "stage_redelivery", arguments: { shipmentId: `sh_55${i}1`, date }, _meta: { "plandesk/taskId": "task_74991", ...(runId ? { "plandesk/runId": runId } : {}) } })) as Json;
      answer = result.structuredContent as Json;
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: "pending", runStatus: "pending_review" });
      runId = answer.runId;
    }
    runIds.push(answer.runId);
    return answer;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(tmpdir(), "plandesk-staged-"));
  process.env.PLANDESK_MCP_SERVERS = JSON.stringify({
    "staged-carrier": { command: "node", args: [...SERVER, "--state-dir", stateDir] },
    "staged-carrier-slow": { command: "node", args: [...SERVER, "--state-dir", stateDir, "--commit-delay-ms", "30000"] },
    "staged-carrier-late": { command: "node", args: [...SERVER, "--state-dir", stateDir, "--start-delay-ms", "3000"] },
  });
  await prepareTestDatabase(new Date());
  admin = await signInCookie("admin@plandesk.test");
  operator = await signInCookie("operator@plandesk.test");
  const registered = await call(registerServer(session("POST", "/api/admin/desks/freight/mcp-servers", { transport: "stdio", name: "staged-carrier", server: "staged-carrier" }, admin), routeCtx({ deskId: "freight" })));
  expect(registered.status).toBe(201);
  const imported = await call(importServer(session("POST", `/api/admin/desks/freight/mcp-servers/${registered.body.server.id}/import`, undefined, admin), routeCtx({ deskId: "freight", upstreamId: registered.body.server.id })));
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  // what an admin does for a new tool (as lib/server/demo/demo-gateway.ts does for the carrier): allow, grant, permit
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID }, select: { allowedTools: true } });
  await setAgentAllowedTools(ADMIN, DEMO_AGENT_ID, [...(agent.allowedTools as string[]), "stage_redelivery", "commit_redeliveries", "list_redeliveries", "book_collection", "cancel_collection"]);
  for (const userId of ["usr_operator", "usr_senior", "usr_supervisor"]) {
    for (const tool of ["stage_redelivery", "book_collection", "cancel_collection"]) await setGrant(ADMIN, userId, tool, { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null });
  }
  const catalog = await getIntentCatalogForAdmin(ADMIN, "freight");
  const intents = catalog.intents.map((i) => (i.name === DEMO_CARRIER_INTENT ? { ...i, permittedTools: [...i.permittedTools, "stage_redelivery", "list_redeliveries", "book_collection", "cancel_collection"] } : i));
  await saveIntentCatalog(ADMIN, "freight", { baseDigest: catalog.digest, intents, note: "staged redeliveries" });
}, 120_000);

afterAll(() => {
  delete process.env.PLANDESK_MCP_SERVERS;
  rmSync(stateDir, { recursive: true, force: true });
});

describe("a staged plan through Plandesk's MCP gateway: all or nothing", () => {
  it("the commit tool is Plandesk's alone: not listed to the agent and not callable, even when allowlisted", async () => {
    const client = await agentClient();
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("stage_redelivery");
      expect(names).not.toContain("commit_redeliveries");
      const refused = (await client.callTool({ name: "commit_redeliveries", arguments: { handles: ["stg_x"] }, _meta: { "plandesk/taskId": "task_74991" } })) as Json;
      expect(refused.structuredContent).toMatchObject({ status: "rejected", code: "not_found" });
    } finally {
      await client.close();
    }
    expect(log("calls")).toEqual([]);
  }, 60_000);

  it("an import whose staging or compensation cannot hold is refused with typed problems, and nothing changes", async () => {
    const upstream = await prisma.mcpUpstream.findFirstOrThrow({ where: { desk: "freight", name: "staged-carrier" } });
    const importWith = (bindings: Json) =>
      call(importServer(session("POST", `/api/admin/desks/freight/mcp-servers/${upstream.id}/import`, { bindings }, admin), routeCtx({ deskId: "freight", upstreamId: upstream.id })));
    const clash = await importWith({ stage_redelivery: { "x-plandesk-stage": { commit: "list_redeliveries" } } });
    expect(clash.status).toBe(422);
    expect(clash.body.error.problems).toEqual([expect.objectContaining({ name: "stage_redelivery", code: "contradictory_binding", path: "bindings.stage_redelivery.x-plandesk-stage" })]);
    const unknown = await importWith({ list_redeliveries: { "x-plandesk-compensate": { tool: "undo_everything" } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.problems).toEqual([expect.objectContaining({ name: "list_redeliveries", code: "contradictory_binding" })]);
    const missing = await importWith({ commit_redeliveries: { "x-plandesk-compensate": { tool: "undo_everything" } } });
    // a commit tool that declares anything itself breaks the pair's contract, and the tool it names is not listed
    expect(missing.body.error.problems).toEqual([
      expect.objectContaining({ name: "stage_redelivery", code: "not_a_commit_tool", path: "inputSchema.x-plandesk-stage" }),
      expect.objectContaining({ name: "commit_redeliveries", code: "unknown_compensating_tool", path: "inputSchema.x-plandesk-compensate" }),
    ]);
    // nothing was imported: the agent's tools are as before
    const client = await agentClient();
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["book_collection", "book_redelivery", "cancel_collection", "get_tracking", "list_redeliveries", "stage_redelivery"]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("three staged writes held as one plan, promoted: all three land at once, in one commit, after one commit call", async () => {
    const answer = await stageThree(["2026-12-20", "2026-12-21", "2026-12-22"]);
    const run = await agentRun(answer.runId);
    expect(run.steps).toHaveLength(3);
    // the joined runs were superseded by the one holding all three; nothing reached the carrier yet
    expect(await prisma.gatewayCall.count({ where: { runId: answer.runId, kind: "write", status: "pending" } })).toBe(3);
    await executeGatewaySteps();
    expect(log("calls")).toEqual([]);

    expect((await approve(answer.runId)).status).toBe(201);
    const pass = await executeGatewaySteps();
    expect(pass.staged).toHaveLength(3);
    expect(pass.promoted).toEqual([answer.runId]);
    const calls = log("calls");
    expect(calls.map((c) => c.tool)).toEqual(["stage_redelivery", "stage_redelivery", "stage_redelivery", "commit_redeliveries"]);
    expect(calls[3]._meta).toMatchObject({ "plandesk/idempotencyKey": `plandesk:${answer.runId}:promote` });
    const visible = log("visible");
    expect(visible.map((v) => [v.shipmentId, v.date])).toEqual([
      ["sh_5501", "2026-12-20"],
      ["sh_5511", "2026-12-21"],
      ["sh_5521", "2026-12-22"],
    ]);
    expect(new Set(visible.map((v) => v.commitId)).size).toBe(1);
    expect((await agentRun(answer.runId)).status).toBe("completed");
    expect((await prisma.gatewayCall.findMany({ where: { runId: answer.runId } })).map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    // no instance commits again
    await executeGatewaySteps();
    expect(log("calls")).toHaveLength(4);
  }, 120_000);

  it("stopped before promotion (the task revised after two of three staged): the target is untouched, no commit is made, and the run ends stopped with its reason", async () => {
    const callsBefore = log("calls").length;
    const visibleBefore = log("visible").length;
    const answer = await stageThree(["2026-12-23", "2026-12-24", "2026-12-26"]);
    expect((await approve(answer.runId)).status).toBe(201);
    // two of the three staged (a pass that gets to two rows), then the task moves on
    const first = await executeGatewaySteps({ limit: 2 });
    expect(first.staged).toHaveLength(2);
    expect(first.promoted).toEqual([]);
    const revised = await reviseTask(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }, { comment: "The customer will collect the parcels instead." }), routeCtx({ taskId: "task_74991" }));
    expect(revised.status).toBe(201);
    const second = await executeGatewaySteps();
    expect(second.promoted).toEqual([]);
    expect(second.discarded).toHaveLength(2);
    const calls = log("calls").slice(callsBefore);
    expect(calls.map((c) => c.tool)).toEqual(["stage_redelivery", "stage_redelivery"]);
    expect(log("visible")).toHaveLength(visibleBefore);
    const run = await prisma.run.findUniqueOrThrow({ where: { id: answer.runId } });
    expect(run.status).toBe("stopped");
    expect(run.stopReason).toMatchObject({ code: "stopped_stale_task" });
    const rows = await prisma.gatewayCall.findMany({ where: { runId: answer.runId }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.status).sort()).toEqual(["discarded", "discarded", "ended"]);
    expect(rows.filter((r) => r.status === "discarded").every((r) => r.error?.startsWith("staged_not_promoted"))).toBe(true);
    // later passes commit nothing
    await executeGatewaySteps();
    expect(log("calls").slice(callsBefore)).toHaveLength(2);
    expect(log("visible")).toHaveLength(visibleBefore);
  }, 120_000);

  it("all three staged, then the task is revised while Plandesk connects to commit: the promotion's re-check refuses, no commit is made, nothing is visible", async () => {
    const answer = await stageThree(["2026-12-30", "2026-12-31", "2027-01-02"]);
    expect((await approve(answer.runId)).status).toBe(201);
    const callsBefore = log("calls").length;
    const visibleBefore = log("visible").length;
    const servers = JSON.parse(process.env.PLANDESK_MCP_SERVERS!);
    await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "staged-carrier" }, data: { args: servers["staged-carrier-late"].args } });
    try {
      const pass = executeGatewaySteps();
      // every row "calling" at once: the three are staged and Plandesk is connecting to promote them
      await expect
        .poll(async () => (await prisma.gatewayCall.findMany({ where: { runId: answer.runId } })).filter((r) => r.status === "calling").length, { timeout: 60_000, interval: 50 })
        .toBe(3);
      expect(log("calls").slice(callsBefore).map((c) => c.tool)).toEqual(["stage_redelivery", "stage_redelivery", "stage_redelivery"]);
      const revised = await reviseTask(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }, { comment: "Hold every redelivery." }), routeCtx({ taskId: "task_74991" }));
      expect(revised.status).toBe(201);
      const done = await pass;
      expect(done.promoted).toEqual([]);
    } finally {
      await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "staged-carrier" }, data: { args: servers["staged-carrier"].args } });
    }
    expect(log("calls").slice(callsBefore).map((c) => c.tool)).toEqual(["stage_redelivery", "stage_redelivery", "stage_redelivery"]);
    expect(log("visible")).toHaveLength(visibleBefore);
    const rows = await prisma.gatewayCall.findMany({ where: { runId: answer.runId } });
    expect(rows.map((r) => r.status)).toEqual(["discarded", "discarded", "discarded"]);
    expect(rows[0].error).toContain("re-check before promotion refused");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: answer.runId } })).status).toBe("stopped");
  }, 120_000);

  it("a promotion whose answer is lost is unknown for every step and never committed again", async () => {
    const answer = await stageThree(["2026-12-27", "2026-12-28", "2026-12-29"]);
    expect((await approve(answer.runId)).status).toBe(201);
    const callsBefore = log("calls").length;
    const slow = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["staged-carrier-slow"];
    const fast = JSON.parse(process.env.PLANDESK_MCP_SERVERS!)["staged-carrier"];
    await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "staged-carrier" }, data: { args: slow.args } });
    try {
      // 12 s: time enough to start the carrier for each call under load, less than its commit's 30 s answer
      const pass = await executeGatewaySteps({ callTimeoutMs: 12_000 });
      expect(pass.promoted).toEqual([]);
      expect(pass.staged).toHaveLength(3);
    } finally {
      await prisma.mcpUpstream.updateMany({ where: { desk: "freight", name: "staged-carrier" }, data: { args: fast.args } });
    }
    expect((await prisma.gatewayCall.findMany({ where: { runId: answer.runId } })).map((r) => r.status)).toEqual(["unknown", "unknown", "unknown"]);
    expect((await prisma.stepExecution.findMany({ where: { runId: answer.runId } })).map((e) => e.status)).toEqual(["unknown", "unknown", "unknown"]);
    await executeGatewaySteps();
    expect(log("calls").slice(callsBefore).filter((c) => c.tool === "commit_redeliveries")).toHaveLength(1);
  }, 120_000);
  it("after a partial stop of writes that declare a compensating tool, a person asks to undo: a new plan of compensating steps, reviewed, then executed by Plandesk; the rest of the run stays a typed partial stop", async () => {
    const callsBefore = log("calls").length;
    const client = await agentClient();
    let runId = "";
    try {
      for (const [i, date] of ["2027-01-04", "2027-01-05"].entries()) {
        const result = (await client.callTool({ name: "book_collection", arguments: { shipmentId: `sh_700${i}`, date }, _meta: { "plandesk/taskId": "task_74991", ...(runId ? { "plandesk/runId": runId } : {}) } })) as Json;
        runId = (result.structuredContent as Json).runId;
      }
    } finally {
      await client.close();
    }
    runIds.push(runId);
    expect((await approve(runId)).status).toBe(201);
    // the first collection is booked (visible at once), then the task moves on: the run stops part-way
    expect((await executeGatewaySteps({ limit: 1 })).executed).toHaveLength(1);
    expect((await reviseTask(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }, { comment: "No collections after all." }), routeCtx({ taskId: "task_74991" }))).status).toBe(201);
    await executeGatewaySteps();
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("stopped");
    expect(log("visible").filter((v) => v.collection)).toEqual([{ collection: "booked", shipmentId: "sh_7000", date: "2027-01-04" }]);

    // what the run page offers before anyone asks: exactly the calls the undo then submits, none proposed yet
    const viewer = (await loadViewer("usr_operator"))!;
    const offer = await previewUndo(viewer, runId);
    expect(offer).toEqual({
      kind: "offer",
      calls: [{ tool: "cancel_collection", args: { shipmentId: "sh_7000", date: "2027-01-04" }, undoes: expect.objectContaining({ position: 1, tool: "book_collection" }) }],
      proposedRunId: null,
    });
    // the undo is a plan, not a write: nothing reaches the carrier until a person approves it
    const undo = await call(undoRun(session("POST", `/api/runs/${runId}/undo`, undefined, operator), routeCtx({ runId })));
    expect(undo.status, JSON.stringify(undo.body)).toBe(201);
    expect(undo.body.run.steps.map((s: Json) => [s.tool, s.args])).toEqual(offer!.kind === "offer" ? offer!.calls.map((c) => [c.tool, c.args]) : []);
    expect(await previewUndo(viewer, runId)).toMatchObject({ kind: "offer", proposedRunId: undo.body.run.id });
    expect(undo.body.run).toMatchObject({ status: "pending_review", steps: [expect.objectContaining({ tool: "cancel_collection", args: { shipmentId: "sh_7000", date: "2027-01-04" } })] });
    expect(undo.body.run.steps).toHaveLength(1);
    const again = await call(undoRun(session("POST", `/api/runs/${runId}/undo`, undefined, operator), routeCtx({ runId })));
    expect(again.status).toBe(200);
    expect(again.body.run.id).toBe(undo.body.run.id);
    await executeGatewaySteps();
    expect(log("calls").slice(callsBefore).map((c) => c.tool)).toEqual(["book_collection"]);

    runIds.push(undo.body.run.id);
    expect((await approve(undo.body.run.id)).status).toBe(201);
    await executeGatewaySteps();
    const calls = log("calls").slice(callsBefore);
    expect(calls.map((c) => [c.tool, c.arguments])).toEqual([
      ["book_collection", { shipmentId: "sh_7000", date: "2027-01-04" }],
      ["cancel_collection", { shipmentId: "sh_7000", date: "2027-01-04" }],
    ]);
    expect(log("visible").filter((v) => v.collection).map((v) => v.collection)).toEqual(["booked", "cancelled"]);

    // a run that completed, or whose tools declare no compensating tool, has nothing to undo
    const completed = runIds[0];
    const refused = await call(undoRun(session("POST", `/api/runs/${completed}/undo`, undefined, operator), routeCtx({ runId: completed })));
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "nothing_to_undo", reason: "not_stopped" } } });
    expect(await previewUndo(viewer, completed)).toBeNull();
  }, 180_000);
});
