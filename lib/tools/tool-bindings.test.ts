import { describe, expect, it } from "vitest";
import { REFUND_ORDER_BINDINGS, REFUND_ORDER_TOOL, RESCHEDULE_ORDER_TOOL } from "../../testing/fixtures/bound-tools";
import type { RecordKindRoles } from "../records/record-kind-declaration";
import { normaliseInputSchema } from "./json-schema-tool";
import type { JsonSchema } from "./meta-catalog";
import { mergeAdminBindings, readToolBindings, type BindingProblemCode } from "./tool-bindings";

const ORDER: RecordKindRoles = {
  owner: { field: "customerId", kind: "account" },
  balance: { available: "refundableMinor", currency: "currency" },
  status: { field: "status", closedValues: ["refunded"] },
  window: { start: "shipFrom", end: "shipTo" },
  title: { field: "number" },
};
const GIFT: RecordKindRoles = { title: { field: "code" } };
const rolesOf = (k: string) => (k === "order" ? ORDER : k === "gift_card" ? GIFT : null);

const refundSchema = () => normaliseInputSchema(REFUND_ORDER_TOOL.inputSchema);
/** The refund schema with `bindings` (argument → keywords without the prefix) merged in. */
function bound(bindings: Record<string, Record<string, unknown>>, schema: JsonSchema = refundSchema()): JsonSchema {
  const merged = mergeAdminBindings(schema, bindings);
  if (!merged.ok) throw new Error(JSON.stringify(merged.problems));
  return merged.schema;
}
function codesOf(schema: JsonSchema): BindingProblemCode[] {
  const r = readToolBindings(schema, rolesOf);
  return r.ok ? [] : r.problems.map((p) => p.code);
}

describe("tool bindings", () => {
  it("the admin's bindings of refund_order resolve to its record, money and effect", () => {
    const r = readToolBindings(bound(REFUND_ORDER_BINDINGS), rolesOf);
    expect(r).toEqual({
      ok: true,
      bindings: {
        records: [{ arg: "orderId", kind: "order" }],
        max: { arg: "amount", kind: "order", recordArg: "orderId" },
        windows: [],
        effect: { arg: "amount", kind: "order", recordArg: "orderId" },
      },
    });
    // the available field's own name is the same bound
    expect(readToolBindings(bound({ ...REFUND_ORDER_BINDINGS, amount: { max: "order.refundableMinor" } }), rolesOf).ok).toBe(true);
  });

  it("bindings in the server's own schema: a date bounded by the order's window", () => {
    const r = readToolBindings(normaliseInputSchema(RESCHEDULE_ORDER_TOOL.inputSchema), rolesOf);
    expect(r.ok && r.bindings.windows).toEqual([{ arg: "shipOn", kind: "order", recordArg: "orderId", shape: "date" }]);
  });

  it("every bad binding is refused with its typed reason and the path", () => {
    const cases: [Record<string, Record<string, unknown>>, BindingProblemCode, string][] = [
      [{ orderId: { record: "subscription" } }, "unknown_kind", "inputSchema.properties.orderId.x-plandesk-record"],
      [{ orderId: { record: "order" }, amount: { max: "order.total" } }, "unknown_role", "inputSchema.properties.amount.x-plandesk-max"],
      [{ orderId: { record: "gift_card" }, amount: { max: "gift_card.available" } }, "unknown_role", "inputSchema.properties.amount.x-plandesk-max"],
      [{ orderId: { record: "order" }, reason: { max: "order.available" } }, "not_money", "inputSchema.properties.reason.x-plandesk-max"],
      [{ amount: { max: "order.available" } }, "missing_record_argument", "inputSchema.properties.amount.x-plandesk-max"],
      [{ orderId: { record: "order", max: "order.available" } }, "contradictory_binding", "inputSchema.properties.orderId.x-plandesk-record"],
      [{ orderId: { record: "order" }, reason: { record: "order" } }, "contradictory_binding", "inputSchema.properties.reason.x-plandesk-record"],
      [{ orderId: { record: "order" }, amount: { record: "order" } }, "not_record_id", "inputSchema.properties.amount.x-plandesk-record"],
      [{ orderId: { record: "order" }, amount: { max: "order.available", effect: { lower: "gift_card.available" } } }, "unknown_role", "inputSchema.properties.amount.x-plandesk-effect"],
      [{ orderId: { record: "order" }, reason: { window: "order.window" } }, "not_date", "inputSchema.properties.reason.x-plandesk-window"],
      [{ orderId: { record: "order" }, amount: { effect: "order.available" } }, "invalid_binding", "inputSchema.properties.amount.x-plandesk-effect"],
    ];
    for (const [bindings, code, path] of cases) {
      const r = readToolBindings(bound(bindings), rolesOf);
      expect(r.ok, JSON.stringify(bindings)).toBe(false);
      if (!r.ok) expect(r.problems, JSON.stringify(bindings)).toContainEqual({ code, path, message: expect.any(String) });
    }
    // an optional record argument, an unknown or a nested keyword
    const optional = normaliseInputSchema({ type: "object", properties: { orderId: { type: "string", "x-plandesk-record": "order" } } });
    expect(codesOf(optional)).toEqual(["optional_record_argument"]);
    const unknown = normaliseInputSchema({ type: "object", properties: { orderId: { type: "string", "x-plandesk-recrod": "order" } }, required: ["orderId"] });
    expect(codesOf(unknown)).toEqual(["unknown_binding"]);
    const nested = normaliseInputSchema({ type: "object", properties: { o: { type: "object", properties: { id: { type: "string", "x-plandesk-record": "order" } } } } });
    expect(codesOf(nested)).toEqual(["misplaced_binding"]);
  });

  it("the admin's bindings: an unknown argument or key, and one unlike the server's, are refused", () => {
    const r = mergeAdminBindings(normaliseInputSchema(RESCHEDULE_ORDER_TOOL.inputSchema), { orderId: { record: "gift_card" }, when: { window: "order.window" }, shipOn: { max: "x", window: "order.window" } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems.map((p) => [p.code, p.path])).toEqual([
        ["contradictory_binding", "bindings.orderId.record"],
        ["unknown_argument", "bindings.when"],
      ]);
    }
    const keys = mergeAdminBindings(refundSchema(), { orderId: { kind: "order" } });
    expect(!keys.ok && keys.problems.map((p) => p.code)).toEqual(["unknown_binding"]);
    // the same binding as the server's is fine
    expect(mergeAdminBindings(normaliseInputSchema(RESCHEDULE_ORDER_TOOL.inputSchema), { orderId: { record: "order" } }).ok).toBe(true);
  });
});
