/**
 * Record kinds declared as data (lib/records/record-kind-declaration.ts, docs/api-extensions.md
 * "Declared record kinds"), through the route handlers, on this file's own database (SQLite, or
 * PostgreSQL with PLANDESK_TEST_DB=postgres): an admin declares a kind (audited, versioned, one of two
 * parallel saves from one version wins), every bad declaration is refused with its typed reason and
 * stores nothing, records of the kind arrive through the records door (single and batch, typed
 * per-line errors, versions, tombstones, owners), desks are kept apart, a kind in use cannot lose a
 * role, and the door's statements for a declared kind read through indexes.
 */
import { statementsOf } from "@/testing/statement-capture";
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { prisma } from "@/lib/server/db/db";
import { explainStatement, readsNoTable, wholeTableReads } from "@/testing/query-plans";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET as listKinds } from "./admin/desks/[deskId]/record-kinds/route";
import { GET as getKind, PUT as putKind } from "./admin/desks/[deskId]/record-kinds/[kind]/route";
import { DELETE as deleteRecordRoute, GET as getRecordRoute, PUT as putRecordRoute } from "./v1/records/[kind]/[id]/route";
import { POST as batchRoute } from "./v1/records/batch/route";
import { ORDER_ROLES, ORDER_SCHEMA } from "../../testing/fixtures/order-kind";

type Json = Record<string, any>;
const RETAIL_KEY = "pd_test_retail_declared_key";
const FREIGHT_KEY = "pd_test_freight_declared_key";
let admin: string;
let operator: string;

const at = (minute: number) => `2026-03-01T10:${String(minute % 60).padStart(2, "0")}:00Z`;

// ── the admin API ─────────────────────────────────────────────────────────────
function saveKind(desk: string, kind: string, body: unknown, cookie = admin): Promise<Response> {
  return putKind(apiRequest("PUT", `/api/admin/desks/${desk}/record-kinds/${kind}`, { cookie, origin: TEST_ORIGIN }, body), routeCtx({ deskId: desk, kind }));
}
const readKind = (desk: string, kind: string, cookie = admin) => getKind(apiRequest("GET", `/api/admin/desks/${desk}/record-kinds/${kind}`, { cookie }), routeCtx({ deskId: desk, kind }));
const readKinds = (desk: string, cookie = admin) => listKinds(apiRequest("GET", `/api/admin/desks/${desk}/record-kinds`, { cookie }), routeCtx({ deskId: desk }));

// ── the records door ──────────────────────────────────────────────────────────
const doorCtx = (kind: string, id: string) => routeCtx({ kind, id });
function put(kind: string, id: string, body: unknown, key = RETAIL_KEY): Promise<Response> {
  return putRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/${kind}/${id}`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), doorCtx(kind, id));
}
function del(kind: string, id: string, version: number, key = RETAIL_KEY): Promise<Response> {
  return deleteRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/${kind}/${id}?sourceVersion=${version}&sourceUpdatedAt=${encodeURIComponent(at(version))}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } }), doorCtx(kind, id));
}
function get(kind: string, id: string, key = RETAIL_KEY): Promise<Response> {
  return getRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/${kind}/${id}`, { headers: { authorization: `Bearer ${key}` } }), doorCtx(kind, id));
}
function batch(lines: unknown[], key = RETAIL_KEY): Promise<Response> {
  const body = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n";
  return batchRoute(new Request(`${TEST_ORIGIN}/api/v1/records/batch`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" }, body }));
}

async function ok(res: Response): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body).slice(0, 800)).toBe(200);
  return body;
}
async function refusal(res: Response, status: number, code: string): Promise<Json> {
  const body = (await res.json()) as Json;
  expect({ status: res.status, code: body.error?.code }, JSON.stringify(body).slice(0, 800)).toEqual({ status, code });
  return body.error;
}

