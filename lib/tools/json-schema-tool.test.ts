import { describe, expect, it } from "vitest";
import { toolNames } from "./builtin-tools";
import { draftsFromMcpTools, draftsFromOpenAiFunctions, fieldsFromSchema, gateFromAnnotations, normaliseInputSchema, toolFromSpec, type ImportedToolSpec } from "./json-schema-tool";
import { catalogWith } from "./versioned-catalog";
import { referenceDesk } from "../../testing/fixtures/reference-desk";

const builtIn = new Set<string>(toolNames);
const schema = {
  type: "object",
  properties: {
    shipmentId: { type: "string", minLength: 1, title: "Shipment" },
    date: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    slot: { type: "string", enum: ["morning", "afternoon"], default: "morning" },
    inspectors: { type: "integer", minimum: 1, maximum: 4 },
    weightKg: { type: "number", exclusiveMinimum: 0 },
    urgent: { type: "boolean" },
    contact: { type: "object", properties: { name: { type: "string" }, phone: { type: "string" } }, required: ["name"] },
    checks: { type: "array", items: { type: "string" }, maxItems: 2 },
  },
  required: ["shipmentId", "date", "slot", "inspectors", "urgent", "contact"],
};
const spec = (over: Partial<ImportedToolSpec> = {}): ImportedToolSpec => ({
  ...(draftsFromMcpTools([{ name: "book_inspection", title: "Book inspection", inputSchema: schema, annotations: { destructiveHint: false } }], "test", builtIn).drafts[0]),
  catalogVersion: 1,
  ...over,
});
const valid = { shipmentId: "sh_5521", date: "2026-04-03", slot: "morning", inspectors: 2, urgent: false, contact: { name: "Kari" } };

describe("tools from JSON Schema", () => {
  it("validates every keyword the form offers: types, bounds, enum, date and date-time formats, nested objects, arrays", () => {
    const s = toolFromSpec(spec()).argsSchema;
    expect(s.safeParse(valid).success).toBe(true);
    expect(s.safeParse({ ...valid, at: "2026-04-03T10:00:00Z", weightKg: 1.5, checks: ["seal", "pallets"] }).success).toBe(true);
    const bad = (patch: Record<string, unknown>) => {
      const r = s.safeParse({ ...valid, ...patch });
      return r.success ? [] : r.error.issues.map((i) => `${i.code}@${i.path.join(".")}`);
    };
    expect(bad({ date: "2026-02-30" })).toEqual(["invalid_format@date"]);
    expect(bad({ at: "2026-04-03 10:00" })).toEqual(["invalid_format@at"]);
    expect(bad({ inspectors: 5 })).toEqual(["too_big@inspectors"]);
    expect(bad({ inspectors: 1.5 })).toEqual(["invalid_type@inspectors"]);
    expect(bad({ weightKg: 0 })).toEqual(["too_small@weightKg"]);
    expect(bad({ slot: "night" })).toEqual(["invalid_value@slot"]);
    expect(bad({ urgent: "yes" })).toEqual(["invalid_type@urgent"]);
    expect(bad({ contact: {} })).toEqual(["invalid_type@contact.name"]);
    expect(bad({ checks: ["a", "b", "c"] })).toEqual(["too_big@checks"]);
    expect(bad({ shipmentId: "" })).toEqual(["too_small@shipmentId"]);
  });

  it("closes objects that do not say otherwise: an argument nobody sees on the card is refused, also nested", () => {
    const s = toolFromSpec(spec()).argsSchema;
    const r = s.safeParse({ ...valid, extra: 1, contact: { name: "Kari", email: "k@x" } });
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.error.issues.map((i) => i.code)).toEqual(["unrecognized_keys", "unrecognized_keys"]);
    const open = normaliseInputSchema({ type: "object", properties: {}, additionalProperties: true });
    expect(open.additionalProperties).toBe(true);
  });

  it("drops defaults from the validating schema, so parsed arguments (and their digest) are what was sent", () => {
    const s = toolFromSpec(spec()).argsSchema;
    const { slot: _slot, ...noSlot } = valid;
    const r = s.safeParse(noSlot);
    expect(r.success).toBe(false);
    expect(normaliseInputSchema(schema).properties).not.toHaveProperty("slot.default");
  });

  it("MCP annotations set the gate: read-only → auto; non-destructive → approval; destructive or silent → irreversible", () => {
    expect(gateFromAnnotations({ readOnlyHint: true })).toEqual({ effect: "internal", gate: "auto" });
    expect(gateFromAnnotations({ destructiveHint: false })).toEqual({ effect: "reversible", gate: "approval" });
    expect(gateFromAnnotations({ destructiveHint: true })).toEqual({ effect: "irreversible", gate: "approval" });
    expect(gateFromAnnotations({})).toEqual({ effect: "irreversible", gate: "approval" });
  });

  it("refuses names that are not step-safe, built-in names and schemas that are not objects — and imports the rest", () => {
    const r = draftsFromMcpTools(
      [
        { name: "carrier.notify", inputSchema: { type: "object" } },
        { name: "issue_refund", inputSchema: { type: "object" } },
        { name: "list_things", inputSchema: { type: "array" } },
        { name: "ok_tool", inputSchema: { type: "object", properties: { a: { type: "string" } } } },
      ],
      "test",
      builtIn,
    );
    expect(r.drafts.map((d) => d.name)).toEqual(["ok_tool"]);
    expect(r.problems.map((p) => p.name)).toEqual(["carrier.notify", "issue_refund", "list_things"]);
    expect(r.problems[1].reason).toMatch(/built-in tool/);
  });

  it("imports OpenAI-style function definitions, destructive unless named read-only", () => {
    const defs = [
      { type: "function" as const, function: { name: "get_eta", description: "ETA", parameters: { type: "object", properties: { shipmentId: { type: "string" } }, required: ["shipmentId"] } } },
      { type: "function" as const, function: { name: "void_label", parameters: { type: "object", properties: { labelId: { type: "string" } } } } },
    ];
    const r = draftsFromOpenAiFunctions(defs, "file", builtIn, new Set(["get_eta"]));
    expect(r.drafts.map((d) => [d.name, d.effect, d.gate, d.source])).toEqual([
      ["get_eta", "internal", "auto", "openai"],
      ["void_label", "irreversible", "approval", "openai"],
    ]);
  });

  it("fields for the typed form: one per property with its label, help, JSON Schema node and whether it is required", () => {
    const f = fieldsFromSchema(normaliseInputSchema(schema));
    expect(f.map((x) => [x.name, x.label, x.kind, x.required])).toEqual([
      ["shipmentId", "Shipment", "schema", true],
      ["date", "date", "schema", true],
      ["at", "at", "schema", false],
      ["slot", "slot", "schema", true],
      ["inspectors", "inspectors", "schema", true],
      ["weightKg", "weightKg", "schema", false],
      ["urgent", "urgent", "schema", true],
      ["contact", "contact", "schema", true],
      ["checks", "checks", "schema", false],
    ]);
  });

  it("a catalog never lets an import shadow a built-in tool", () => {
    const c = catalogWith([spec(), { ...spec(), name: "send_reply" }], 3);
    expect(c.version).toBe(3);
    expect(c.get("book_inspection")?.effect).toBe("reversible");
    expect(c.get("send_reply")?.effect).toBe("customer_visible");
    expect(c.names()).toEqual([...toolNames, "book_inspection"]);
  });
});

