/**
 * The records door through its route handlers (docs/api-extensions.md "Records door"), on this
 * file's own database (SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres): versions decide
 * (replays and out-of-order deliveries change nothing), tombstones and revival, every bad line's
 * typed error with nothing half-written, desks kept apart, and the money hold a synced invoice
 * version releases.
 */
import { loadAccountSnapshot } from "@/lib/server/account-data/load-account-snapshot";
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { DELETE as deleteRoute, GET as getRoute, PUT as putRoute } from "./records/[kind]/[id]/route";
import { POST as batchRoute } from "./records/batch/route";

const BASE = "http://localhost:3999";
const RETAIL_KEY = "pd_test_retail_records_key";
const FREIGHT_KEY = "pd_test_freight_records_key";
type Json = Record<string, any>;

const ctx = (kind: string, id: string) => ({ params: Promise.resolve({ kind, id }) });
const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00Z`;

function put(kind: string, id: string, body: unknown, key = FREIGHT_KEY, query = ""): Promise<Response> {
  return putRoute(new Request(`${BASE}/api/v1/records/${kind}/${id}${query}`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), ctx(kind, id));
}
function del(kind: string, id: string, version: number, time: string, key = FREIGHT_KEY): Promise<Response> {
  return deleteRoute(new Request(`${BASE}/api/v1/records/${kind}/${id}?sourceVersion=${version}&sourceUpdatedAt=${encodeURIComponent(time)}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } }), ctx(kind, id));
}
function get(kind: string, id: string, key = FREIGHT_KEY, query = ""): Promise<Response> {
  return getRoute(new Request(`${BASE}/api/v1/records/${kind}/${id}${query}`, { headers: { authorization: `Bearer ${key}` } }), ctx(kind, id));
}
function batch(body: BodyInit, key = FREIGHT_KEY, query = ""): Promise<Response> {
  return batchRoute(new Request(`${BASE}/api/v1/records/batch${query}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" }, body, duplex: "half" } as RequestInit));
}
const ndjson = (lines: unknown[]) => lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n";

async function ok(res: Response): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}
async function refusal(res: Response, status: number, code: string): Promise<Json> {
  const body = (await res.json()) as Json;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  return body.error;
}

const account = (name: string, v: number, extra: Json = {}) => ({ name, sourceVersion: v, sourceUpdatedAt: at(v % 60), ...extra });
const invoice = (accountId: string, v: number, extra: Json = {}) => ({
  accountId,
  status: "open",
  currency: "USD",
  totalMinor: 10_000,
  openMinor: 10_000,
  fees: [{ code: "LATE_FEE", amount: { minor: 500, currency: "USD" } }],
  dueDate: "2026-04-30",
  sourceVersion: v,
  sourceUpdatedAt: at(v % 60),
  ...extra,
});

beforeAll(async () => {
  await prepareTestDatabase();
  await prisma.integrationKey.create({ data: { id: "ik_retail_records", name: "Retail ERP", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
  await prisma.integrationKey.create({ data: { id: "ik_freight_records", name: "Freight ERP", hash: hashApiKey(FREIGHT_KEY), prefix: FREIGHT_KEY.slice(0, 8), desk: "freight" } });
}, 120_000);

describe("single records: versions decide", () => {
  it("a put creates; a replay or an older version changes nothing; a newer one replaces and bumps the local version", async () => {
    const first = await ok(await put("account", "acc_door_1", account("Door One", 3, { tags: ["good_standing"] })));
    expect(first).toMatchObject({ applied: true, record: { kind: "account", id: "acc_door_1", desk: "freight", fields: { name: "Door One", tags: ["good_standing"] }, sourceVersion: 3, deletedAt: null } });
    expect(first.record.syncedAt).toEqual(expect.any(String));

    await ok(await put("invoice", "in_door_1", invoice("acc_door_1", 5)));
    const replay = await ok(await put("invoice", "in_door_1", invoice("acc_door_1", 5, { openMinor: 1 })));
    expect(replay).toMatchObject({ applied: false, reason: "not_newer", record: { sourceVersion: 5, fields: { openMinor: 10_000 } } });
    const older = await ok(await put("invoice", "in_door_1", invoice("acc_door_1", 4, { openMinor: 2 })));
    expect(older).toMatchObject({ applied: false, reason: "not_newer", record: { sourceVersion: 5, fields: { openMinor: 10_000 } } });
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_door_1" } } })).version).toBe(1);

    const newer = await ok(await put("invoice", "in_door_1", invoice("acc_door_1", 9, { openMinor: 2_500, status: "open" })));
    expect(newer).toMatchObject({ applied: true, record: { sourceVersion: 9, sourceUpdatedAt: "2026-03-01T10:09:00.000Z", fields: { openMinor: 2_500 } } });
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_door_1" } } })).version).toBe(2);
    expect((await ok(await get("invoice", "in_door_1"))).record).toMatchObject({ sourceVersion: 9, fields: { openMinor: 2_500, currency: "USD" } });
  });

  it("a delete leaves a tombstone (an older one changes nothing); a newer put revives the record", async () => {
    await ok(await put("account", "acc_door_2", account("Door Two", 1)));
    await ok(await put("shipment", "sh_door_2", { accountId: "acc_door_2", destination: "NO-OSL", windowFrom: "2026-04-02", windowTo: "2026-04-04", status: "scheduled", address: "Dock 4", sourceVersion: 2, sourceUpdatedAt: at(2) }));
    const gone = await ok(await del("shipment", "sh_door_2", 3, at(3)));
    expect(gone).toMatchObject({ applied: true, record: { sourceVersion: 3, deletedAt: "2026-03-01T10:03:00.000Z" } });
    expect(await ok(await del("shipment", "sh_door_2", 3, at(3)))).toMatchObject({ applied: false, reason: "not_newer" });
    // an out-of-order put older than the delete does not bring it back
    expect(await ok(await put("shipment", "sh_door_2", { accountId: "acc_door_2", destination: "NO-OSL", windowFrom: "2026-04-02", windowTo: "2026-04-05", status: "scheduled", address: "Dock 4", sourceVersion: 2, sourceUpdatedAt: at(2) }))).toMatchObject({
      applied: false,
      record: { deletedAt: expect.any(String) },
    });
    const back = await ok(await put("shipment", "sh_door_2", { accountId: "acc_door_2", destination: "NO-OSL", windowFrom: "2026-04-06", windowTo: "2026-04-07", status: "scheduled", address: "Dock 5", sourceVersion: 4, sourceUpdatedAt: at(4) }));
    expect(back).toMatchObject({ applied: true, record: { deletedAt: null, sourceVersion: 4, fields: { windowFrom: "2026-04-06", address: "Dock 5" } } });
    await refusal(await del("shipment", "sh_door_none", 1, at(1)), 404, "not_found");
  });

  it("a tombstoned account takes no new invoice, and its invoices are absent from decisions until it is revived", async () => {
    await ok(await put("account", "acc_door_t", account("Door Tomb", 1)));
    await ok(await put("invoice", "in_door_t1", invoice("acc_door_t", 1)));
    await ok(await del("account", "acc_door_t", 2, at(2)));
    await refusal(await put("invoice", "in_door_t2", invoice("acc_door_t", 1)), 422, "unknown_account");
    const snapshot = await loadAccountSnapshot({ ticketId: "74991", desk: "freight", steps: [{ tool: "issue_refund", args: { invoiceId: "in_door_t1", amount: { minor: 100, currency: "USD" }, reason: "x" } }] });
    expect(snapshot.invoices.in_door_t1).toBeUndefined();
    await ok(await put("account", "acc_door_t", account("Door Tomb", 3)));
    const revived = await loadAccountSnapshot({ ticketId: "74991", desk: "freight", steps: [{ tool: "issue_refund", args: { invoiceId: "in_door_t1", amount: { minor: 100, currency: "USD" }, reason: "x" } }] });
    expect(revived.invoices.in_door_t1).toMatchObject({ accountId: "acc_door_t" });
  });

  it("bad records get typed refusals and write nothing", async () => {
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", 1, { currency: "XXX" })), 422, "invalid_record");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", 1, { fees: [{ code: "F", amount: { minor: 1, currency: "EUR" } }] })), 422, "currency_mismatch");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", 1, { openMinor: 20_000 })), 422, "invalid_record");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", 1, { surprise: true })), 422, "invalid_record");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", -1)), 422, "invalid_record");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_door_1", 1, { sourceUpdatedAt: "2026-03-01T10:00:00+02:00" })), 422, "invalid_record");
    await refusal(await put("invoice", "in_door_bad", invoice("acc_nobody", 1)), 422, "unknown_account");
    await refusal(await put("ledger", "x_1", account("x", 1)), 404, "not_found");
    expect(await prisma.invoice.findUnique({ where: { desk_id: { desk: "freight", id: "in_door_bad" } } })).toBeNull();
  });

  it("an agent key is refused; a key bound to no desk names one that exists", async () => {
    await refusal(await get("account", "acc_door_1", DEMO_AGENT_KEY), 403, "forbidden");
    await refusal(await put("account", "acc_door_x", account("X", 1), DEMO_AGENT_KEY), 403, "forbidden");
    await refusal(await put("account", "acc_door_x", account("X", 1), DEMO_INTEGRATION_KEY), 400, "bad_request");
    await refusal(await put("account", "acc_door_x", account("X", 1), DEMO_INTEGRATION_KEY, "?desk=nowhere"), 422, "unknown_desk");
    expect(await ok(await put("account", "acc_door_x", account("X", 1), DEMO_INTEGRATION_KEY, "?desk=freight"))).toMatchObject({ record: { desk: "freight" } });
  });
});

describe("desks kept apart", () => {
  it("another desk's key can neither read, change, delete nor name a record or an account of this desk; the same id is its own record", async () => {
    await ok(await put("account", "acc_retail_door", account("Retail Door", 1), RETAIL_KEY));
    await refusal(await get("account", "acc_door_1", RETAIL_KEY), 404, "not_found");
    await refusal(await get("invoice", "in_door_1", RETAIL_KEY), 404, "not_found");
    await refusal(await get("account", "acc_door_1", RETAIL_KEY, "?desk=freight"), 404, "not_found");
    // another desk's account and a missing one: the same words
    const foreign = await refusal(await put("invoice", "in_retail_1", invoice("acc_door_1", 1), RETAIL_KEY), 422, "unknown_account");
    const missing = await refusal(await put("invoice", "in_retail_1", invoice("acc_door_1_missing", 1), RETAIL_KEY), 422, "unknown_account");
    expect(foreign.message.replace("acc_door_1", "X")).toBe(missing.message.replace("acc_door_1_missing", "X"));
    await refusal(await del("invoice", "in_door_1", 100, at(10), RETAIL_KEY), 404, "not_found");
    const b = await ok(await batch(ndjson([{ kind: "invoice", id: "in_door_1", op: "delete", sourceVersion: 100, sourceUpdatedAt: at(1) }]), RETAIL_KEY));
    expect(b.errors.map((e: Json) => e.code)).toEqual(["not_found"]);

    // Ids are per desk: the retail desk's acc_door_1 and in_door_1 are its own records, at its own versions.
    const own = await ok(await put("account", "acc_door_1", account("Retail's Door One", 2), RETAIL_KEY));
    expect(own).toMatchObject({ applied: true, record: { desk: "retail", fields: { name: "Retail's Door One" }, sourceVersion: 2 } });
    expect(JSON.stringify(own)).not.toMatch(/freight|good_standing/);
    expect(await ok(await put("invoice", "in_door_1", invoice("acc_retail_door", 1, { openMinor: 7 }), RETAIL_KEY))).toMatchObject({ applied: true, record: { desk: "retail", sourceVersion: 1 } });
    const batched = await ok(await batch(ndjson([{ kind: "invoice", id: "in_door_1", ...invoice("acc_door_1", 3, { openMinor: 8 }) }]), RETAIL_KEY));
    expect(batched).toMatchObject({ applied: 1, errors: [] });
    expect((await ok(await get("invoice", "in_door_1", RETAIL_KEY))).record).toMatchObject({ desk: "retail", sourceVersion: 3, fields: { accountId: "acc_door_1", openMinor: 8 } });
    // the freight desk's records of those ids are untouched
    const still = (await ok(await get("invoice", "in_door_1"))).record;
    expect(still).toMatchObject({ desk: "freight", sourceVersion: 9, deletedAt: null, fields: { accountId: "acc_door_1", openMinor: 2_500 } });
    expect((await ok(await get("account", "acc_door_1"))).record.fields.name).toBe("Door One");
    // a retail delete tombstones retail's own invoice only
    await ok(await del("invoice", "in_door_1", 4, at(4), RETAIL_KEY));
    expect((await ok(await get("invoice", "in_door_1"))).record.deletedAt).toBeNull();
  });
});

describe("the batch", () => {
  it("applies the good lines and answers every bad one with its typed error, writing nothing of it", async () => {
    const big = JSON.stringify({ kind: "account", id: "acc_b_big", ...account("x".repeat(70_000), 1) });
    const body = Buffer.concat([
      Buffer.from(
        ndjson([
          { kind: "account", id: "acc_b_1", ...account("Batch One", 1) },
          { kind: "invoice", id: "in_b_1", ...invoice("acc_b_1", 1) }, // names the account of line 1
          "{not json",
          { kind: "ledger", id: "x", ...account("x", 1) },
          { kind: "invoice", id: "in_b_2", ...invoice("acc_b_1", 1, { fees: [{ code: "F", amount: { minor: 1, currency: "NOK" } }] }) },
          { kind: "invoice", id: "in_b_3", ...invoice("acc_b_1", 1, { extra: 1 }) },
          { kind: "invoice", id: "in_b_4", ...invoice("acc_b_1", 1, { dueDate: undefined }) },
          { kind: "shipment", id: "sh_b_1", accountId: "acc_b_1", destination: "SE-GOT", windowFrom: "2026-04-09", windowTo: "2026-04-08", status: "scheduled", address: "A", sourceVersion: 1, sourceUpdatedAt: at(1) },
          { kind: "invoice", id: "in_b_5", ...invoice("acc_nobody", 1) },
          big,
          "",
          { kind: "holiday", id: "hol_b_1", destination: "NO-OSL", date: "2026-05-17", name: "Constitution Day", sourceVersion: 1, sourceUpdatedAt: at(1) },
          { kind: "account", id: "acc_b_1", ...account("Batch One (replayed)", 1) },
        ]),
      ),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // not UTF-8
      Buffer.from(`{"kind":"account","id":"acc_b_cut","name":"Cu`), // cut mid-way, no newline
    ]);
    const res = await ok(await batch(body));
    expect(res).toMatchObject({ lines: 15, applied: 3, ignored: 1, moreErrors: 0 });
    expect(res.errors.map((e: Json) => [e.line, e.code])).toEqual([
      [3, "invalid_json"],
      [4, "unknown_kind"],
      [5, "currency_mismatch"],
      [6, "invalid_record"],
      [7, "invalid_record"],
      [8, "invalid_record"],
      [9, "unknown_account"],
      [10, "line_too_long"],
      [14, "invalid_utf8"],
      [15, "truncated_line"],
    ]);
    expect(await prisma.invoice.count({ where: { id: { in: ["in_b_2", "in_b_3", "in_b_4", "in_b_5"] } } })).toBe(0);
    expect(await prisma.shipment.count({ where: { id: "sh_b_1" } })).toBe(0);
    expect(await prisma.customerAccount.count({ where: { id: { in: ["acc_b_big", "acc_b_cut"] } } })).toBe(0);
    expect((await prisma.customerAccount.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "acc_b_1" } } })).name).toBe("Batch One");
    expect(await prisma.holiday.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "hol_b_1" } } })).toMatchObject({ sourceVersion: 1n });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { type: "records_synced" }, orderBy: { createdAt: "desc" } });
    expect(audit.data).toMatchObject({ desk: "freight", via: "batch", lines: 15, applied: 3, ignored: 1, errors: 10 });
    expect(JSON.stringify(audit.data)).not.toMatch(/Batch One/);
  });

  it("the same record twice in a batch is applied in order; out of order, the newer wins", async () => {
    const res = await ok(
      await batch(
        ndjson([
          { kind: "account", id: "acc_b_2", ...account("v2", 2) },
          { kind: "account", id: "acc_b_2", ...account("v1", 1) },
          { kind: "account", id: "acc_b_2", ...account("v3", 3) },
          { kind: "account", id: "acc_b_2", op: "delete", sourceVersion: 4, sourceUpdatedAt: at(4) },
        ]),
      ),
    );
    expect(res).toMatchObject({ lines: 4, applied: 3, ignored: 1, errors: [] });
    expect(await prisma.customerAccount.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "acc_b_2" } } })).toMatchObject({ name: "v3", sourceVersion: 4n, deletedAt: expect.any(Date) });
  });

  it("a final line without its newline that parses is applied; a body that is not NDJSON is refused", async () => {
    const res = await ok(await batch(JSON.stringify({ kind: "account", id: "acc_b_last", ...account("Last", 1) })));
    expect(res).toMatchObject({ lines: 1, applied: 1, errors: [] });
    const wrong = await batchRoute(new Request(`${BASE}/api/v1/records/batch`, { method: "POST", headers: { authorization: `Bearer ${FREIGHT_KEY}`, "content-type": "application/json" }, body: "{}" }));
    await refusal(wrong, 400, "bad_request");
    await refusal(await batch("", DEMO_AGENT_KEY), 403, "forbidden");
  });

  it("lists at most 100 errors and counts the rest", async () => {
    const res = await ok(await batch(ndjson(Array.from({ length: 150 }, () => "nope"))));
    expect(res).toMatchObject({ lines: 150, applied: 0, moreErrors: 50 });
    expect(res.errors).toHaveLength(100);
  });
});

