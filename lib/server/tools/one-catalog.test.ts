/**
 * One catalog everywhere: the gate-policy dry-run, the rule editor's and the agent form's tool
 * lists, and agent creation all see built-in and imported tools of the catalog — the same one
 * submissions, edits, approvals and claims are validated against. On this file's own database.
 */
import { reviseTask } from "../tasks/revise-task";
import { DEMO_AGENT_ID, DEMO_INTEGRATION_ID } from "../demo/seed";
import { beforeAll, describe, expect, it } from "vitest";
import { gateRule } from "../../gate-policy/rules";
import { defaultGateRules } from "../../gate-policy/defaults";
import { toolCatalog, toolNames } from "../../tools/builtin-tools";
import { draftsFromMcpTools, type McpToolEntry } from "../../tools/json-schema-tool";
import { createAgent } from "../admin/admin";
import { prisma } from "../db/db";
import { toJsonColumn } from "../db/json-column";
import { dryRunGatePolicy } from "../plan-check/dry-run-gate-policy";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, refused } from "../../../testing/test-support";
import { catalogToolsForAdmin, importDrafts, setAgentAllowedTools } from "./imported-tools";

const BUILT_IN = new Set<string>(toolNames);
let admin: Viewer;
let senior: Viewer;
let agent: AgentCaller;

/** Two imported tools: an additive one (reversible, gate approval) and a destructive one (irreversible). */
const IMPORTED: McpToolEntry[] = [
  { name: "book_carrier_slot", description: "Books a carrier slot", inputSchema: { type: "object", properties: { shipmentId: { type: "string" } }, required: ["shipmentId"], additionalProperties: false }, annotations: { destructiveHint: false } },
  { name: "purge_pickup", description: "Deletes a pickup", inputSchema: { type: "object", properties: { shipmentId: { type: "string" } }, required: ["shipmentId"], additionalProperties: false } },
];
const stepOf = (id: string, tool: string) => ({ id, tool, args: { shipmentId: "sh_5521" }, rationale: "The carrier needs it." });

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = (await loadViewer("usr_admin"))!;
  senior = (await loadViewer("usr_senior"))!;
  const res = await importDrafts(draftsFromMcpTools(IMPORTED, "test", BUILT_IN), { kind: "mcp", ref: "test" }, { kind: "system" });
  expect(res.added).toEqual(["book_carrier_slot", "purge_pickup"]);
  const a = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } }) // the freight agent (the retail desk has its own);
  await setAgentAllowedTools(admin, a.id, [...(a.allowedTools as string[]), "book_carrier_slot", "purge_pickup"]);
  const updated = await prisma.agent.findUniqueOrThrow({ where: { id: a.id } });
  agent = { id: updated.id, name: updated.name, allowedTools: updated.allowedTools as string[], keyId: "k" };
}, 60_000);

describe("the gate-policy dry-run reads each run's catalog", () => {
  it("an imported reversible tool can show as auto under a draft rule; an irreversible one never does", async () => {
    // imported tools are in no intent of the demo catalog: an admin adds one that permits them, and the integration names it
    await prisma.deskIntent.create({ data: { desk: "freight", name: "carrier_operations", label: "Carrier operations", permittedTools: toJsonColumn(["book_carrier_slot", "purge_pickup"]), position: 99 } });
    const task = await reviseTask("task_74991", { contract: { intent: "carrier_operations", constraints: {} } }, { kind: "integration", id: DEMO_INTEGRATION_ID });
    const { run } = await submitRun(agent, "task_74991", { taskRevision: task.revision, steps: [stepOf("s_slot", "book_carrier_slot"), stepOf("s_purge", "purge_pickup")] }, null);
    expect(run.catalogVersion).toBe(2); // the demo seed imported the carrier's tools as version 1
    const rules = [...defaultGateRules(Object.values(toolCatalog)), gateRule({ tool: "book_carrier_slot", decision: "auto" }), gateRule({ tool: "purge_pickup", decision: "auto" })];
    const result = await dryRunGatePolicy(admin, { rules, lastRuns: 5 });
    const changed = result.changed.find((c) => c.runId === run.id);
    expect(changed?.steps).toEqual([{ stepId: "s_slot", tool: "book_carrier_slot", amount: null, before: "1 approver", after: "auto" }]);
  });
});

describe("the admin forms list the one catalog", () => {
  it("the rule editor's and the agent form's tools: built-in first, then imported, marked", async () => {
    const { catalogVersion, tools } = await catalogToolsForAdmin(admin);
    expect(catalogVersion).toBe(2);
    // imported by name: this file's two and the demo carrier's (imported by the seed)
    const imported = ["book_carrier_slot", "book_redelivery", "get_tracking", "purge_pickup"];
    expect(tools.map((t) => t.name)).toEqual([...toolNames, ...imported]);
    expect(tools.filter((t) => t.imported).map((t) => t.name)).toEqual(imported);
    expect(tools.find((t) => t.name === "cancel_shipment")).toEqual({ name: "cancel_shipment", label: "Cancel shipment", imported: false });
    await expect(catalogToolsForAdmin(senior)).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("createAgent accepts what PUT …/allowed-tools accepts", () => {
  it("an imported tool name is allowed, stored in catalog order without duplicates", async () => {
    const a = await createAgent(admin, { name: "Carrier bot", allowedTools: ["book_carrier_slot", "add_ticket_note", "book_carrier_slot"] });
    expect(a.allowedTools).toEqual(["add_ticket_note", "book_carrier_slot"]);
  });

  it("a name the catalog does not know is a typed 400 naming it, and no agent is created", async () => {
    const before = await prisma.agent.count();
    const e = await refused(createAgent(admin, { name: "Ghost bot", allowedTools: ["add_ticket_note", "wire_money"] }));
    expect(e.code).toBe("bad_request");
    expect(e.details).toMatchObject({ unknown: ["wire_money"] });
    expect(await prisma.agent.count()).toBe(before);
  });
});
