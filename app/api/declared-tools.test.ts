/**
 * Imported tools bound to declared record kinds (lib/tools/tool-bindings.ts, docs/api-extensions.md
 * "Tools bound to a declared kind"), through the route handlers, on this file's own database (SQLite,
 * or PostgreSQL with PLANDESK_TEST_DB=postgres): the retail desk declares `order`, orders arrive
 * through the records door, `refund_order` is imported from a real MCP server over stdio
 * (testing/retail-mcp-server.ts) with the admin's bindings, and the one validator then refuses what
 * it refuses for `issue_refund` — an over-refund, a refund on another account's order (for the
 * agent; an acknowledgement for a person, named in the diff), two refunds that together exceed the
 * order, across runs too (money in flight, also after the write until a synced version shows it), another desk's order ("not found on this desk") and a
 * day outside the order's window. Bad bindings are refused at import with their typed reasons and
 * nothing is imported.
 */
import { statementsOf } from "@/testing/statement-capture";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { digest } from "@/lib/plan/digest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { DEMO_RETAIL_AGENT_ID, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { storedSteps } from "@/lib/server/plans/stored-plan";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { explainStatement, readsNoTable, wholeTableReads } from "@/testing/query-plans";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { REFUND_ORDER_BINDINGS } from "../../testing/fixtures/bound-tools";
import { ORDER_ROLES, ORDER_SCHEMA } from "../../testing/fixtures/order-kind";
import { PUT as putKind } from "./admin/desks/[deskId]/record-kinds/[kind]/route";
import { POST as importRoute } from "./admin/tools/import/route";
import { GET as runRoute } from "./runs/[runId]/route";
import { POST as editRoute } from "./runs/[runId]/edits/route";
import { POST as approveRoute } from "./runs/[runId]/approvals/route";
import { PUT as putRecordRoute } from "./v1/records/[kind]/[id]/route";
import { POST as claimRoute } from "./v1/runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./v1/runs/[runId]/steps/[stepId]/outcome/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const RETAIL_KEY = "pd_test_retail_bound_tools_key";
const FREIGHT_KEY = "pd_test_freight_bound_tools_key";
let admin: string;
let retail: string;

const at = (v: number) => `2026-03-01T10:${String(v % 60).padStart(2, "0")}:00Z`;
const usd = (minor: number) => ({ minor, currency: "USD" });

function put(kind: string, id: string, body: unknown, key = RETAIL_KEY): Promise<Response> {
  return putRecordRoute(new Request(`${TEST_ORIGIN}/api/v1/records/${kind}/${id}`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), routeCtx({ kind, id }));
}
const order = (customerId: string, v: number, extra: Json = {}) => ({ customerId, refundableMinor: 4_000, currency: "USD", status: "open", shipFrom: "2026-04-01", shipTo: "2026-04-03", number: `O-${v}`, sourceVersion: v, sourceUpdatedAt: at(v), ...extra });

const importTools = (body: Json) => importRoute(apiRequest("POST", "/api/admin/tools/import", { cookie: admin, origin: TEST_ORIGIN }, body));
const fromShop = (extra: Json = {}) => ({ source: "mcp_server", server: "retail_shop", ...extra });
const agentRequest = (method: string, path: string, body?: unknown) =>
  new Request(`${TEST_ORIGIN}${path}`, { method, headers: { authorization: `Bearer ${DEMO_RETAIL_AGENT_KEY}`, "idempotency-key": nanoid(), "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
const mutate = (path: string, body: unknown) => apiRequest("POST", path, { cookie: retail, origin: TEST_ORIGIN }, body);

async function status(res: Response, expected: number): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body).slice(0, 1500)).toBe(expected);
  return body;
}

/** Submits `steps` as the retail agent to the task of ticket `ticketId` (another plan beside any live one). */
async function submit(ticketId: string, steps: unknown[]): Promise<Response> {
  const task = await prisma.task.findFirstOrThrow({ where: { ticketId } });
  return submitRoute(agentRequest("POST", `/api/v1/tasks/${task.id}/runs`, { taskRevision: task.revision, steps, addition: true }), routeCtx({ taskId: task.id }));
}
const refund = (id: string, orderId: string, minor: number) => ({ id, tool: "refund_order", args: { orderId, amount: usd(minor), reason: "Broken lamp" }, rationale: "The lamp arrived broken." });
const errorsOf = (body: Json) => (body.error?.issues ?? []).filter((i: Json) => i.severity === "error");

