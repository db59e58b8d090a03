/**
 * Ticket, account, invoice, shipment and holiday ids are per desk: two desks fed from one ticketing
 * and one billing system each import ticket 80001, account acc_same, invoice in_same, shipment
 * sh_same and holiday hol_same (on different dates), with different data,
 * through the public door (`PUT /api/v1/records/{kind}/{id}`, `POST /api/v1/records/batch`,
 * `POST /api/v1/tasks`) with desk-bound integration keys — nothing is refused for the other desk's
 * id. Then each desk's task, validator (open balance, money in flight at the claim, a delivery
 * window on a holiday — its calendar read through an index) and record reads see only its own data, and a read of a record the desk does not have is the same 404 as a
 * missing one. Route handlers called in process against this file's own database (SQLite, or
 * PostgreSQL with PLANDESK_TEST_DB=postgres), seeded with the demo (freight) and retail desks.
 */
import { statementsOf } from "@/testing/statement-capture";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { utcDateOf } from "@/lib/time/dates";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { inProcessFetch } from "@/testing/in-process-fetch";
import { explainStatement, wholeTableReads } from "@/testing/query-plans";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { DELETE as deleteRecord, GET as getRecord, PUT as putRecord } from "./records/[kind]/[id]/route";
import { POST as batchRoute } from "./records/batch/route";

type Json = Record<string, any>;
const BASE = "http://localhost:3999";
const FREIGHT_KEY = "pd_int_freight_same_ids";
const RETAIL_KEY = "pd_int_retail_same_ids";
const AGENT_KEY = { freight: DEMO_AGENT_KEY, retail: DEMO_RETAIL_AGENT_KEY } as const;
const DESKS = ["freight", "retail"] as const;
type Desk = (typeof DESKS)[number];
const INTEGRATION_KEY: Record<Desk, string> = { freight: FREIGHT_KEY, retail: RETAIL_KEY };

/** What each desk's systems say about ticket 80001, account acc_same and invoice in_same. */
const DATA: Record<Desk, { name: string; subject: string; text: string; openMinor: number; totalMinor: number }> = {
  freight: { name: "Same Freight AS", subject: "Pallet damaged in transit", text: "Two pallets arrived crushed; please refund.", openMinor: 50_000, totalMinor: 80_000 },
  retail: { name: "Same Retail Ltd", subject: "Duplicate card charge", text: "I was charged twice for one order.", openMinor: 2_000, totalMinor: 2_000 },
};

/** One call of the API with `key`: the records door's route handlers directly, the agent and task routes through the in-process fetch. */
async function call(method: string, path: string, key: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; body: Json }> {
  const init: RequestInit & { duplex?: string } = {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": contentType } : {}) },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body), duplex: "half" } : {}),
  };
  const record = /^\/api\/v1\/records\/(\w+)\/([^/?]+)(?:\?.*)?$/.exec(path);
  const res =
    path === "/api/v1/records/batch"
      ? await batchRoute(new Request(`${BASE}${path}`, init))
      : record && record[1] !== "batch"
        ? await (method === "PUT" ? putRecord : method === "DELETE" ? deleteRecord : getRecord)(new Request(`${BASE}${path}`, init), { params: Promise.resolve({ kind: record[1], id: record[2] }) })
        : await inProcessFetch(`${BASE}${path}`, init);
  return { status: res.status, body: (await res.json()) as Json };
}

