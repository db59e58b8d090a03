import { DEMO_AGENT_ID } from "../demo/seed";
import { addDays, formatISO } from "date-fns";
import { beforeAll, describe, expect, it } from "vitest";
import { toolNames } from "../../tools/builtin-tools";
import { draftsFromMcpTools, draftsFromOpenAiFunctions } from "../../tools/json-schema-tool";
import { setGrant } from "../admin/admin";
import { approveSteps } from "../approvals/approve-steps";
import { claimStep } from "../claims/claim-step";
import { prisma } from "../db/db";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, refused } from "../../../testing/test-support";
import { catalogAt, currentCatalog, importDrafts, importedToolsAt, importToolsAsAdmin, latestCatalogVersion, listMcpServerTools, setAgentAllowedTools } from "./imported-tools";

/** The current catalog's definition of imported tool `name`. */
async function importedToolsOf(name: string) {
  return (await importedToolsAt(await latestCatalogVersion())).find((t) => t.name === name)!;
}
import { digest } from "../../plan/digest";

const BUILT_IN = new Set<string>(toolNames);
const day = (n: number) => formatISO(addDays(new Date(), n), { representation: "date" });
let admin: Viewer;
let senior: Viewer;
let tools: Awaited<ReturnType<typeof listMcpServerTools>>;

async function demoAgent(): Promise<AgentCaller> {
  const a = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } }) // the freight agent (the retail desk has its own);
  return { id: a.id, name: a.name, allowedTools: a.allowedTools as string[], keyId: "k" };
}
const inspection = (args: Record<string, unknown> = {}) => ({
  id: "s_insp",
  tool: "book_inspection",
  args: { shipmentId: "sh_5521", date: day(3), slot: "morning", inspectors: 3, urgent: false, contact: { name: "Kari Nordmann" }, checks: ["seals"], ...args },
  rationale: "The customer reports damage on arrival.",
});

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = (await loadViewer("usr_admin"))!;
  senior = (await loadViewer("usr_senior"))!;
  // The official SDK's client lists the tools of a local stdio MCP server this test starts.
  tools = await listMcpServerTools(process.execPath, ["--import", "tsx", "testing/mcp-test-server.ts"]);
}, 60_000);

