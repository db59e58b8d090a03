/**
 * Declared record kinds (lib/records/record-kind-declaration.ts, lib/records/declared-records.ts):
 * every bad declaration is refused with its typed reason and path, a good one comes back
 * normalised, and a declared kind's records are validated with the roles' extra rules.
 */
import { describe, expect, it } from "vitest";
import { parseDeclaredFields } from "./declared-records";
import { checkRecordKindDeclaration, MAX_OWNER_HOPS, type DeclarationContext, type RecordKindRoles } from "./record-kind-declaration";
import { ORDER_ROLES, ORDER_SCHEMA } from "../../testing/fixtures/order-kind";

const NEW: DeclarationContext = { others: new Map(), previous: null, inUse: false };

/** The problems' codes and paths, or "ok". */
function problems(kind: string, schema: unknown, roles: unknown, ctx: DeclarationContext = NEW): string[] | "ok" {
  const r = checkRecordKindDeclaration(kind, schema, roles, ctx);
  return r.ok ? "ok" : r.problems.map((p) => `${p.code} ${p.path}`);
}
const withProps = (props: Record<string, unknown>, required: string[] = Object.keys(props)) => ({ type: "object", properties: props, required });

describe("a good declaration", () => {
  it("comes back normalised: objects closed, defaults dropped, the shorthand roles as objects, the owner an account", () => {
    const r = checkRecordKindDeclaration("order", { ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, note: { type: "string", default: "x" } } }, ORDER_ROLES, NEW);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.declaration.schema.additionalProperties).toBe(false);
    expect((r.declaration.schema.properties as Record<string, Record<string, unknown>>).note).toEqual({ type: "string" });
    expect(r.declaration.roles).toEqual({
      owner: { field: "customerId", kind: "account" },
      balance: { available: "refundableMinor", currency: "currency" },
      status: { field: "status", closedValues: ["refunded", "cancelled"] },
      window: { start: "shipFrom", end: "shipTo" },
      title: { field: "number" },
    });
  });

  it("may have no roles at all, and a currency field constrained by the pattern of three capitals", () => {
    expect(problems("note_kind", withProps({ text: { type: "string" } }), {})).toBe("ok");
    expect(problems("payout", withProps({ amount: { type: "integer" }, currency: { type: "string", pattern: "^[A-Z]{3}$" } }), { balance: { available: "amount", currency: "currency" } })).toBe("ok");
    expect(problems("payout", withProps({ amount: { type: "integer" }, currency: { type: "string", const: "NOK" } }), { balance: { available: "amount", currency: "currency" } })).toBe("ok");
  });
});