describe("an imported tool's date arguments and the date horizon", () => {
  const now = new Date("2026-04-01T09:00:00Z");
  const desk = referenceDesk(now);
  const dated = {
    type: "object",
    properties: {
      visitOn: { type: "string", format: "date" },
      at: { type: "string", format: "date-time" },
      stops: { type: "array", items: { $ref: "#/$defs/stop" } },
    },
    $defs: { stop: { type: "object", properties: { on: { type: "string", format: "date" }, note: { type: "string" } } } },
  };
  const tool = toolFromSpec({ ...draftsFromMcpTools([{ name: "book_visit", inputSchema: dated }], "test", builtIn).drafts[0], catalogVersion: 1 });
  const beyond = (args: Record<string, unknown>, dateHorizonDays?: number) => tool.checkBounds(args, { desk, now, dateHorizonDays }).map((i) => [i.code, i.path, i.severity]);

  it("refuses a date more than a year ahead by default, at any depth, date or date-time; 9999-12-31 never passes", () => {
    expect(beyond({ visitOn: "2027-04-02", at: "2027-04-02T23:59:59Z", stops: [{ on: "2027-04-02", note: "2099-01-01 is text, not a date" }] })).toEqual([]);
    expect(beyond({ visitOn: "9999-12-31", at: "2027-04-03T00:00:00Z", stops: [{ on: "2026-05-01" }, { on: "2027-04-03" }] })).toEqual([
      ["date_beyond_horizon", "visitOn", "error"],
      ["date_beyond_horizon", "at", "error"],
      ["date_beyond_horizon", "stops.1.on", "error"],
    ]);
  });

  it("the horizon is the governing rule's setting: 30 days refuses a date 40 days out and keeps one 30 days out", () => {
    expect(beyond({ visitOn: "2026-05-01" }, 30)).toEqual([]);
    const [issue] = tool.checkBounds({ visitOn: "2026-05-11" }, { desk, now, dateHorizonDays: 30 });
    expect(issue).toMatchObject({ code: "date_beyond_horizon", details: { date: "2026-05-11", horizon: "2026-05-01", horizonDays: 30 } });
    expect(issue.message).toBe("A date may lie at most 30 days ahead (by 2026-05-01, UTC); 2026-05-11 is beyond that");
  });
});
