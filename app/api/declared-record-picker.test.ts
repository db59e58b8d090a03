/**
 * The edit form's record picker for an imported tool's bound argument (`x-plandesk-record`,
 * lib/tools/tool-bindings.ts), on this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): the run page offers the declared kind's records of the task's account
 * (at most ACCOUNT_RECORD_LIMIT, read through the desk's owner-account index), and the search
 * endpoint `GET /api/account-data/{kind}?q=` finds a declared kind's records of the run's desk by id
 * prefix (at most SEARCH_LIMIT, a primary-key range) — as it does for invoices. Another desk's
 * records are never offered, and no statement of either reads a whole table.
 */
import { statementsOf } from "@/testing/statement-capture";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { loadViewer } from "@/lib/server/auth/session";
import { prisma } from "@/lib/server/db/db";
import { getRunDetails } from "@/lib/server/runs/get-run-details";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { ACCOUNT_RECORD_LIMIT } from "@/lib/server/account-data/load-account-snapshot";
import { SEARCH_LIMIT } from "@/lib/server/account-data/search-records";
import { explainStatement, readsNoTable, wholeTableReads } from "@/testing/query-plans";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { REFUND_ORDER_BINDINGS, REFUND_ORDER_TOOL } from "../../testing/fixtures/bound-tools";
import { ORDER_ROLES, ORDER_SCHEMA } from "../../testing/fixtures/order-kind";
import { GET as searchRoute } from "./account-data/[kind]/route";
import { PUT as putKind } from "./admin/desks/[deskId]/record-kinds/[kind]/route";
import { POST as importRoute } from "./admin/tools/import/route";
import { DELETE as deleteRecordRoute, PUT as putRecordRoute } from "./v1/records/[kind]/[id]/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const RETAIL_KEY = "pd_test_retail_picker_key";
const FREIGHT_KEY = "pd_test_freight_picker_key";
let admin: string;
let retail: string;
let supervisor: string;

const order = (customerId: string, v: number, extra: Json = {}) => ({ customerId, refundableMinor: 4_000, currency: "USD", status: "open", shipFrom: "2026-04-01", shipTo: "2026-04-03", number: `O-${v}`, sourceVersion: v, sourceUpdatedAt: "2026-03-01T10:00:00Z", ...extra });

async function status(res: Response, expected: number): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body).slice(0, 1500)).toBe(expected);
  return body;
}
function put(kind: string, id: string, body: unknown, key = RETAIL_KEY): Promise<Response> {
  return putRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/${kind}/${id}`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), routeCtx({ kind, id }));
}
async function search(kind: string, q: string, cookie = retail, desk?: string): Promise<Json[]> {
  const body = await status(await searchRoute(apiRequest("GET", `/api/account-data/${kind}?q=${encodeURIComponent(q)}${desk ? `&desk=${desk}` : ""}`, { cookie }), routeCtx({ kind })), 200);
  return body.records as Json[];
}

/** Every statement `fn` sends to desk_record, explained on this database: the reads that are not index reads. */
async function wholeTableReadsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const { statements } = await statementsOf(fn);
  const target = resolveDatabaseUrl();
  const found: string[] = [];
  const onRecords = statements.filter((s) => /desk_record/.test(s.sql) && !readsNoTable(s.sql));
  expect(onRecords.length).toBeGreaterThan(0);
  for (const s of onRecords) {
    const plan = await explainStatement(target, s, { forbidSeqScan: true });
    if (plan.startsWith("(not explained")) found.push(`${plan} — ${s.sql.slice(0, 200)}`);
    for (const read of wholeTableReads(target.provider, plan, { sql: s.sql })) found.push(`${read} — ${s.sql.replace(/\s+/g, " ").slice(0, 200)}`);
  }
  return found;
}

let runId: string;

beforeAll(async () => {
  await prepareTestDatabase();
  admin = await signInCookie("admin@plandesk.test");
  retail = await signInCookie("retail@plandesk.test");
  supervisor = await signInCookie("supervisor@plandesk.test");
  await prisma.integrationKey.create({ data: { id: "ik_retail_picker", name: "Retail shop", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
  await prisma.integrationKey.create({ data: { id: "ik_freight_picker", name: "Freight ERP", hash: hashApiKey(FREIGHT_KEY), prefix: FREIGHT_KEY.slice(0, 8), desk: "freight" } });
  for (const desk of ["retail", "freight"]) {
    await status(await putKind(apiRequest("PUT", `/api/admin/desks/${desk}/record-kinds/order`, { cookie: admin, origin: TEST_ORIGIN }, { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "orders" }), routeCtx({ deskId: desk, kind: "order" })), 200);
  }
  // refund_order binds orderId to the order kind (the same bindings as the MCP import, pasted)
  await status(await importRoute(apiRequest("POST", "/api/admin/tools/import", { cookie: admin, origin: TEST_ORIGIN }, { source: "mcp_tools_list", label: "shop", payload: { tools: [REFUND_ORDER_TOOL] }, desk: "retail", bindings: { refund_order: REFUND_ORDER_BINDINGS } })), 201);
  // Brightside (ticket 81001's account) has more orders than the page offers; Maple has one; the freight desk has its own
  for (let i = 0; i < ACCOUNT_RECORD_LIMIT + 5; i++) await status(await put("order", `o_${String(i).padStart(4, "0")}`, order("acc_brightside", 1)), 200);
  await status(await put("order", "o_maple", order("acc_maple", 1)), 200);
  await status(await put("order", "o_gone", order("acc_brightside", 1)), 200);
  await status(await deleteRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/order/o_gone?sourceVersion=2&sourceUpdatedAt=2026-03-01T11:00:00Z`, { method: "DELETE", headers: { authorization: `Bearer ${RETAIL_KEY}` } }), routeCtx({ kind: "order", id: "o_gone" })), 200);
  await status(await put("order", "o_0001", order("acc_halvorsen", 1), FREIGHT_KEY), 200);
  await status(await put("order", "o_freight", order("acc_halvorsen", 1), FREIGHT_KEY), 200);

  const task = await prisma.task.findFirstOrThrow({ where: { ticketId: "81001" } });
  const submitted = await status(
    await submitRoute(
      new Request(`${TEST_ORIGIN}/api/v1/tasks/${task.id}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEMO_RETAIL_AGENT_KEY}`, "idempotency-key": nanoid(), "content-type": "application/json" },
        body: JSON.stringify({ taskRevision: task.revision, steps: [{ id: "st_note", tool: "add_ticket_note", args: { ticketId: "81001", note: "Looking at the order." } }] }),
      }),
      routeCtx({ taskId: task.id }),
    ),
    201,
  );
  runId = submitted.run.id;
}, 120_000);