const order = (customerId: string, v: number, extra: Json = {}) => ({
  customerId,
  refundableMinor: 4_000,
  currency: "USD",
  status: "open",
  shipFrom: "2026-04-01",
  shipTo: "2026-04-03",
  number: `O-${v}`,
  sourceVersion: v,
  sourceUpdatedAt: at(v),
  ...extra,
});
const account = (name: string, v = 1) => ({ name, sourceVersion: v, sourceUpdatedAt: at(v) });

/** How many declaration rows, versions and admin changes the database holds (what a refusal must leave as it was). */
async function declarationState() {
  return { kinds: await prisma.recordKind.count(), versions: await prisma.recordKindVersion.count(), audits: await prisma.auditEvent.count({ where: { type: "admin_change" } }) };
}

beforeAll(async () => {
  await prepareTestDatabase();
  admin = await signInCookie("admin@plandesk.test");
  operator = await signInCookie("operator@plandesk.test");
  await prisma.integrationKey.create({ data: { id: "ik_retail_declared", name: "Retail shop", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
  await prisma.integrationKey.create({ data: { id: "ik_freight_declared", name: "Freight ERP", hash: hashApiKey(FREIGHT_KEY), prefix: FREIGHT_KEY.slice(0, 8), desk: "freight" } });
}, 120_000);

describe("declaring a kind", () => {
  it("an admin declares order on retail (audited) and reads it back with its history; an operator may not", async () => {
    const denied = await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "orders" }, operator);
    expect(denied.status).toBe(403);
    expect(await prisma.recordKind.count()).toBe(0);

    const saved = await ok(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "Orders from the shop" }));
    expect(saved).toMatchObject({
      inUse: false,
      kind: { desk: "retail", kind: "order", version: 1, note: "Orders from the shop", savedBy: { id: "usr_admin" }, roles: { owner: { field: "customerId", kind: "account" }, title: { field: "number" } } },
      versions: [{ version: 1, note: "Orders from the shop" }],
    });
    expect(saved.kind.schema.additionalProperties).toBe(false);
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit).toMatchObject({ actorId: "usr_admin", data: { what: "desk.record_kind.save", target: { kind: "record_kind", id: "retail/order" }, desk: "retail", before: null, after: { version: 1 }, note: "Orders from the shop" } });

    const list = await ok(await readKinds("retail"));
    expect(list).toMatchObject({ desk: { id: "retail" }, builtIn: ["account", "invoice", "shipment", "holiday"] });
    expect(list.kinds.map((k: Json) => k.kind)).toEqual(["order"]);
    expect((await readKinds("retail", operator)).status).toBe(403);
    await refusal(await readKinds("nowhere"), 404, "not_found");
    await refusal(await readKind("retail", "subscription"), 404, "not_found");
    await refusal(await saveKind("nowhere", "order", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "x" }), 404, "not_found");
  });

  it("every bad declaration is refused with its typed reason, and nothing is stored", async () => {
    const before = await declarationState();
    const with_ = (props: Json) => ({ ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, ...props } });
    const cases: [string, Json, string][] = [
      ["invoice", { schema: ORDER_SCHEMA, roles: ORDER_ROLES }, "reserved_kind_name"],
      ["Orders!", { schema: ORDER_SCHEMA, roles: ORDER_ROLES }, "invalid_kind_name"],
      ["subscription", { schema: { type: "array" }, roles: {} }, "invalid_schema"],
      ["subscription", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, price: "refundableMinor" } }, "unknown_role"],
      ["subscription", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, balance: { available: "totalMinor", currency: "currency" } } }, "missing_field"],
      ["subscription", { schema: with_({ refundableMinor: { type: "string" } }), roles: ORDER_ROLES }, "wrong_field_type"],
      ["subscription", { schema: with_({ currency: { type: "string" } }), roles: ORDER_ROLES }, "wrong_field_type"],
      ["subscription", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, title: "note" } }, "optional_field"],
      ["subscription", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, owner: { field: "customerId", kind: "subscription" } } }, "circular_owner"],
      ["subscription", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, owner: { field: "customerId", kind: "plan" } } }, "unknown_owner_kind"],
    ];
    for (const [kind, draft, code] of cases) {
      const error = await refusal(await saveKind("retail", kind, { ...draft, baseVersion: 0, note: "bad" }), 422, "validation_failed");
      expect(error.issues.map((i: Json) => i.code), `${kind}: ${JSON.stringify(draft.roles)}`).toContain(code);
      expect(error.issues[0]).toEqual({ code: expect.any(String), path: expect.any(String), message: expect.any(String) });
    }
    // the body's own shape: 400
    await refusal(await saveKind("retail", "subscription", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0 }), 400, "bad_request");
    expect(await declarationState()).toEqual(before);
  });

  it("versions: a save from an old version is 409; of two parallel saves from one version exactly one wins", async () => {
    await refusal(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "again" }), 409, "stale_record_kind");
    const racers = await Promise.all(
      ["first", "second"].map((who) => saveKind("retail", "order", { schema: { ...ORDER_SCHEMA, description: who }, roles: ORDER_ROLES, baseVersion: 1, note: `saved by ${who}` })),
    );
    const statuses = racers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = (await racers.find((r) => r.status === 409)!.json()) as Json;
    expect(loser.error).toMatchObject({ code: "stale_record_kind", version: 2, savedBy: { id: "usr_admin" } });
    const detail = await ok(await readKind("retail", "order"));
    expect(detail.kind.version).toBe(2);
    expect(detail.versions.map((v: Json) => v.version)).toEqual([2, 1]);

    // a new kind declared twice at once: one version 1
    const creators = await Promise.all([1, 2].map((n) => saveKind("retail", "gift_card", { schema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] }, roles: { title: "code" }, baseVersion: 0, note: `try ${n}` })));
    expect(creators.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await prisma.recordKindVersion.count({ where: { desk: "retail", kind: "gift_card" } })).toBe(1);
  });
});