const at = "2026-03-01T10:00:00Z";
const invoiceFields = (d: Desk) => ({ accountId: "acc_same", status: "open", currency: "USD", totalMinor: DATA[d].totalMinor, openMinor: DATA[d].openMinor, fees: [], dueDate: "2026-04-30", sourceVersion: 1, sourceUpdatedAt: at });
const refund = (minor: number) => withRequiredReasons([{ id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_same", amount: { minor, currency: "USD" }, reason: "Goodwill" } }]);

/** Each desk's task of ticket 80001 (task_80001 on the freight desk, task_retail_80001 on retail: from the desk and ticket alone). */
const taskOf: Record<Desk, Json> = { freight: {}, retail: {} };

const REFUND_REQUEST = { intent: "refund_request", constraints: {} };

beforeAll(async () => {
  await prepareTestDatabase();
  await prisma.integrationKey.create({ data: { id: "ik_freight_same", name: "Freight systems", hash: hashApiKey(FREIGHT_KEY), prefix: FREIGHT_KEY.slice(0, 8), desk: "freight" } });
  await prisma.integrationKey.create({ data: { id: "ik_retail_same", name: "Retail systems", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
  // Both desks import the same ids through the door: the freight desk record by record, the retail desk by batch.
  const account = await call("PUT", "/api/v1/records/account/acc_same", FREIGHT_KEY, { name: DATA.freight.name, sourceVersion: 1, sourceUpdatedAt: at });
  expect(account.status, JSON.stringify(account.body)).toBe(200);
  const invoice = await call("PUT", "/api/v1/records/invoice/in_same", FREIGHT_KEY, invoiceFields("freight"));
  expect(invoice.status, JSON.stringify(invoice.body)).toBe(200);
  // a record only the freight desk has (the 404 comparison below)
  expect((await call("PUT", "/api/v1/records/invoice/in_only_freight", FREIGHT_KEY, invoiceFields("freight"))).status).toBe(200);
  const ndjson = [
    { kind: "account", id: "acc_same", name: DATA.retail.name, sourceVersion: 1, sourceUpdatedAt: at },
    { kind: "invoice", id: "in_same", ...invoiceFields("retail") },
  ]
    .map((l) => JSON.stringify(l))
    .join("\n");
  const batch = await call("POST", "/api/v1/records/batch", RETAIL_KEY, `${ndjson}\n`, "application/x-ndjson");
  expect(batch).toMatchObject({ status: 200, body: { applied: 2, errors: [] } });
  for (const desk of DESKS) {
    // A refund request, as each desk's ticketing integration says (a task without a contract would permit replies and notes only).
    const opened = await call("POST", "/api/v1/tasks", INTEGRATION_KEY[desk], { ticketId: "80001", accountId: "acc_same", subject: DATA[desk].subject, parts: [{ source: "customer_message", text: DATA[desk].text }], contract: REFUND_REQUEST });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    taskOf[desk] = opened.body.task;
  }
}, 120_000);

describe("the same ids on two desks", () => {
  it("both imports landed: two accounts, two tickets, two invoices, two tasks, each on its own desk with its own data", async () => {
    for (const desk of DESKS) {
      expect(await prisma.customerAccount.findUniqueOrThrow({ where: { desk_id: { desk, id: "acc_same" } } })).toMatchObject({ name: DATA[desk].name });
      expect(await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk, id: "80001" } } })).toMatchObject({ accountId: "acc_same", subject: DATA[desk].subject });
      expect(await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk, id: "in_same" } } })).toMatchObject({ openMinor: DATA[desk].openMinor, totalMinor: DATA[desk].totalMinor });
      expect(taskOf[desk]).toMatchObject({ ticketId: "80001", accountId: "acc_same", revision: 1, body: DATA[desk].text });
    }
    // each id comes from the desk and the ticket alone, so neither tells a desk the other has ticket 80001
    expect([taskOf.freight.id, taskOf.retail.id]).toEqual(["task_80001", "task_retail_80001"]);
    expect(await prisma.task.findUniqueOrThrow({ where: { id: taskOf.retail.id } })).toMatchObject({ desk: "retail", ticketId: "80001" });
  });

  it("a repeat of each desk's opening answers its own task; neither is refused for the other desk's ticket", async () => {
    for (const desk of DESKS) {
      const again = await call("POST", "/api/v1/tasks", INTEGRATION_KEY[desk], { ticketId: "80001", accountId: "acc_same", subject: DATA[desk].subject, parts: [{ source: "customer_message", text: DATA[desk].text }], contract: REFUND_REQUEST });
      expect(again).toMatchObject({ status: 200, body: { created: false, task: { id: taskOf[desk].id } } });
    }
  });

  it("a key bound to no desk cannot tell which desk's acc_same it means: 422 unknown_account, nothing opened", async () => {
    const tasks = await prisma.task.count();
    const res = await call("POST", "/api/v1/tasks", DEMO_INTEGRATION_KEY, { ticketId: "80002", accountId: "acc_same", subject: "Which desk?", parts: [{ source: "staff", text: "x" }] });
    expect(res).toMatchObject({ status: 422, body: { error: { code: "unknown_account" } } });
    expect(await prisma.task.count()).toBe(tasks);
  });

  it("each desk's agent reads its own task; the other desk's task is 404, and the ticket's task list is the desk's own", async () => {
    for (const desk of DESKS) {
      const other: Desk = desk === "freight" ? "retail" : "freight";
      expect(await call("GET", `/api/v1/tasks/${taskOf[desk].id}`, AGENT_KEY[desk])).toMatchObject({ status: 200, body: { task: { body: DATA[desk].text, accountId: "acc_same" } } });
      expect((await call("GET", `/api/v1/tasks/${taskOf[other].id}`, AGENT_KEY[desk])).status).toBe(404);
      const list = await call("GET", "/api/v1/tasks?ticketId=80001", AGENT_KEY[desk]);
      expect(list.body.tasks.map((t: Json) => t.id)).toEqual([taskOf[desk].id]);
    }
  });

  it("each desk's record reads show its own fields; a record the desk does not have is the same 404 as a missing one", async () => {
    for (const desk of DESKS) {
      const inv = await call("GET", "/api/v1/records/invoice/in_same", INTEGRATION_KEY[desk]);
      expect(inv).toMatchObject({ status: 200, body: { record: { desk, fields: { openMinor: DATA[desk].openMinor, totalMinor: DATA[desk].totalMinor } } } });
      const acc = await call("GET", "/api/v1/records/account/acc_same", INTEGRATION_KEY[desk]);
      expect(acc).toMatchObject({ status: 200, body: { record: { desk, fields: { name: DATA[desk].name } } } });
    }
    const foreign = await call("GET", "/api/v1/records/invoice/in_only_freight", RETAIL_KEY);
    const missing = await call("GET", "/api/v1/records/invoice/in_nowhere", RETAIL_KEY);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(foreign.body).replace("in_only_freight", "X")).toBe(JSON.stringify(missing.body).replace("in_nowhere", "X"));
  });

  it("the validator reads the run's desk's invoice only: a refund freight's in_same covers is more than retail's open balance", async () => {
    const retail = await call("POST", `/api/v1/tasks/${taskOf.retail.id}/runs`, AGENT_KEY.retail, { taskRevision: 1, steps: refund(30_000) });
    expect(retail.status, JSON.stringify(retail.body)).toBe(422);
    const issue = retail.body.error.issues.find((i: Json) => i.code === "amount_exceeds_balance");
    expect(issue).toBeDefined();
    expect(JSON.stringify(retail.body)).not.toMatch(/50[,.]?000|500\.00|Same Freight/);
    const freight = await call("POST", `/api/v1/tasks/${taskOf.freight.id}/runs`, AGENT_KEY.freight, { taskRevision: 1, steps: refund(30_000) });
    expect(freight.status, JSON.stringify(freight.body)).toBe(201);
    expect(freight.body.run).toMatchObject({ status: "pending_review", steps: [{ id: "s_refund" }] });
  });

  it("money in flight is per desk: freight's claimed refund on its in_same holds nothing on retail's in_same", async () => {
    const submit = async (desk: Desk, minor: number) => {
      const res = await call("POST", `/api/v1/tasks/${taskOf[desk].id}/runs`, AGENT_KEY[desk], { taskRevision: 1, steps: refund(minor) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.run as Json;
    };
    const claim = (desk: Desk, run: Json) => call("POST", `/api/v1/runs/${run.id}/steps/s_refund/claim`, AGENT_KEY[desk], { digest: run.steps[0].digest, taskRevision: 1 });
    const freightRun = await submit("freight", 40_000);
    await approveAllAs(freightRun.id, "usr_senior");
    const held = await claim("freight", freightRun);
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    const retailRun = await submit("retail", 1_500);
    await approveAllAs(retailRun.id, "usr_retail");
    const claimed = await claim("retail", retailRun);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    // and each desk's invoice is the one its claim holds money on
    expect(await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "retail", id: "in_same" } } })).toMatchObject({ openMinor: 2_000 });
    expect(await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_same" } } })).toMatchObject({ openMinor: 50_000 });
  });
});