beforeAll(async () => {
  await prepareTestDatabase();
  admin = await signInCookie("admin@plandesk.test");
  retail = await signInCookie("retail@plandesk.test");
  process.env.PLANDESK_MCP_SERVERS = JSON.stringify({ retail_shop: { command: process.execPath, args: ["--import", "tsx", "testing/retail-mcp-server.ts"] } });
  await prisma.integrationKey.create({ data: { id: "ik_retail_bound", name: "Retail shop", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
  await prisma.integrationKey.create({ data: { id: "ik_freight_bound", name: "Freight ERP", hash: hashApiKey(FREIGHT_KEY), prefix: FREIGHT_KEY.slice(0, 8), desk: "freight" } });
  for (const desk of ["retail", "freight"]) {
    const res = await putKind(apiRequest("PUT", `/api/admin/desks/${desk}/record-kinds/order`, { cookie: admin, origin: TEST_ORIGIN }, { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "orders" }), routeCtx({ deskId: desk, kind: "order" }));
    await status(res, 200);
  }
  // Brightside's order (ticket 81001's account), Maple's (another account of the desk), and the freight desk's own order
  await status(await put("order", "o_118", order("acc_brightside", 1)), 200);
  await status(await put("order", "o_119", order("acc_brightside", 1)), 200);
  await status(await put("order", "o_900", order("acc_maple", 1)), 200);
  await status(await put("order", "o_777", order("acc_halvorsen", 1, { refundableMinor: 999_999 }), FREIGHT_KEY), 200);
  // the desk lets its agent call the shop's tools, its refund intents permit them, and its operator may approve and author refunds
  await prisma.agent.update({ where: { id: DEMO_RETAIL_AGENT_ID }, data: { allowedTools: [...((await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_RETAIL_AGENT_ID } })).allowedTools as string[]), "refund_order", "reschedule_order"] } });
  for (const intent of ["refund_request", "general_exception"]) {
    const row = await prisma.deskIntent.findUniqueOrThrow({ where: { desk_name: { desk: "retail", name: intent } } });
    await prisma.deskIntent.update({ where: { desk_name: { desk: "retail", name: intent } }, data: { permittedTools: [...(row.permittedTools as string[]), "refund_order", "reschedule_order"] } });
  }
  await prisma.grant.create({ data: { id: "grant_retail_refund_order", userId: "usr_retail", tool: "refund_order", canApprove: true, approveLimitMinor: 1_000_000, approveLimitCurrency: "USD", canAuthor: true, authorLimitMinor: 1_000_000, authorLimitCurrency: "USD" } });
}, 120_000);

