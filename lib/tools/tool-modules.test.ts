import { describe, expect, it } from "vitest";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../demo/desk-data";
import { previewEffects } from "../effects/preview";
import { REFERENCE_NOW, referenceDesk } from "../../testing/fixtures/reference-desk";
import { one, validArgs } from "../../testing/validation-context";
import { builtinTools, toolNames } from "./builtin-tools";
import { catalogWith } from "./versioned-catalog";
import { REFERENCE_WRITES } from "../server/demo/reference-writes";

const desk = referenceDesk(REFERENCE_NOW);

describe("every built-in tool is one module with everything it needs", () => {
  const demo = buildDemoDesk(REFERENCE_NOW);
  for (const tool of builtinTools()) {
    describe(tool.name, () => {
      it("its example arguments pass validation on the reference desk", () => {
        const r = one(tool.name, validArgs[tool.name as keyof typeof validArgs]);
        expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
      });
      it("its effect is known and previews its example", () => {
        expect(tool.effectModel.kind).toBe("known");
        const [e] = previewEffects([{ id: "x", tool: tool.name, args: tool.seed.example(dayOf) }], desk);
        expect(e.status).toBe("previewed");
      });
      it("has a reference write, is granted by class and the demo agent may call it", () => {
        expect(typeof REFERENCE_WRITES[tool.name as keyof typeof REFERENCE_WRITES]).toBe("function");
        expect(["plain", "money"]).toContain(tool.grantClass);
        expect(DEMO_AGENT_TOOLS).toContain(tool.name);
      });
      it("brings at least one demo scenario that calls it, on a ticket the demo desk has", () => {
        const runs = demo.runs.filter((r) => r.steps.some((s) => s.tool === tool.name));
        expect(runs.length).toBeGreaterThan(0);
        for (const r of runs) expect(demo.tickets.some((t) => t.id === r.ticketId)).toBe(true);
      });
    });
  }

  it("scenario keys and ticket ids of the demo desk are unique", () => {
    expect(new Set(demo.runs.map((r) => r.key)).size).toBe(demo.runs.length);
    expect(new Set(demo.tickets.map((t) => t.id)).size).toBe(demo.tickets.length);
    expect(new Set(demo.shipments.map((s) => s.id)).size).toBe(demo.shipments.length);
  });

  it("an imported tool passes through the same interface with the generic effect", () => {
    const catalog = catalogWith([{ name: "open_claim", label: "Open claim", description: "Opens a claim", inputSchema: { type: "object", properties: {} }, annotations: {}, effect: "irreversible", gate: "approval", source: "mcp", sourceRef: "test", catalogVersion: 1 }], 1);
    const tool = catalog.get("open_claim")!;
    expect(tool.effectModel).toEqual({ kind: "unknown", reason: "No preview: effect unknown (an imported tool)" });
    expect(tool.grantClass).toBe("plain");
    expect(catalog.names()).toEqual([...toolNames, "open_claim"]);
  });
});

/** ISO date n days after the reference clock. */
function dayOf(n: number): string {
  return new Date(REFERENCE_NOW.getTime() + n * 86_400_000).toISOString().slice(0, 10);
}