describe("records of a declared kind through the door", () => {
  it("a put is validated against the declaration and stored with its roles; versions decide; a delete is a tombstone", async () => {
    await ok(await put("account", "acc_shop_1", account("Brightside Retail")));
    const first = await ok(await put("order", "o_118", order("acc_shop_1", 3)));
    expect(first).toMatchObject({ applied: true, record: { kind: "order", id: "o_118", desk: "retail", kindVersion: 2, sourceVersion: 3, deletedAt: null, fields: { customerId: "acc_shop_1", refundableMinor: 4_000, number: "O-3" } } });
    const row = await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind: "order", id: "o_118" } } });
    expect(row).toMatchObject({ ownerId: "acc_shop_1", ownerAccountId: "acc_shop_1", availableMinor: 4_000n, currency: "USD", status: "open", closed: false, windowStart: "2026-04-01", windowEnd: "2026-04-03", title: "O-3", version: 1, kindVersion: 2 });

    expect(await ok(await put("order", "o_118", order("acc_shop_1", 3, { refundableMinor: 1 })))).toMatchObject({ applied: false, reason: "not_newer", record: { fields: { refundableMinor: 4_000 } } });
    expect(await ok(await put("order", "o_118", order("acc_shop_1", 2, { refundableMinor: 2 })))).toMatchObject({ applied: false, reason: "not_newer" });
    const newer = await ok(await put("order", "o_118", order("acc_shop_1", 5, { refundableMinor: 2_500, status: "refunded" })));
    expect(newer).toMatchObject({ applied: true, record: { sourceVersion: 5, fields: { refundableMinor: 2_500 } } });
    expect(await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind: "order", id: "o_118" } } })).toMatchObject({ availableMinor: 2_500n, closed: true, version: 2 });

    const gone = await ok(await del("order", "o_118", 6));
    expect(gone).toMatchObject({ applied: true, record: { deletedAt: at(6).replace("Z", ".000Z"), sourceVersion: 6 } });
    expect(await ok(await put("order", "o_118", order("acc_shop_1", 4)))).toMatchObject({ applied: false, record: { deletedAt: expect.any(String) } });
    expect(await ok(await put("order", "o_118", order("acc_shop_1", 7)))).toMatchObject({ applied: true, record: { deletedAt: null, sourceVersion: 7 } });
    expect((await ok(await get("order", "o_118"))).record).toMatchObject({ kind: "order", sourceVersion: 7, kindVersion: 2 });
  });

  it("bad records get typed refusals and write nothing", async () => {
    const invalid = await refusal(await put("order", "o_bad", order("acc_shop_1", 1, { refundableMinor: -5 })), 422, "invalid_record");
    expect(invalid.path).toBe("refundableMinor");
    expect((await refusal(await put("order", "o_bad", order("acc_shop_1", 1, { currency: "GBP" })), 422, "invalid_record")).path).toBe("currency");
    expect((await refusal(await put("order", "o_bad", order("acc_shop_1", 1, { surprise: true })), 422, "invalid_record")).path).toBe("surprise");
    expect((await refusal(await put("order", "o_bad", order("acc_shop_1", 1, { shipTo: "2026-03-01" })), 422, "invalid_record")).path).toBe("shipTo");
    expect((await refusal(await put("order", "o_bad", order("acc_nobody", 1)), 422, "unknown_account")).path).toBe("customerId");
    await refusal(await put("subscription", "s_1", { plan: "x", sourceVersion: 1, sourceUpdatedAt: at(1) }), 404, "not_found");
    await refusal(await del("order", "o_never", 1), 404, "not_found");
    expect(await prisma.deskRecord.count({ where: { id: { in: ["o_bad", "s_1", "o_never"] } } })).toBe(0);
  });

  it("the batch applies the good lines and answers each bad one with its typed error; an owner put earlier in the batch counts", async () => {
    const res = await ok(
      await batch([
        { kind: "account", id: "acc_shop_2", ...account("Second Shop") },
        { kind: "order", id: "o_201", ...order("acc_shop_2", 1) }, // names the account of line 1
        { kind: "order", id: "o_202", ...order("acc_shop_2", 1, { currency: "DOGE" }) },
        { kind: "order", id: "o_203", ...order("acc_missing", 1) },
        { kind: "subscription", id: "s_1", sourceVersion: 1, sourceUpdatedAt: at(1) },
        { kind: "order", id: "o_204", op: "delete", sourceVersion: 1, sourceUpdatedAt: at(1) },
        { kind: "order", id: "o_205", ...order("acc_shop_2", 1, { status: "lost" }) },
        { kind: "order", id: "o_201", ...order("acc_shop_2", 1, { number: "replayed" }) },
        { kind: "order", id: "o_206", ...order("acc_shop_2", 2) },
      ]),
    );
    expect(res).toMatchObject({ lines: 9, applied: 3, ignored: 1, moreErrors: 0 });
    expect(res.errors.map((e: Json) => [e.line, e.code, e.path ?? null])).toEqual([
      [3, "invalid_record", "currency"],
      [4, "unknown_account", "customerId"],
      [5, "unknown_kind", "kind"],
      [6, "not_found", null],
      [7, "invalid_record", "status"],
    ]);
    const stored = await prisma.deskRecord.findMany({ where: { desk: "retail", kind: "order", id: { startsWith: "o_20" } }, select: { id: true, title: true }, orderBy: { id: "asc" } });
    expect(stored).toEqual([
      { id: "o_201", title: "O-1" },
      { id: "o_206", title: "O-2" },
    ]);
  });

  it("a kind owned by a declared kind: its owner must be a live record of that kind on this desk", async () => {
    await ok(await saveKind("retail", "order_line", { schema: { type: "object", properties: { orderId: { type: "string" }, sku: { type: "string" } }, required: ["orderId", "sku"] }, roles: { owner: { field: "orderId", kind: "order" }, title: "sku" }, baseVersion: 0, note: "lines" }));
    const res = await ok(
      await batch([
        { kind: "order_line", id: "l_1", orderId: "o_301", sku: "SKU-1", sourceVersion: 1, sourceUpdatedAt: at(1) }, // its order comes on the next line
        { kind: "order", id: "o_301", ...order("acc_shop_2", 1) },
        { kind: "order_line", id: "l_2", orderId: "o_nope", sku: "SKU-2", sourceVersion: 1, sourceUpdatedAt: at(1) },
      ]),
    );
    expect(res).toMatchObject({ applied: 2, errors: [{ line: 3, code: "unknown_owner", path: "orderId" }] });
    expect(await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind: "order_line", id: "l_1" } } })).toMatchObject({ ownerId: "o_301", ownerAccountId: null, title: "SKU-1" });
    await ok(await del("order", "o_301", 2));
    await refusal(await put("order_line", "l_3", { orderId: "o_301", sku: "SKU-3", sourceVersion: 1, sourceUpdatedAt: at(1) }), 422, "unknown_owner");
  });
});