describe("tool catalog imported from a local MCP server", () => {
  it("imports its tools as the catalog's next version (2: the demo seed imported the carrier as version 1) with gate defaults from annotations, refusing a name Plandesk cannot use", async () => {
    expect((await currentCatalog()).version).toBe(1);
    expect(tools.map((t) => t.name)).toEqual(["book_inspection", "lookup_carrier_status", "cancel_pickup", "carrier.notify"]);
    const res = await importDrafts(draftsFromMcpTools(tools, "node testing/mcp-test-server.ts", BUILT_IN), { kind: "mcp", ref: "node testing/mcp-test-server.ts" }, { kind: "system" });
    expect(res).toMatchObject({ catalogVersion: 2, created: true, added: ["book_inspection", "lookup_carrier_status", "cancel_pickup"], changed: [], unchanged: [] });
    expect(res.problems.map((p) => p.name)).toEqual(["carrier.notify"]);
    const catalog = await currentCatalog();
    expect(catalog.version).toBe(2);
    expect(["book_inspection", "lookup_carrier_status", "cancel_pickup"].map((n) => [catalog.get(n)?.effect, catalog.get(n)?.gate])).toEqual([
      ["reversible", "approval"],
      ["internal", "auto"],
      ["irreversible", "approval"],
    ]);
    // the same tools again: nothing changed, no new version
    const again = await importDrafts(draftsFromMcpTools(tools, "again", BUILT_IN), { kind: "mcp", ref: "again" }, { kind: "system" });
    expect(again).toMatchObject({ catalogVersion: 2, created: false, unchanged: ["book_inspection", "lookup_carrier_status", "cancel_pickup"] });
  });

  it("the agent's allowlist decides whether it may call an imported tool", async () => {
    const agent = await demoAgent();
    const err = await refused(submitRun(agent, "task_74991", { taskRevision: 1, steps: [inspection()] }, null));
    expect(err.code).toBe("validation_failed");
    expect((err.details.issues as { code: string }[]).map((i) => i.code)).toEqual(["tool_not_allowed"]);
    await setAgentAllowedTools(admin, agent.id, [...agent.allowedTools, "book_inspection"]);
    await expect(setAgentAllowedTools(admin, agent.id, ["no_such_tool"])).rejects.toMatchObject({ code: "bad_request" });
    await expect(setAgentAllowedTools(senior, agent.id, ["book_inspection"])).rejects.toMatchObject({ code: "forbidden" });
  });

  it("validates a submission against the tool's schema with typed issues at the argument's path", async () => {
    const agent = await demoAgent();
    const err = await refused(submitRun(agent, "task_74991", { taskRevision: 1, steps: [inspection({ inspectors: 9, date: "2026-02-30", slot: "night", contact: {}, extra: true })] }, null));
    const issues = (err.details.issues as { code: string; path: string; stage: string }[]).map((i) => [i.stage, i.code, i.path]);
    expect(issues).toEqual(
      expect.arrayContaining([
        ["shape", "too_big", "steps.0.args.inspectors"],
        ["shape", "invalid_format", "steps.0.args.date"],
        ["shape", "invalid_value", "steps.0.args.slot"],
        ["shape", "missing_field", "steps.0.args.contact.name"],
        ["shape", "unknown_field", "steps.0.args.extra"],
      ]),
    );
  });

  it("a run records the catalog version it was validated against and keeps it when the catalog changes", async () => {
    const agent = await demoAgent();
    const { run } = await submitRun(agent, "task_74991", { taskRevision: 1, steps: [inspection()] }, null);
    expect(run.steps[0].gate).toBe("approval_required");
    const row = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.catalogVersion).toBe(2);

    // Version 3: the same tool now allows at most 2 inspectors (an OpenAI-style redefinition).
    const v1 = (await catalogAt(2)).imported.find((t) => t.name === "book_inspection")!;
    const tighter = { ...v1.inputSchema, properties: { ...(v1.inputSchema.properties as object), inspectors: { type: "integer", minimum: 1, maximum: 2 } } };
    const res = await importDrafts(draftsFromOpenAiFunctions([{ type: "function", function: { name: "book_inspection", description: v1.description, parameters: tighter } }], "tighter", BUILT_IN), { kind: "openai", ref: "tighter" }, { kind: "system" });
    expect(res).toMatchObject({ catalogVersion: 3, changed: ["book_inspection"] });
    const fresh = await refused(submitRun(agent, "task_74991", { taskRevision: 1, steps: [inspection({ inspectors: 3 })] }, null));
    expect((fresh.details.issues as { code: string }[]).map((i) => i.code)).toEqual(["too_big"]);

    // The earlier run is still judged by version 2: a person with a grant approves it and the executor claims it.
    await setGrant(admin, senior.id, "book_inspection", { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null });
    const approver = (await loadViewer(senior.id))!;
    await approveSteps(approver, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `approve-${run.id}` });
    const claim = await claimStep(agent, run.id, "s_insp", { digest: digest(run.steps[0]), taskRevision: 1 }, `claim-${run.id}`);
    expect(claim.claim.token).toHaveLength(32);
  });

  it("an admin imports pasted tools/list JSON in the console; other roles are refused", async () => {
    const payload = { tools: [{ name: "print_label", title: "Print label", inputSchema: { type: "object", properties: { copies: { type: "integer", minimum: 1 } }, required: ["copies"] }, annotations: { readOnlyHint: false, destructiveHint: false } }] };
    await expect(importToolsAsAdmin(senior, { source: "mcp_tools_list", label: "pasted", payload })).rejects.toMatchObject({ code: "forbidden" });
    const res = await importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "pasted", payload });
    expect(res).toMatchObject({ catalogVersion: 4, added: ["print_label"] });
    await expect(importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "x", payload: { tools: [{ name: "bad name", inputSchema: { type: "object" } }] } })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(importToolsAsAdmin(admin, { source: "mcp_server", server: "not-configured" })).rejects.toMatchObject({ code: "bad_request" });
    const audit = await prisma.auditEvent.findMany({ where: { type: "admin_change" }, orderBy: { seq: "desc" }, take: 1 });
    expect(audit[0].data).toMatchObject({ what: "tool_catalog.import", catalogVersion: 4, added: ["print_label"] });
  });

  it("a re-import cannot turn a write into a read-only tool (which the MCP gateway would forward without approval)", async () => {
    const write = { name: "post_parcel", inputSchema: { type: "object", properties: { parcelId: { type: "string" } }, required: ["parcelId"] }, annotations: { readOnlyHint: false } };
    const first = await importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "parcel service", payload: { tools: [write] } });
    expect(first.added).toEqual(["post_parcel"]);
    const flipped = await importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "parcel service", payload: { tools: [{ ...write, annotations: { readOnlyHint: true } }] } });
    expect(flipped).toMatchObject({ created: false, changed: [], problems: [expect.objectContaining({ name: "post_parcel", code: "read_only_changed" })] });
    expect((await importedToolsOf("post_parcel")).gate).not.toBe("auto"); // still gated as a write
    expect((await importedToolsOf("post_parcel")).annotations).toEqual({ readOnlyHint: false });
  });

  it("an import is capped at 200 tools, and hostile names and recursive schemas are refused with nothing stored", async () => {
    const before = await prisma.toolCatalogVersion.count();
    const many = Array.from({ length: 3000 }, (_, i) => ({ name: `bulk_${i}`, inputSchema: { type: "object" } }));
    const err = await refused(importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "bulk", payload: { tools: many } }));
    expect(err.code).toBe("validation_failed");
    expect(err.details).toMatchObject({ limit: 200, listed: 3000 });
    const hostile = {
      tools: [
        { name: "__proto__", inputSchema: { type: "object" } },
        { name: "constructor", inputSchema: { type: "object" } },
        { name: "Issue_Refund", inputSchema: { type: "object" } },
        { name: "tree", inputSchema: { type: "object", properties: { child: { $ref: "#" } } } },
      ],
    };
    const refusedAll = await refused(importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "hostile", payload: hostile }));
    expect(refusedAll.code).toBe("validation_failed");
    expect((refusedAll.details.problems as { name: string }[]).map((p) => p.name)).toEqual(["__proto__", "constructor", "Issue_Refund", "tree"]);
    expect(await prisma.toolCatalogVersion.count()).toBe(before);
  });
});