describe("importing tools bound to declared kinds", () => {
  it("bad bindings are refused at import with their typed reasons and paths, and nothing is imported", async () => {
    const before = { versions: await prisma.toolCatalogVersion.count(), tools: await prisma.importedTool.count() };
    const cases: [Json, string, string][] = [
      [{ bindings: { refund_order: REFUND_ORDER_BINDINGS } }, "desk_required", "desk"],
      [{ desk: "retail", bindings: { refund_order: { orderId: { record: "subscription" } } } }, "unknown_kind", "inputSchema.properties.orderId.x-plandesk-record"],
      [{ desk: "retail", bindings: { refund_order: { ...REFUND_ORDER_BINDINGS, amount: { max: "order.status" } } } }, "unknown_role", "inputSchema.properties.amount.x-plandesk-max"],
      [{ desk: "retail", bindings: { refund_order: { ...REFUND_ORDER_BINDINGS, reason: { max: "order.available" } } } }, "not_money", "inputSchema.properties.reason.x-plandesk-max"],
      [{ desk: "retail", bindings: { refund_order: { amount: { max: "order.available" } } } }, "missing_record_argument", "inputSchema.properties.amount.x-plandesk-max"],
      [{ desk: "retail", bindings: { refund_order: { orderId: { record: "order", max: "order.available" } } } }, "contradictory_binding", "inputSchema.properties.orderId.x-plandesk-record"],
      [{ desk: "retail", bindings: { reschedule_order: { orderId: { record: "gift_card" } } } }, "contradictory_binding", "bindings.reschedule_order.orderId.record"],
      [{ desk: "retail", bindings: { refund_order: { amount_cents: { max: "order.available" } } } }, "unknown_argument", "bindings.refund_order.amount_cents"],
      [{ desk: "retail", bindings: { refund_pizza: REFUND_ORDER_BINDINGS } }, "unknown_argument", "bindings.refund_pizza"],
      // the freight desk declares order too, but a kind is checked on the desk named
      [{ desk: "demo-nowhere", bindings: { refund_order: REFUND_ORDER_BINDINGS } }, "unknown_kind", "inputSchema.properties.orderId.x-plandesk-record"],
    ];
    for (const [extra, code, path] of cases) {
      const body = await status(await importTools(fromShop(extra)), 422);
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.problems, JSON.stringify(extra)).toContainEqual({ name: expect.any(String), code, path, reason: expect.any(String) });
    }
    expect({ versions: await prisma.toolCatalogVersion.count(), tools: await prisma.importedTool.count() }).toEqual(before);
  }, 120_000); // every case is an import checked and refused in its own request: 4.5 s quiet, over 30 s at load 20

  it("refund_order is imported from the shop's MCP server over stdio with the admin's bindings; reschedule_order brings its own", async () => {
    const body = await status(await importTools(fromShop({ desk: "retail", bindings: { refund_order: REFUND_ORDER_BINDINGS } })), 201);
    expect(body).toMatchObject({ created: true, added: ["refund_order", "reschedule_order"], problems: [] });
    const stored = await prisma.importedTool.findFirstOrThrow({ where: { name: "refund_order" }, orderBy: { catalogVersion: "desc" } });
    expect((stored.inputSchema as Json).properties.amount).toMatchObject({ "x-plandesk-max": "order.available", "x-plandesk-effect": { lower: "order.available" } });
  });
});

describe("a kind keeps the roles a tool relies on", () => {
  it("a kind with no records yet cannot lose the balance an imported tool bounds money by", async () => {
    const voucher = { type: "object", properties: { holder: { type: "string" }, leftMinor: { type: "integer" }, currency: { type: "string", enum: ["USD"] } }, required: ["holder", "leftMinor", "currency"] };
    const saveVoucher = (roles: Json, baseVersion: number) => putKind(apiRequest("PUT", "/api/admin/desks/retail/record-kinds/voucher", { cookie: admin, origin: TEST_ORIGIN }, { schema: voucher, roles, baseVersion, note: "vouchers" }), routeCtx({ deskId: "retail", kind: "voucher" }));
    await status(await saveVoucher({ owner: "holder", balance: { available: "leftMinor", currency: "currency" } }, 0), 200);
    const spend = { name: "spend_voucher", inputSchema: { type: "object", properties: { voucherId: { type: "string", "x-plandesk-record": "voucher" }, amount: { type: "object", properties: { minor: { type: "integer" }, currency: { type: "string" } }, required: ["minor", "currency"], "x-plandesk-max": "voucher.available" } }, required: ["voucherId", "amount"] } };
    await status(await importTools({ source: "mcp_tools_list", label: "vouchers", payload: { tools: [spend] }, desk: "retail" }), 201);
    const refused = await status(await saveVoucher({ owner: "holder" }, 1), 422);
    expect(refused.error.issues).toEqual([{ code: "role_in_use", path: "roles.balance", message: "spend_voucher (an imported tool) binds amount to voucher's balance; a kind a tool relies on keeps that role." }]);
    expect((await prisma.recordKind.findUniqueOrThrow({ where: { desk_kind: { desk: "retail", kind: "voucher" } } })).version).toBe(1);
  });
});