describe("desks kept apart", () => {
  it("another desk neither sees nor reaches retail's kinds and records; it may declare its own order, with the same ids", async () => {
    await refusal(await get("order", "o_118", FREIGHT_KEY), 404, "not_found");
    await refusal(await put("order", "o_118", order("acc_shop_1", 99), FREIGHT_KEY), 404, "not_found");
    await refusal(await del("order", "o_118", 99, FREIGHT_KEY), 404, "not_found");
    const b = await ok(await batch([{ kind: "order", id: "o_118", ...order("acc_shop_1", 99) }], FREIGHT_KEY));
    expect(b.errors.map((e: Json) => e.code)).toEqual(["unknown_kind"]);
    expect((await ok(await readKinds("freight"))).kinds).toEqual([]);
    await refusal(await readKind("freight", "order"), 404, "not_found");

    // freight declares its own order: owned by a freight account, a different schema
    await ok(await saveKind("freight", "order", { schema: { type: "object", properties: { accountId: { type: "string" }, ref: { type: "string" } }, required: ["accountId", "ref"] }, roles: { owner: "accountId", title: "ref" }, baseVersion: 0, note: "freight orders" }));
    // retail's account is not freight's
    await refusal(await put("order", "o_118", { accountId: "acc_shop_1", ref: "F-1", sourceVersion: 1, sourceUpdatedAt: at(1) }, FREIGHT_KEY), 422, "unknown_account");
    // retail's fields are not freight's kind's
    await refusal(await put("order", "o_118", order("acc_nordkapp", 1), FREIGHT_KEY), 422, "invalid_record");
    const mine = await ok(await put("order", "o_118", { accountId: "acc_nordkapp", ref: "F-1", sourceVersion: 1, sourceUpdatedAt: at(1) }, FREIGHT_KEY));
    expect(mine.record).toMatchObject({ desk: "freight", kindVersion: 1, fields: { ref: "F-1" } });
    expect((await ok(await get("order", "o_118"))).record).toMatchObject({ desk: "retail", sourceVersion: 7, fields: { customerId: "acc_shop_1" } });
    expect(await prisma.deskRecord.count({ where: { kind: "order", id: "o_118" } })).toBe(2);
  });
});

