/**
 * Staging and compensation declared by imported tools (lib/tools/tool-bindings.ts): a write tool
 * names its commit tool (`x-plandesk-stage`) or its compensating tool (`x-plandesk-compensate`) on
 * its input schema's root, or the admin adds them at import; what cannot hold is refused with a
 * typed code and the keyword's path.
 */
import { describe, expect, it } from "vitest";
import { normaliseInputSchema } from "./json-schema-tool";
import type { JsonSchema } from "./meta-catalog";
import { checkImportStaging, mergeAdminBindings, readToolBindings, stagingOfSchema, type StagingCheckTool } from "./tool-bindings";

const schema = (props: Record<string, unknown>, required: string[], root: Record<string, unknown> = {}): JsonSchema => normaliseInputSchema({ type: "object", properties: props, required, ...root });
const stageTool = (root: Record<string, unknown> = { "x-plandesk-stage": { commit: "commit_bookings" } }): StagingCheckTool => ({
  name: "stage_booking",
  inputSchema: schema({ shipmentId: { type: "string" }, date: { type: "string", format: "date" } }, ["shipmentId", "date"], root),
  readOnly: false,
});
const commitTool = (props: Record<string, unknown> = { handles: { type: "array", items: { type: "string" } } }, required = ["handles"], readOnly = false): StagingCheckTool => ({ name: "commit_bookings", inputSchema: schema(props, required), readOnly });
const codes = (tools: StagingCheckTool[]) => [...checkImportStaging(tools).entries()].flatMap(([name, ps]) => ps.map((p) => `${name}:${p.code}:${p.path}`));

describe("staging and compensation at import", () => {
  it("a write that names a listed commit tool taking exactly handles is accepted, and its staging is read from the stored schema", () => {
    const tools = [stageTool(), commitTool()];
    expect(codes(tools)).toEqual([]);
    expect(readToolBindings(tools[0].inputSchema).ok).toBe(true);
    expect(stagingOfSchema(tools[0].inputSchema)).toEqual({ commit: "commit_bookings", compensate: null });
    expect(stagingOfSchema(tools[1].inputSchema)).toEqual({ commit: null, compensate: null });
  });

  it("refuses an unknown commit tool, a commit tool breaking the contract, and contradictions — each with its code and path", () => {
    expect(codes([stageTool()])).toEqual(["stage_booking:unknown_commit_tool:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool(), commitTool(undefined, undefined, true)])).toEqual(["stage_booking:not_a_commit_tool:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool(), commitTool({ ids: { type: "array", items: { type: "string" } } }, ["ids"])])).toEqual(["stage_booking:not_a_commit_tool:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool(), commitTool({ handles: { type: "array", items: { type: "string" } }, note: { type: "string" } }, ["handles", "note"])])).toEqual(["stage_booking:not_a_commit_tool:inputSchema.x-plandesk-stage"]);
    expect(codes([{ ...stageTool(), readOnly: true }, commitTool()])).toEqual(["stage_booking:contradictory_binding:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool({ "x-plandesk-stage": { commit: "stage_booking" } })])).toEqual(["stage_booking:contradictory_binding:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool({ "x-plandesk-stage": "commit_bookings" }), commitTool()])).toEqual(["stage_booking:invalid_binding:inputSchema.x-plandesk-stage"]);
    expect(codes([stageTool({ "x-plandesk-stage": { commit: "commit_bookings" }, "x-plandesk-compensate": { tool: "cancel_booking" } }), commitTool()])).toEqual([
      "stage_booking:contradictory_binding:inputSchema.x-plandesk-compensate",
    ]);
  });

  it("a compensating tool must be a listed write that does not stage", () => {
    const book = stageTool({ "x-plandesk-compensate": { tool: "cancel_booking" } });
    const cancel = (readOnly = false, root: Record<string, unknown> = {}): StagingCheckTool => ({ name: "cancel_booking", inputSchema: schema({ shipmentId: { type: "string" }, date: { type: "string" } }, ["shipmentId"], root), readOnly });
    expect(codes([book, cancel()])).toEqual([]);
    expect(stagingOfSchema(book.inputSchema)).toEqual({ commit: null, compensate: "cancel_booking" });
    expect(codes([book])).toEqual(["stage_booking:unknown_compensating_tool:inputSchema.x-plandesk-compensate"]);
    expect(codes([book, cancel(true)])).toEqual(["stage_booking:contradictory_binding:inputSchema.x-plandesk-compensate"]);
    expect(codes([book, cancel(false, { "x-plandesk-stage": { commit: "commit_bookings" } }), commitTool()])).toEqual(["stage_booking:contradictory_binding:inputSchema.x-plandesk-compensate"]);
  });

  it("a tool-level keyword on an argument is misplaced; an unknown x-plandesk keyword at the root is unknown", () => {
    const onArg = schema({ shipmentId: { type: "string", "x-plandesk-stage": { commit: "commit_bookings" } } }, ["shipmentId"]);
    const r = readToolBindings(onArg);
    expect(r.ok ? [] : r.problems.map((p) => [p.code, p.path])).toEqual([["misplaced_binding", "inputSchema.properties.shipmentId.x-plandesk-stage"]]);
    const unknown = readToolBindings(schema({ shipmentId: { type: "string" } }, ["shipmentId"], { "x-plandesk-commit": true }));
    expect(unknown.ok ? [] : unknown.problems.map((p) => p.code)).toEqual(["unknown_binding"]);
  });

  it("the admin adds staging at import; a value unlike the server's is contradictory", () => {
    const plain = stageTool({}).inputSchema;
    const merged = mergeAdminBindings(plain, { "x-plandesk-stage": { commit: "commit_bookings" } });
    expect(merged.ok && stagingOfSchema(merged.schema)).toEqual({ commit: "commit_bookings", compensate: null });
    const clash = mergeAdminBindings(stageTool().inputSchema, { "x-plandesk-stage": { commit: "other_commit" } });
    expect(clash.ok ? [] : clash.problems.map((p) => [p.code, p.path])).toEqual([["contradictory_binding", "bindings.x-plandesk-stage"]]);
  });
});