describe("the record picker of a bound argument", () => {
  it("the run page offers the declared kind's records of the task's account: at most ACCOUNT_RECORD_LIMIT, none of another account or desk, no tombstone", async () => {
    // the snapshot the run page renders and the edit form offers from (the API's run details leave it out)
    const details = await getRunDetails(runId, (await loadViewer("usr_retail"))!);
    const orders = Object.values(details.desk.declared?.order ?? {}) as Json[];
    expect(orders).toHaveLength(ACCOUNT_RECORD_LIMIT);
    expect(orders.every((o) => o.accountId === "acc_brightside")).toBe(true);
    expect(orders.map((o) => o.id)).not.toContain("o_maple");
    expect(orders.map((o) => o.id)).not.toContain("o_gone");
    expect(orders.find((o) => o.id === "o_0001")).toMatchObject({ kind: "order", title: "O-1", available: { minor: 4_000, currency: "USD" }, status: "open", closed: false });
    expect(JSON.stringify(details.desk)).not.toMatch(/acc_halvorsen|o_freight/);
  });

  it("the search finds a declared kind's records of the run's desk by id prefix, at most SEARCH_LIMIT, with their account and balance", async () => {
    const found = await search("order", "o_00");
    expect(found).toHaveLength(SEARCH_LIMIT);
    expect(found[0]).toEqual({ kind: "order", id: "o_0000", accountId: "acc_brightside", accountName: "Brightside Home Goods", title: "O-1", status: "open", available: { minor: 4_000, currency: "USD" }, label: "o_0000 · Brightside Home Goods · O-1 · open · $40.00 available" });
    expect((await search("order", "o_m")).map((r) => r.id)).toEqual(["o_maple"]);
    expect(await search("order", "o_g")).toEqual([]); // deleted at the source
    // a desk is a boundary: the retail operator never finds the freight desk's orders, nor by naming its desk
    expect((await search("order", "o_f")).map((r) => r.id)).toEqual([]);
    expect(await search("order", "o_", retail, "freight")).toEqual([]);
    // a supervisor finds those of the desk named (the edit form passes its run's desk), and without one nothing: a kind is a desk's
    expect((await search("order", "o_f", supervisor, "freight")).map((r) => r.id)).toEqual(["o_freight"]);
    expect(await search("order", "o_f", supervisor)).toEqual([]);
    // a kind nobody declared finds nothing; a name that cannot be a kind names no resource
    expect(await search("gift_card", "g")).toEqual([]);
    expect((await searchRoute(apiRequest("GET", "/api/account-data/Not%20A%20Kind?q=x", { cookie: retail }), routeCtx({ kind: "Not A Kind" }))).status).toBe(404);
  });

  it("neither reads a whole table: the account's records by the owner index, the search by the primary key", async () => {
    const viewer = (await loadViewer("usr_retail"))!;
    expect(await wholeTableReadsOf(() => getRunDetails(runId, viewer))).toEqual([]);
    expect(await wholeTableReadsOf(() => searchRoute(apiRequest("GET", "/api/account-data/order?q=o_00", { cookie: retail }), routeCtx({ kind: "order" })))).toEqual([]);
  });
});