describe("an imported tool's hostile schema and dates, through a submission (SQLite and PostgreSQL)", () => {
  it('a pattern "(a+)+$" is judged on RE2: 50,000 characters that do not match are refused at once, a match is stored', async () => {
    // print_label (a tool the delivery-exception intent of task_74991 permits) gets a label with that pattern
    const payload = { tools: [{ name: "print_label", inputSchema: { type: "object", properties: { copies: { type: "integer", minimum: 1 }, label: { type: "string", pattern: "(a+)+$" } }, required: ["copies", "label"] } }] };
    expect(await importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "redos", payload })).toMatchObject({ changed: ["print_label"] });
    const agent = await demoAgent();
    await setAgentAllowedTools(admin, agent.id, [...agent.allowedTools, "print_label"]);
    const label = (text: string) => ({ id: "s_label", tool: "print_label", args: { copies: 1, label: text }, rationale: "The parcel needs a new label." });
    const started = Date.now();
    const err = await refused(submitRun(await demoAgent(), "task_74991", { taskRevision: 1, steps: [label(`${"a".repeat(50_000)}!`)] }, null));
    expect(Date.now() - started).toBeLessThan(2_000); // a backtracking engine would not finish 50,000 characters in a lifetime
    expect((err.details.issues as { code: string; path: string }[]).map((i) => [i.code, i.path])).toEqual([["invalid_format", "steps.0.args.label"]]);
    const { run } = await submitRun(await demoAgent(), "task_74991", { taskRevision: 1, steps: [label("a".repeat(50_000))], addition: true }, null);
    expect(run.steps[0].args).toEqual({ copies: 1, label: "a".repeat(50_000) });
  });

  it("a date argument beyond the date horizon (one year by default) is refused: book_inspection on 9999-12-31", async () => {
    const err = await refused(submitRun(await demoAgent(), "task_74991", { taskRevision: 1, steps: [inspection({ inspectors: 2, date: "9999-12-31" })] }, null));
    expect(err.code).toBe("validation_failed");
    expect(err.details.issues).toEqual([expect.objectContaining({ stage: "argument_bounds", code: "date_beyond_horizon", severity: "error", path: "steps.0.args.date", details: { date: "9999-12-31", horizon: day(366), horizonDays: 366 } })]);
    const { run } = await submitRun(await demoAgent(), "task_74991", { taskRevision: 1, steps: [inspection({ inspectors: 2, date: day(300) })], addition: true }, null);
    expect(run.steps[0].args.date).toBe(day(300));
  });
});