/** The ISO date `n` days after today (UTC, on the real clock the routes run on). */
const day = (n: number) => utcDateOf(new Date(Date.now() + n * 86_400_000));
/** A port no seeded calendar has, so each desk's calendar there is hol_same alone. */
const PORT = "XX-SAM";
/** Each desk's holiday hol_same at PORT: what each desk's calendar system says (different days). */
const HOLIDAY: Record<Desk, string> = { freight: day(5), retail: day(8) };
const holidayFields = (d: Desk, sourceVersion = 1) => ({ destination: PORT, date: HOLIDAY[d], name: `${d} port closure`, sourceVersion, sourceUpdatedAt: at });
const shipmentFields = { accountId: "acc_same", destination: PORT, windowFrom: day(2), windowTo: day(3), status: "scheduled", address: "Dock 1", sourceVersion: 1, sourceUpdatedAt: at };
/** A plan moving sh_same's delivery to the window `from`..`to`. */
const move = (from: string, to: string) => ({ taskRevision: 1, steps: [{ id: "s_move", tool: "reschedule_delivery", args: { shipmentId: "sh_same", window: { from, to }, reason: "The customer asked for a later delivery" } }] });

describe("holidays of one id on two desks", () => {
  const put: Record<Desk, Json> = { freight: {}, retail: {} };
  const task: Record<Desk, Json> = { freight: {}, retail: {} };

  beforeAll(async () => {
    // freight record by record, retail by batch: each its own shipment sh_same and holiday hol_same
    expect((await call("PUT", "/api/v1/records/shipment/sh_same", FREIGHT_KEY, shipmentFields)).status).toBe(200);
    put.freight = await call("PUT", "/api/v1/records/holiday/hol_same", FREIGHT_KEY, holidayFields("freight"));
    expect((await call("PUT", "/api/v1/records/holiday/hol_only_freight", FREIGHT_KEY, { ...holidayFields("freight"), date: day(20) })).status).toBe(200);
    const ndjson = [
      { kind: "shipment", id: "sh_same", ...shipmentFields },
      { kind: "holiday", id: "hol_same", ...holidayFields("retail") },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    put.retail = await call("POST", "/api/v1/records/batch", RETAIL_KEY, `${ndjson}\n`, "application/x-ndjson");
    for (const desk of DESKS) {
      const opened = await call("POST", "/api/v1/tasks", INTEGRATION_KEY[desk], { ticketId: "80003", accountId: "acc_same", subject: "Move the delivery", parts: [{ source: "customer_message", text: "Please deliver sh_same a few days later." }], contract: { intent: "delivery_exception", constraints: {} } });
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      task[desk] = opened.body.task;
    }
  }, 120_000);

  it("both puts of hol_same landed, neither record_id_taken; each desk reads back its own date", async () => {
    expect(put.freight, JSON.stringify(put.freight.body)).toMatchObject({ status: 200, body: { applied: true, record: { desk: "freight", fields: { date: HOLIDAY.freight } } } });
    expect(put.retail).toMatchObject({ status: 200, body: { applied: 2, errors: [] } });
    expect(JSON.stringify(put)).not.toMatch(/record_id_taken/);
    for (const desk of DESKS) {
      const read = await call("GET", "/api/v1/records/holiday/hol_same", INTEGRATION_KEY[desk]);
      expect(read).toMatchObject({ status: 200, body: { record: { kind: "holiday", id: "hol_same", desk, fields: { destination: PORT, date: HOLIDAY[desk], name: `${desk} port closure` } } } });
    }
    expect(await prisma.holiday.count({ where: { id: "hol_same" } })).toBe(2);
  });

  it("a newer version on one desk changes that desk's hol_same only; a replay on the other is not_newer", async () => {
    const newer = await call("PUT", "/api/v1/records/holiday/hol_same", RETAIL_KEY, { ...holidayFields("retail", 2), name: "retail port closure (confirmed)" });
    expect(newer).toMatchObject({ status: 200, body: { applied: true, record: { desk: "retail", sourceVersion: 2 } } });
    const replay = await call("PUT", "/api/v1/records/holiday/hol_same", FREIGHT_KEY, holidayFields("freight"));
    expect(replay).toMatchObject({ status: 200, body: { applied: false, reason: "not_newer", record: { desk: "freight", sourceVersion: 1 } } });
    expect(await prisma.holiday.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "hol_same" } } })).toMatchObject({ name: "freight port closure", sourceVersion: 1n });
    expect(await prisma.holiday.findUniqueOrThrow({ where: { desk_id: { desk: "retail", id: "hol_same" } } })).toMatchObject({ name: "retail port closure (confirmed)", sourceVersion: 2n });
  });

  it("another desk's holiday is the same 404 as a missing one, to a read and to a delete", async () => {
    const foreign = await call("GET", "/api/v1/records/holiday/hol_only_freight", RETAIL_KEY);
    const missing = await call("GET", "/api/v1/records/holiday/hol_nowhere", RETAIL_KEY);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body).replace("hol_only_freight", "X")).toBe(JSON.stringify(missing.body).replace("hol_nowhere", "X"));
    const del = (id: string) => call("DELETE", `/api/v1/records/holiday/${id}?sourceVersion=9&sourceUpdatedAt=${encodeURIComponent(at)}`, RETAIL_KEY);
    const deleteForeign = await del("hol_only_freight");
    const deleteMissing = await del("hol_nowhere");
    expect(deleteForeign.status).toBe(404);
    expect(JSON.stringify(deleteForeign.body).replace("hol_only_freight", "X")).toBe(JSON.stringify(deleteMissing.body).replace("hol_nowhere", "X"));
    expect(await prisma.holiday.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "hol_only_freight" } } })).toMatchObject({ deletedAt: null, sourceVersion: 1n });
  });

  it("the validator reads the run's desk's calendar only, by index: a window on its own holiday is refused, on the other desk's it passes", async () => {
    const target = resolveDatabaseUrl();
    for (const desk of DESKS) {
      const other: Desk = desk === "freight" ? "retail" : "freight";
      const { value: refused, statements } = await statementsOf(() => call("POST", `/api/v1/tasks/${task[desk].id}/runs`, AGENT_KEY[desk], move(HOLIDAY[desk], day(desk === "freight" ? 6 : 9))));
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.error.issues.filter((i: Json) => i.code === "window_on_holiday")).toMatchObject([{ path: "steps.0.args.window.from", message: `${HOLIDAY[desk]} is a holiday at ${PORT}; no deliveries that day` }]);
      expect(JSON.stringify(refused.body)).not.toContain(HOLIDAY[other]);
      // the calendar read: one statement, through the index (desk, destination, date)
      const reads = statements.filter((s) => /FROM [`"]\w+[`"]\.[`"]holiday[`"]/.test(s.sql));
      expect(reads.length, reads.map((s) => s.sql).join("\n")).toBe(1);
      const plan = await explainStatement(target, reads[0], { forbidSeqScan: true });
      expect(wholeTableReads(target.provider, plan, { sql: reads[0].sql }), plan).toEqual([]);
      expect(plan).toMatch(/holiday_desk_destination_date_idx/);

      const passed = await call("POST", `/api/v1/tasks/${task[desk].id}/runs`, AGENT_KEY[desk], move(HOLIDAY[other], day(desk === "freight" ? 9 : 6)));
      expect(passed.status, JSON.stringify(passed.body)).toBe(201);
      expect(JSON.stringify(passed.body)).not.toMatch(/window_on_holiday/);
    }
  });
});
