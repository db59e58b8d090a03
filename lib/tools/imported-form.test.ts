import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it } from "vitest";
import { PlanForm } from "../../components/plan-form";
import { PlanSteps } from "../../components/plan-steps";
import { REFERENCE_NOW, referenceDesk } from "../../testing/fixtures/reference-desk";
import { planFormSchemaFor } from "../plan/form-schema";
import { listMcpServerTools } from "../server/tools/imported-tools";
import { validatePlan } from "../validation/pipeline";
import { DEMO_AGENT_TOOLS } from "../demo/desk-data";
import { toolNames } from "./builtin-tools";
import { draftsFromMcpTools } from "./json-schema-tool";
import { catalogWith, type ToolCatalog } from "./versioned-catalog";

let catalog: ToolCatalog;
const args = { shipmentId: "sh_5521", date: "2026-04-03", slot: "morning", inspectors: 2, urgent: true, contact: { name: "Kari Nordmann" }, checks: ["seals", "pallets"] };

beforeAll(async () => {
  // The tool as a local MCP server publishes it (official SDK, stdio), imported as catalog version 1.
  const tools = await listMcpServerTools(process.execPath, ["--import", "tsx", "testing/mcp-test-server.ts"]);
  const { drafts } = draftsFromMcpTools(tools, "local", new Set<string>(toolNames));
  catalog = catalogWith(drafts.map((d) => ({ ...d, catalogVersion: 1 })), 1);
}, 60_000);

function renderForm(stepArgs: Record<string, unknown>) {
  return renderToStaticMarkup(
    createElement(
      QueryClientProvider,
      { client: new QueryClient() },
      createElement(PlanForm, {
        runId: "run_x",
        baseVersion: 1,
        steps: [{ id: "s1", tool: "book_inspection", args: stepArgs }],
        desk: referenceDesk(REFERENCE_NOW),
        ticketId: "74991",
        ticketAccountId: "acc_nordkapp",
        grants: [],
        onSaved: () => {},
        onCancel: () => {},
        onConflict: () => {},
        catalog,
      }),
    ),
  );
}

/** The opening tag of the element with `id` in `html`. */
function tagOf(html: string, id: string): string {
  const m = new RegExp(`<(input|select|textarea)[^>]*id="${id.replace(/\./g, "\\.")}"[^>]*>`).exec(html);
  if (!m) throw new Error(`no input #${id}`);
  return m[0];
}

describe("an MCP tool imported from a local server", () => {
  it("renders as a typed form: date, date-time, number with bounds, checkbox, enum select, nested object, array", () => {
    const html = renderForm(args);
    expect(tagOf(html, "steps.0.args.date")).toMatch(/type="date"/);
    expect(tagOf(html, "steps.0.args.date")).toMatch(/value="2026-04-03"/);
    expect(tagOf(html, "steps.0.args.notBefore")).toMatch(/type="datetime-local"/);
    const n = tagOf(html, "steps.0.args.inspectors");
    expect(n).toMatch(/type="number"/);
    expect(n).toMatch(/min="1"/);
    expect(n).toMatch(/max="4"/);
    expect(n).toMatch(/step="1"/);
    expect(tagOf(html, "steps.0.args.urgent")).toMatch(/type="checkbox"/);
    expect(tagOf(html, "steps.0.args.urgent")).toMatch(/checked/);
    expect(tagOf(html, "steps.0.args.slot")).toMatch(/^<select/);
    expect(html).toMatch(/<option value="morning" selected="">morning<\/option><option value="afternoon">afternoon<\/option>/);
    expect(tagOf(html, "steps.0.args.contact.name")).toMatch(/value="Kari Nordmann"/);
    expect(tagOf(html, "steps.0.args.contact.phone")).toMatch(/type="text"/);
    expect(html).toMatch(/<legend[^>]*>contact<\/legend>/);
    expect(tagOf(html, "steps.0.args.checks.1")).toMatch(/value="pallets"/);
    expect(html).toContain("Add checks");
    expect(html).toContain("The shipment to inspect"); // the property's description is the field's help
  });

  it("the card shows its arguments and its effect from the imported definition", () => {
    const html = renderToStaticMarkup(
      createElement(PlanSteps, {
        steps: [{ id: "s1", position: 1, tool: "book_inspection", args, provenance: {}, digest: "0".repeat(64), author: { kind: "model" }, gate: "approval_required", approval: null, execution: null }],
        desk: referenceDesk(REFERENCE_NOW),
        issues: [],
        users: {},
        catalog,
      }),
    );
    expect(html).toContain("Book inspection");
    expect(html).toContain("Kari Nordmann");
    expect(html).toMatch(/Reversible/i);
  });

  it("validates form submissions and the server's shape stage against its schema, with errors at the field's path", () => {
    const form = planFormSchemaFor(catalog);
    const ok = form.safeParse({ steps: [{ key: "k", id: "s1", tool: "book_inspection", args }] });
    expect(ok.success).toBe(true);
    const bad = form.safeParse({ steps: [{ key: "k", id: "s1", tool: "book_inspection", args: { ...args, inspectors: 7, date: "2026-13-01", contact: { name: "Kari", email: "k@x" } } }] });
    expect(bad.success).toBe(false);
    expect(bad.success ? [] : [...new Set(bad.error.issues.map((i) => i.path.join(".")))].sort()).toEqual(["steps.0.args.contact", "steps.0.args.date", "steps.0.args.inspectors"]);

    const plan = { version: 1, steps: [{ id: "s1", tool: "book_inspection", args: { ...args, inspectors: 7 }, rationale: "Damage reported." }] };
    const ctx = { desk: referenceDesk(REFERENCE_NOW), now: REFERENCE_NOW, agentAllowedTools: [...DEMO_AGENT_TOOLS, "book_inspection"], catalog };
    const r = validatePlan(plan, ctx);
    expect(r.issues.map((i) => [i.stage, i.code, i.path])).toEqual([["shape", "too_big", "steps.0.args.inspectors"]]);
    const good = validatePlan({ ...plan, steps: [{ ...plan.steps[0], args }] }, ctx);
    expect(good.ok).toBe(true);
    expect(good.gate.s1).toBe("approval_required");
    // Without the catalog the tool is unknown to the validator: it never validates by accident.
    expect(validatePlan(plan, { ...ctx, catalog: undefined }).issues[0].code).toBe("unknown_tool");
  });
});