describe("bad declarations, each refused with its reason", () => {
  it("a name that is not a kind's, or a built-in kind's", () => {
    expect(problems("Order", ORDER_SCHEMA, ORDER_ROLES)).toEqual(["invalid_kind_name kind"]);
    expect(problems("o", ORDER_SCHEMA, ORDER_ROLES)).toEqual(["invalid_kind_name kind"]);
    expect(problems("invoice", ORDER_SCHEMA, ORDER_ROLES)).toEqual(["reserved_kind_name kind"]);
    expect(problems("account", ORDER_SCHEMA, ORDER_ROLES)).toEqual(["reserved_kind_name kind"]);
    expect(problems("batch", ORDER_SCHEMA, ORDER_ROLES)).toEqual(["reserved_kind_name kind"]);
  });

  it("a schema that cannot be used, or that names a field like the envelope", () => {
    expect(problems("order", { type: "array" }, {})).toEqual(["invalid_schema schema"]);
    expect(problems("order", "not a schema", {})).toEqual(["invalid_schema schema"]);
    expect(problems("order", withProps({ code: { type: "string", pattern: "(?=a)b" } }), {})).toEqual(["invalid_schema schema"]);
    expect(problems("order", withProps({ a: { $ref: "https://example.com/x" } }), {})).toEqual(["invalid_schema schema"]);
    expect(problems("order", withProps({ big: { type: "string", description: "x".repeat(40_000) } }), {})).toEqual(["invalid_schema schema"]);
    expect(problems("order", withProps({ sourceVersion: { type: "integer" }, id: { type: "string" } }), {})).toEqual(["reserved_field schema.properties.sourceVersion", "reserved_field schema.properties.id"]);
  });

  it("an unknown role, or a key a role does not have", () => {
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, price: "refundableMinor" })).toEqual(["unknown_role roles.price"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, balance: { available: "refundableMinor", currency: "currency", limit: 5 } })).toEqual(["unknown_role roles.balance.limit"]);
  });

  it("a role of the wrong shape", () => {
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, balance: "refundableMinor" })).toEqual(["invalid_role roles.balance"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, status: { field: "status", closedValues: [] } })).toEqual(["invalid_role roles.status.closedValues"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, status: { field: "status", closedValues: ["refunded", "refunded"] } })).toEqual(["invalid_role roles.status.closedValues"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, window: { start: "shipFrom", end: "shipFrom" } })).toEqual(["invalid_role roles.window"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, owner: { field: 3 } })).toEqual(["invalid_role roles.owner.field"]);
    expect(problems("order", ORDER_SCHEMA, ["owner"])).toEqual(["invalid_role roles"]);
  });

  it("a role naming a missing field, or an optional one", () => {
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, balance: { available: "totalMinor", currency: "currency" } })).toEqual(["missing_field roles.balance.available"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, title: "note" })).toEqual(["optional_field roles.title.field"]);
  });

  it("a field of the wrong type for its role", () => {
    const typed = (field: string, node: unknown) => ({ ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, [field]: node } });
    expect(problems("order", typed("refundableMinor", { type: "number" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.balance.available"]);
    expect(problems("order", typed("customerId", { type: "integer" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.owner.field"]);
    expect(problems("order", typed("status", { type: "string" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.status.field"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, status: { field: "status", closedValues: ["closed"] } })).toEqual(["wrong_field_type roles.status.closedValues"]);
    expect(problems("order", typed("shipTo", { type: "string" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.window.end"]);
  });

  it("a currency field that is not a currency", () => {
    const currency = (node: unknown) => ({ ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, currency: node } });
    expect(problems("order", currency({ type: "string" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.balance.currency"]);
    expect(problems("order", currency({ type: "string", enum: ["USD", "DOGE"] }), ORDER_ROLES)).toEqual(["wrong_field_type roles.balance.currency"]);
    expect(problems("order", currency({ type: "string", pattern: "^[A-Z]+$" }), ORDER_ROLES)).toEqual(["wrong_field_type roles.balance.currency"]);
    expect(problems("order", currency({ type: "integer", enum: [840] }), ORDER_ROLES)).toEqual(["wrong_field_type roles.balance.currency"]);
  });

  it("every problem at once, not only the first", () => {
    expect(problems("Invoice", { type: "object", properties: { a: { type: "string" } } }, { owner: "b", price: "a" })).toEqual(["invalid_kind_name kind", "unknown_role roles.price"]);
    expect(problems("order", withProps({ a: { type: "string" } }), { owner: "b", title: "c" })).toEqual(["missing_field roles.owner.field", "missing_field roles.title.field"]);
  });
});

describe("owner chains", () => {
  const LINE_SCHEMA = withProps({ orderId: { type: "string" }, qty: { type: "integer" } });
  const owned = (kind: string) => ({ owner: { field: "orderId", kind } });
  const desk = (entries: [string, RecordKindRoles][]): DeclarationContext => ({ others: new Map(entries), previous: null, inUse: false });

  it("a kind owned by a declared kind that is owned by an account is fine", () => {
    expect(problems("order_line", LINE_SCHEMA, owned("order"), desk([["order", { owner: { field: "customerId", kind: "account" } }]]))).toBe("ok");
  });

  it("an unknown owner kind, one without an owner, a loop, or a chain too long is refused", () => {
    expect(problems("order_line", LINE_SCHEMA, owned("order"))).toEqual(["unknown_owner_kind roles.owner.kind"]);
    expect(problems("order_line", LINE_SCHEMA, owned("invoice"))).toEqual(["unknown_owner_kind roles.owner.kind"]);
    expect(problems("order_line", LINE_SCHEMA, owned("order"), desk([["order", {}]]))).toEqual(["unowned_owner_kind roles.owner.kind"]);
    expect(problems("order_line", LINE_SCHEMA, owned("order_line"))).toEqual(["circular_owner roles.owner.kind"]);
    // order is owned by order_line, which this declaration makes owned by order
    expect(problems("order_line", LINE_SCHEMA, owned("order"), desk([["order", { owner: { field: "lineId", kind: "order_line" } }]]))).toEqual(["circular_owner roles.owner.kind"]);
    // k1 → k2 → … → k<MAX> → account: top → k2 passes MAX_OWNER_HOPS declared kinds (top included), top → k1 one more
    const chain: [string, RecordKindRoles][] = Array.from({ length: MAX_OWNER_HOPS }, (_, i) => [`k${i + 1}`, { owner: { field: "x", kind: i + 1 === MAX_OWNER_HOPS ? "account" : `k${i + 2}` } }]);
    expect(problems("top", LINE_SCHEMA, owned("k2"), desk(chain))).toBe("ok");
    expect(problems("top", LINE_SCHEMA, owned("k1"), desk(chain))).toEqual(["owner_chain_too_long roles.owner.kind"]);
    // k1's chain is as long as it may be: giving k4 (owned by an account) another owner makes it too long
    expect(problems(`k${MAX_OWNER_HOPS}`, LINE_SCHEMA, owned("k0"), desk([...chain.filter(([k]) => k !== `k${MAX_OWNER_HOPS}`), ["k0", { owner: { field: "x", kind: "account" } }]]))).toEqual(["owner_chain_too_long roles.owner.kind"]);
  });

  it("a kind another kind's owner names cannot lose its owner role", () => {
    const ctx = desk([["order_line", owned("order")]]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, owner: undefined }, ctx)).toEqual(["role_in_use roles.owner"]);
    expect(problems("order", ORDER_SCHEMA, ORDER_ROLES, ctx)).toBe("ok");
  });
});

describe("a kind in use", () => {
  const first = checkRecordKindDeclaration("order", ORDER_SCHEMA, ORDER_ROLES, NEW);
  if (!first.ok) throw new Error("the order declaration must pass");
  const inUse: DeclarationContext = { others: new Map(), previous: first.declaration, inUse: true };

  it("cannot lose a role nor move one to another field", () => {
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, window: undefined }, inUse)).toEqual(["role_in_use roles.window"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, title: "customerId" }, inUse)).toEqual(["role_in_use roles.title"]);
    expect(problems("order", ORDER_SCHEMA, { ...ORDER_ROLES, window: undefined }, { ...inUse, inUse: false })).toBe("ok");
  });

  it("may change its closed values, add fields, and keep its roles", () => {
    const schema = { ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, channel: { type: "string" } } };
    expect(problems("order", schema, { ...ORDER_ROLES, status: { field: "status", closedValues: ["refunded"] } }, inUse)).toBe("ok");
  });
});

describe("records of a declared kind", () => {
  const decl = checkRecordKindDeclaration("order", ORDER_SCHEMA, ORDER_ROLES, NEW);
  if (!decl.ok) throw new Error("the order declaration must pass");
  const order = { ...decl.declaration, version: 3 };
  const good = { customerId: "acc_1", refundableMinor: 4_000, currency: "USD", status: "open", shipFrom: "2026-04-01", shipTo: "2026-04-03", number: "O-118" };
  const error = (fields: Record<string, unknown>) => {
    const r = parseDeclaredFields(order, fields);
    return r.ok ? "ok" : `${r.error.code} ${r.error.path ?? ""}`;
  };

  it("read their role values out", () => {
    const r = parseDeclaredFields(order, { ...good, status: "refunded" });
    expect(r).toEqual({ ok: true, fields: { ...good, status: "refunded" }, roles: { ownerId: "acc_1", availableMinor: 4_000, currency: "USD", status: "refunded", closed: true, windowStart: "2026-04-01", windowEnd: "2026-04-03", title: "O-118" } });
  });

  it("are refused, with the field, when they do not fit the schema or the roles' rules", () => {
    expect(error({ ...good, surprise: 1 })).toBe("invalid_record surprise");
    expect(error({ ...good, refundableMinor: 1.5 })).toBe("invalid_record refundableMinor");
    expect(error({ ...good, refundableMinor: 100_000_000_001 })).toBe("invalid_record refundableMinor");
    expect(error({ ...good, currency: "GBP" })).toBe("invalid_record currency");
    expect(error({ ...good, shipTo: "2026-03-31" })).toBe("invalid_record shipTo");
    expect(error({ ...good, shipFrom: "2026-02-30" })).toBe("invalid_record shipFrom");
    expect(error({ ...good, customerId: "not an id!" })).toBe("invalid_record customerId");
    const { number: _n, ...untitled } = good;
    expect(error(untitled)).toBe("invalid_record number");
  });

  it("with a pattern-constrained currency, still only a currency Plandesk handles", () => {
    const d = checkRecordKindDeclaration("payout", withProps({ amount: { type: "integer" }, currency: { type: "string", pattern: "^[A-Z]{3}$" } }), { balance: { available: "amount", currency: "currency" } }, NEW);
    if (!d.ok) throw new Error("must pass");
    expect(parseDeclaredFields({ ...d.declaration, version: 1 }, { amount: 1, currency: "NOK" }).ok).toBe(true);
    expect(parseDeclaredFields({ ...d.declaration, version: 1 }, { amount: 1, currency: "JPY" })).toMatchObject({ ok: false, error: { code: "invalid_record", path: "currency" } });
  });
});