describe("a kind in use", () => {
  it("cannot lose a role nor move one while its records exist (nothing saved); may change its closed values, and the stored records follow", async () => {
    const before = await declarationState();
    const { window: _w, ...noWindow } = ORDER_ROLES;
    const lost = await refusal(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: noWindow, baseVersion: 2, note: "drop the window" }), 422, "validation_failed");
    expect(lost.issues).toEqual([{ code: "role_in_use", path: "roles.window", message: expect.stringMatching(/Records of order exist/) }]);
    const moved = await refusal(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, title: "customerId" }, baseVersion: 2, note: "title from the customer" }), 422, "validation_failed");
    expect(moved.issues.map((i: Json) => i.code)).toEqual(["role_in_use"]);
    // order_line names order as its owner: order cannot lose its owner role
    const { owner: _o, ...noOwner } = ORDER_ROLES;
    expect((await refusal(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: noOwner, baseVersion: 2, note: "no owner" }), 422, "validation_failed")).issues.map((i: Json) => i.code)).toContain("role_in_use");
    expect(await declarationState()).toEqual(before);
    expect((await ok(await readKind("retail", "order"))).inUse).toBe(true);

    // closed values may change: the stored records' `closed` follows in the same save
    expect(await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind: "order", id: "o_201" } } })).toMatchObject({ status: "open", closed: false });
    const saved = await ok(await saveKind("retail", "order", { schema: ORDER_SCHEMA, roles: { ...ORDER_ROLES, status: { field: "status", closedValues: ["open", "cancelled"] } }, baseVersion: 2, note: "open orders are closed for refunds" }));
    expect(saved.kind.version).toBe(3);
    expect(await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind: "order", id: "o_201" } } })).toMatchObject({ closed: true });

    // a kind without records may lose a role
    expect((await ok(await saveKind("retail", "gift_card", { schema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] }, roles: {}, baseVersion: 1, note: "no title" }))).kind.roles).toEqual({});
  });
});