describe("money holds", () => {
  it("a synced invoice version at least the one the executor reported ends the hold", async () => {
    await ok(await put("invoice", "in_door_hold", invoice("acc_door_1", 10)));
    // A freight run: the hold belongs to the desk whose record the door applies (the demo also seeds retail runs).
    const run = await prisma.run.findFirstOrThrow({ where: { desk: "freight" }, select: { id: true } });
    const base = { runId: run.id, stepId: "s1", planVersion: 1, tool: "refund_invoice", args: {}, digest: "d", boundTaskRevision: 1, authority: {}, acknowledged: [], targetKind: "invoice", targetId: "in_door_hold", state: "consumed", expiresAt: new Date("2026-05-01T00:00:00Z"), holdOpen: true };
    await prisma.approval.create({ data: { ...base, id: "ap_hold_v12", holdUntilVersion: 12n } });
    await prisma.approval.create({ data: { ...base, id: "ap_hold_v20", stepId: "s2", holdUntilVersion: 20n } });
    await ok(await put("invoice", "in_door_hold", invoice("acc_door_1", 11)));
    expect((await prisma.approval.findUniqueOrThrow({ where: { id: "ap_hold_v12" } })).holdOpen).toBe(true);
    await ok(await batch(ndjson([{ kind: "invoice", id: "in_door_hold", ...invoice("acc_door_1", 12) }])));
    expect((await prisma.approval.findUniqueOrThrow({ where: { id: "ap_hold_v12" } })).holdOpen).toBe(false);
    expect((await prisma.approval.findUniqueOrThrow({ where: { id: "ap_hold_v20" } })).holdOpen).toBe(true);
  });
});