describe("the validator checks a bound tool as it checks issue_refund", () => {
  it("an over-refund is refused: more than the order's available amount", async () => {
    const body = await status(await submit("81001", [refund("st_refund", "o_118", 4_001)]), 422);
    expect(errorsOf(body)).toContainEqual(expect.objectContaining({ code: "amount_exceeds_balance", path: "steps.0.args.amount.minor", message: "Refund order of $40.01 is more than the available amount of order o_118 ($40.00)" }));
  });

  it("another desk's order is not found on this desk, and nothing of it shows", async () => {
    const body = await status(await submit("81001", [refund("st_refund", "o_777", 1_000)]), 422);
    expect(errorsOf(body)).toContainEqual(expect.objectContaining({ code: "unknown_id", path: "steps.0.args.orderId", message: 'Order "o_777" is not found on this desk' }));
    expect(JSON.stringify(body)).not.toMatch(/Halvorsen|acc_halvorsen|9,999|999999/);
  });

  it("a refund on another account's order: refused for the agent", async () => {
    const scoped = await status(await submit("81001", [refund("st_refund", "o_900", 1_000)]), 422);
    expect(errorsOf(scoped)).toContainEqual(expect.objectContaining({ code: "outside_task_accounts", path: "steps.0.args.orderId" }));
    // without a stated scope (ticket 81003, Corner Cycle Shop) the agent's own plan may not write beyond the ticket's account either
    const unscoped = await status(await submit("81003", [refund("st_refund", "o_118", 1_000)]), 422);
    const issue = errorsOf(unscoped).find((i: Json) => i.code === "outside_task_accounts");
    expect(issue).toMatchObject({ path: "steps.0.args.orderId", details: { accountId: "acc_brightside", defaultScope: true } });
    expect(issue.message).toContain("Brightside Home Goods");
  });

  it("a refund on another account's order: an acknowledgement for a person, named in the diff", async () => {
    const runBody = await status(await submit("81003", [{ id: "st_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Customer asks for a copy." } }]), 201);
    const runId = runBody.run.id;
    const steps = [{ id: "st_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Customer asks for a copy." } }, { id: "st_refund", tool: "refund_order", args: { orderId: "o_118", amount: usd(1_500), reason: "Goodwill" } }];
    const edited = await status(await editRoute(mutate(`/api/runs/${runId}/edits`, { baseVersion: 1, steps }), routeCtx({ runId })), 201);
    // the person's step is accepted; the diff's annotation names the order, its account and the ticket's, and asks for an acknowledgement
    const added = (edited.planVersion.steps as Json[]).find((s) => s.tool === "refund_order")!;
    expect(edited.diff.annotations).toContainEqual({ stepId: added.id, severity: "warning", code: "cross_account_target", path: "args.orderId", message: "order o_118 belongs to Brightside Home Goods, not to Corner Cycle Shop (the account on ticket #81003)" });
    const unacknowledged = await approveRoute(mutate(`/api/runs/${runId}/approvals`, { planVersion: 2, stepIds: "all", idempotencyKey: nanoid(), acknowledgedWarnings: [] }), routeCtx({ runId }));
    expect(unacknowledged.status).not.toBe(201);
    expect(await prisma.approval.count({ where: { runId, planVersion: 2, stepId: added.id } })).toBe(0);
    // the effects preview names the order, its title and whose it is
    const details = await status(await runRoute(apiRequest("GET", `/api/runs/${runId}`, { cookie: retail }), routeCtx({ runId })), 200);
    const effect = (details.effects as Json[]).find((e) => e.stepId === added.id);
    expect(effect).toMatchObject({ status: "previewed", changes: [{ kind: "record_balance", recordKind: "order", recordId: "o_118", title: "O-1", before: usd(4_000), after: usd(2_500), otherAccount: "Brightside Home Goods" }] });
  });

  it("two refunds that together exceed the order are refused, in one plan and across runs (money in flight)", async () => {
    const together = await status(await submit("81001", [refund("st_a", "o_119", 2_500), refund("st_b", "o_119", 2_500)]), 422);
    expect(errorsOf(together)).toContainEqual(expect.objectContaining({ code: "amounts_exceed_balance", stepId: "st_b", message: "Together the steps of this plan take $50.00 from order o_119, more than its available amount of $40.00" }));

    // run A's refund of $30.00 is approved: it holds that money on o_119
    const a = (await status(await submit("81001", [refund("st_refund", "o_119", 3_000)]), 201)).run;
    await status(await approveRoute(mutate(`/api/runs/${a.id}/approvals`, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid(), acknowledgedWarnings: [] }), routeCtx({ runId: a.id })), 201);
    const held = await prisma.approval.findFirstOrThrow({ where: { runId: a.id, stepId: "st_refund" } });
    expect(held).toMatchObject({ targetKind: "order", targetId: "o_119", amountMinor: 3_000, amountCurrency: "USD", state: "active", recordVersions: { "order:o_119": 1 } });

    // run B's $20.00 fits the order alone, not what run A leaves of it
    const b = await status(await submit("81001", [refund("st_refund", "o_119", 2_000)]), 422);
    const issue = errorsOf(b).find((i: Json) => i.code === "amount_exceeds_available");
    expect(issue.message).toBe(`Refund order of $20.00 is more than what is left on order o_119: available $40.00 − $30.00 approved in run ${a.id} = $10.00 available`);
    // $10.00 still fits, with the warning that names run A
    const c = await status(await submit("81001", [refund("st_refund", "o_119", 1_000)]), 201);
    const stored = await prisma.planVersion.findFirstOrThrow({ where: { runId: c.run.id } });
    expect((stored.validation as Json).issues).toContainEqual(expect.objectContaining({ code: "money_in_flight", severity: "warning", message: `Other runs draw on order o_119 too: available $40.00 − $30.00 approved in run ${a.id} = $10.00 available` }));

    // the executor's claim of run A holds the money inside its transaction; the claim reads the order by its key
    const step = storedSteps((await prisma.planVersion.findFirstOrThrow({ where: { runId: a.id } })).steps)[0];
    const task = await prisma.task.findFirstOrThrow({ where: { ticketId: "81001" } });
    const { value: claim, statements } = await statementsOf(() => claimRoute(agentRequest("POST", `/api/v1/runs/${a.id}/steps/st_refund/claim`, { digest: digest(step), taskRevision: task.revision }), routeCtx({ runId: a.id, stepId: "st_refund" })));
    const claimed = await status(claim, 200);
    const target = resolveDatabaseUrl();
    const onRecords = statements.filter((s) => /desk_record/.test(s.sql) && !readsNoTable(s.sql));
    expect(onRecords.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const s of onRecords) {
      const plan = await explainStatement(target, s, { forbidSeqScan: true });
      if (plan.startsWith("(not explained")) found.push(`${plan} — ${s.sql.slice(0, 200)}`);
      for (const read of wholeTableReads(target.provider, plan, { sql: s.sql })) found.push(`${read} — ${s.sql.replace(/\s+/g, " ").slice(0, 200)}`);
    }
    expect(found).toEqual([]);

    // the refund is written at the shop (its order now at version 2): the money keeps holding until a synced version shows it
    await status(await outcomeRoute(agentRequest("POST", `/api/v1/runs/${a.id}/steps/st_refund/outcome`, { token: claimed.claim.token, status: "succeeded", targetVersions: { "order:o_119": 2 } }), routeCtx({ runId: a.id, stepId: "st_refund" })), 200);
    expect(await prisma.approval.findFirstOrThrow({ where: { runId: a.id, stepId: "st_refund" } })).toMatchObject({ state: "consumed", holdOpen: true, holdUntilVersion: 2n });
    const whileWritten = errorsOf(await status(await submit("81001", [refund("st_refund", "o_119", 1_500)]), 422)).find((i: Json) => i.code === "amount_exceeds_available");
    expect(whileWritten.message).toContain(`$30.00 written, not yet in the synced balance in run ${a.id}`);
    // the shop's next version of the order reflects it: the hold ends, and the balance alone bounds the refund
    await status(await put("order", "o_119", order("acc_brightside", 2, { refundableMinor: 1_000 })), 200);
    expect(await prisma.approval.findFirstOrThrow({ where: { runId: a.id, stepId: "st_refund" } })).toMatchObject({ holdOpen: false });
    const afterSync = errorsOf(await status(await submit("81001", [refund("st_refund", "o_119", 1_500)]), 422));
    expect(afterSync.map((i: Json) => i.code)).toEqual(["amount_exceeds_balance"]);
    expect(afterSync[0].message).toBe("Refund order of $15.00 is more than the available amount of order o_119 ($10.00)");
  });

  it("a day outside the order's window is refused (reschedule_order binds it in its own schema)", async () => {
    const body = await status(await submit("81001", [{ id: "st_move", tool: "reschedule_order", args: { orderId: "o_118", shipOn: "2026-04-09" }, rationale: "Customer is away." }]), 422);
    expect(errorsOf(body)).toContainEqual(expect.objectContaining({ code: "outside_record_window", path: "steps.0.args.shipOn", message: "2026-04-09 is outside the window of order o_118 (2026-04-01 – 2026-04-03)" }));
  });
});