describe("a record and a role removal at once", () => {
  it("never leave a record stored against a declaration that lost its role: either the removal is refused, or the record follows the new version", async () => {
    const schema = { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] };
    for (let round = 0; round < 12; round++) {
      const kind = `race_${round}`;
      await ok(await saveKind("retail", kind, { schema, roles: { title: "ref" }, baseVersion: 0, note: "titled" }));
      const [record, removal] = await Promise.all([put(kind, "r_1", { ref: "R-1", sourceVersion: 1, sourceUpdatedAt: at(1) }), saveKind("retail", kind, { schema, roles: {}, baseVersion: 1, note: "untitled" })]);
      expect(record.status).toBe(200);
      const stored = await prisma.deskRecord.findUniqueOrThrow({ where: { desk_kind_id: { desk: "retail", kind, id: "r_1" } } });
      if (removal.status === 200) expect(stored).toMatchObject({ kindVersion: 2, title: null });
      else {
        expect((await refusal(removal, 422, "validation_failed")).issues.map((i: Json) => i.code)).toEqual(["role_in_use"]);
        expect(stored).toMatchObject({ kindVersion: 1, title: "R-1" });
      }
    }
  });
});

describe("a declared kind's records read through indexes", () => {
  const target = resolveDatabaseUrl();
  it(`put, batch, get and the read by owner account use the primary key and the (desk, ownerAccountId) index (${target.provider})`, async () => {
    const { statements } = await statementsOf(async () => {
      await ok(await put("order", "o_plan", order("acc_shop_1", 1)));
      await ok(await batch([{ kind: "order", id: "o_plan", ...order("acc_shop_1", 2) }, { kind: "order_line", id: "l_plan", orderId: "o_plan", sku: "S", sourceVersion: 1, sourceUpdatedAt: at(1) }]));
      await ok(await get("order", "o_plan"));
      await ok(await del("order", "o_plan", 3));
      await prisma.deskRecord.findMany({ where: { desk: "retail", ownerAccountId: "acc_shop_1" }, select: { kind: true, id: true }, take: 50 });
    });
    const found: string[] = [];
    for (const s of statements.filter((s) => /desk_record|record_kind/.test(s.sql) && !readsNoTable(s.sql))) {
      const plan = await explainStatement(target, s, { forbidSeqScan: true });
      if (plan.startsWith("(not explained")) found.push(`${plan} — ${s.sql.slice(0, 200)}`);
      for (const read of wholeTableReads(target.provider, plan, { sql: s.sql })) found.push(`${read} — ${s.sql.replace(/\s+/g, " ").slice(0, 200)}`);
    }
    expect(statements.some((s) => /"ownerAccountId" = /.test(s.sql))).toBe(true);
    expect(found).toEqual([]);
  });
});
