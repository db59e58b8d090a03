/**
 * A desk made from scratch, not the demo, on SQLite and on PostgreSQL: an EMPTY database outside demo mode (PLANDESK_DEMO=0, the
 * documented `db:migrate`, `db:seed`, `admin:create`), one instance with a real MCP server configured
 * over stdio (testing/retail-mcp-server.ts). The admin creates the desk, declares its `order` kind
 * (`PUT /api/admin/desks/{desk}/record-kinds/order`), imports `refund_order` from the shop's server in
 * Admin → Tool catalog with the bindings its schema lacks, and sets up the intent catalog, an agent and
 * an operator; the shop's accounts and orders arrive through the records door with the desk's
 * integration key, and the ticketing integration opens the task.
 *
 * Then the one validator treats the imported tool as it treats `issue_refund`: the agent's
 * over-refund, its refund on another account's order and its two refunds that together exceed the
 * order are refused; in the browser, the operator's edit meets the same refusals in the edit form,
 * while a refund on another account's order added by a person is accepted with the diff naming the
 * order and both accounts, and it can be approved only with the acknowledgement. Screenshots at
 * 1366 and 390 px.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { freePort, startAppInstance, stopAppInstance, type AppInstance } from "../testing/app-instances";
import { dropPgTestDatabase, freshTestDatabaseUrl, recreatePgTestDatabase } from "../testing/test-databases";
import { REFUND_ORDER_BINDINGS } from "../testing/fixtures/bound-tools";
import { ORDER_ROLES, ORDER_SCHEMA } from "../testing/fixtures/order-kind";
import { fillWhy } from "./helpers";

const ADMIN = { email: "it-admin@lumen.example", password: "correct horse battery staple" };
const OPERATOR = { email: "rosa@lumen.example", password: "rosa-long-passphrase" };
const DESK = "lumen-shop";
const DAY = 24 * 3600 * 1000;
const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

type Json = Record<string, any>;
type Answer = { status: number; body: Json };

/** Runs an npm script of the checkout as README shows it, with `env` and optional stdin. */
function npmRun(script: string, args: string[], env: Record<string, string>, input?: string): string {
  const r = spawnSync("npm", ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])], { cwd: process.cwd(), env: { ...process.env, ...env, NEXT_TELEMETRY_DISABLED: "1" }, input, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm run ${script} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

/** Fails with the widest offenders when the page scrolls sideways (as e2e/narrow.spec.ts does). */
async function expectNoOverflow(page: Page, what: string) {
  const report = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll<HTMLElement>("body *")]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter(({ el, right }) => right > vw + 1 && el.getClientRects().length > 0)
      .filter(({ el }) => !el.closest("[data-scrolls-inside]"))
      .slice(0, 8)
      .map(({ el, right }) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${String(el.className).slice(0, 60)} "${(el.textContent ?? "").slice(0, 40)}" → ${Math.round(right)} px`);
    return { scrollWidth: document.documentElement.scrollWidth, vw, wide };
  });
  expect(report.scrollWidth, `${what} is ${report.scrollWidth} px wide at ${report.vw} px:\n${report.wide.join("\n")}`).toBeLessThanOrEqual(report.vw);
}

for (const dialect of ["sqlite", "postgresql"] as const) test.describe(`a desk from scratch on ${dialect}: declared orders and an imported refund_order get the refund checks`, () => {
  test.describe.configure({ mode: "serial", timeout: 300_000 });
  let dir = "";
  let databaseUrl = "";
  let app: AppInstance;
  let integration: Record<string, string> = {};
  let agent: Record<string, string> = {};
  let adminCookie = "";
  let task: { id: string; revision: number };

  async function call(method: string, p: string, headers: Record<string, string>, body?: unknown, contentType = "application/json"): Promise<Answer> {
    const res = await fetch(`${app.origin}${p}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": contentType }), origin: app.publicOrigin, ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {} };
  }
  async function ok(answer: Promise<Answer>, status = 200): Promise<Json> {
    const a = await answer;
    expect(a.status, JSON.stringify(a.body).slice(0, 1500)).toBe(status);
    return a.body;
  }
  async function signInPage(browser: Browser, who: { email: string; password: string }, width = 1366): Promise<Page> {
    const ctx = await browser.newContext({ baseURL: app.origin, viewport: { width, height: 900 }, storageState: { cookies: [], origins: [] } });
    const page = await ctx.newPage();
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(who.email);
    await page.getByLabel("Password").fill(who.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
    return page;
  }
  const refund = (id: string, orderId: string, minor: number) => ({ id, tool: "refund_order", args: { orderId, amount: { minor, currency: "USD" }, reason: "The lamp arrived broken" }, rationale: "The customer sent photos of the broken lamp." });
  const submit = (steps: unknown[]) => call("POST", `/api/v1/tasks/${task.id}/runs`, agent, { taskRevision: task.revision, steps, addition: true });
  const errorsOf = (body: Json) => ((body.error?.issues ?? []) as Json[]).filter((i) => i.severity === "error");

  test.beforeAll(async () => {
    test.setTimeout(300_000); // migrate, seed, the first admin and a production instance, on a busy machine
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-declared-"));
    if (dialect === "postgresql") {
      databaseUrl = freshTestDatabaseUrl({ ...process.env, PLANDESK_TEST_DB: "postgres" });
      await recreatePgTestDatabase(databaseUrl);
    } else databaseUrl = `file:${path.join(dir, "plandesk.db")}`;
    const env = { DATABASE_URL: databaseUrl, PLANDESK_DEMO: "0" };
    npmRun("db:migrate", [], env);
    expect(npmRun("db:seed", [], env)).not.toMatch(/demo desk seeded/i);
    npmRun("admin:create", ["--email", ADMIN.email, "--name", "IT Admin"], env, `${ADMIN.password}\n`);
    const port = await freePort();
    app = await startAppInstance({
      databaseUrl,
      port,
      publicOrigin: `http://127.0.0.1:${port}`,
      env: {
        PLANDESK_DEMO: "0",
        // the shop's real MCP server, started over stdio when the admin imports from it
        PLANDESK_MCP_SERVERS: JSON.stringify({ lumen_shop: { command: process.execPath, args: ["--import", "tsx", "testing/retail-mcp-server.ts"] } }),
      },
    });
  });

  test.afterAll(async () => {
    if (app) await stopAppInstance(app);
    if (dialect === "postgresql") await dropPgTestDatabase(databaseUrl);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the admin makes the desk, declares orders and imports refund_order with its bindings; records arrive through the door", async ({ browser }) => {
    const adminPage = await signInPage(browser, ADMIN);
    adminCookie = (await adminPage.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const admin = { cookie: adminCookie };
    await ok(call("POST", "/api/admin/desks", admin, { id: DESK, name: "Lumen Shop" }), 201);
    const key = await ok(call("POST", "/api/admin/integration-keys", admin, { name: "Shop backend + helpdesk", desk: DESK }), 201);
    integration = { authorization: `Bearer ${key.key as string}` };
    const declared = await ok(call("PUT", `/api/admin/desks/${DESK}/record-kinds/order`, admin, { schema: ORDER_SCHEMA, roles: ORDER_ROLES, baseVersion: 0, note: "The shop's orders: refundable amount, status, shipping window" }));
    expect(declared.kind).toMatchObject({ desk: DESK, kind: "order", version: 1 });

    // Admin → Tool catalog: import from the configured MCP server, binding refund_order's arguments to the desk's orders.
    await adminPage.goto("/admin/tools");
    await expect(async () => {
      await adminPage.getByLabel("From", { exact: true }).selectOption("mcp_server");
      await expect(adminPage.getByLabel("Server")).toHaveValue("lumen_shop", { timeout: 1000 });
    }).toPass();
    await adminPage.getByText("Bind arguments to a desk's record kinds (optional)").click();
    await adminPage.getByLabel("Desk", { exact: true }).fill(DESK);
    await adminPage.getByLabel("Bindings").fill(JSON.stringify({ refund_order: REFUND_ORDER_BINDINGS }));
    await adminPage.getByRole("button", { name: "Import" }).click();
    await expect(adminPage.getByRole("status").filter({ hasText: "added refund_order, reschedule_order" })).toBeVisible();

    // The desk's intents, its agent and its operator (who may approve and author both tools).
    const intents = await ok(call("GET", `/api/admin/desks/${DESK}/intents`, admin));
    await ok(
      call("PUT", `/api/admin/desks/${DESK}/intents`, admin, {
        baseDigest: intents.digest,
        intents: [{ name: "refund_request", label: "Refund request", description: "The customer asks for money back on an order.", permittedTools: ["add_ticket_note", "refund_order"] }],
        note: "The shop's first intent",
      }),
    );
    const made = await ok(call("POST", "/api/admin/agents", admin, { name: "Shop refund agent", desk: DESK, allowedTools: ["add_ticket_note", "refund_order"] }), 201);
    const agentKey = await ok(call("POST", `/api/admin/agents/${made.agent.id}/keys`, admin, {}), 201);
    agent = { authorization: `Bearer ${agentKey.key as string}` };
    const user = await ok(call("POST", "/api/admin/users", admin, { email: OPERATOR.email, name: "Rosa Operator", role: "operator", password: OPERATOR.password, desk: DESK }), 201);
    for (const tool of ["add_ticket_note", "refund_order"]) {
      await ok(call("PUT", `/api/admin/users/${user.user.id}/grants/${tool}`, admin, { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null }));
    }

    // The shop pushes its accounts and orders through the records door (one NDJSON batch, the desk's key).
    const at = new Date(Date.now() - 60_000).toISOString();
    const order = (id: string, customerId: string, number: string) => ({ kind: "order", id, customerId, refundableMinor: 4_000, currency: "USD", status: "open", shipFrom: isoDay(3), shipTo: isoDay(5), number, sourceVersion: 1, sourceUpdatedAt: at });
    const lines = [
      { kind: "account", id: "cus_lumen", name: "Lumen Lamps Ltd", sourceVersion: 1, sourceUpdatedAt: at },
      { kind: "account", id: "cus_oak", name: "Oakridge Outfitters", sourceVersion: 1, sourceUpdatedAt: at },
      order("ord_1001", "cus_lumen", "LL-1001"),
      order("ord_1002", "cus_lumen", "LL-1002"),
      order("ord_2001", "cus_oak", "OO-2001"),
    ];
    const batch = await ok(call("POST", "/api/v1/records/batch", integration, lines.map((l) => JSON.stringify(l)).join("\n") + "\n", "application/x-ndjson"));
    expect(batch).toMatchObject({ lines: 5, applied: 5, errors: [] });
    const stored = await ok(call("GET", "/api/v1/records/order/ord_1001", integration));
    expect(stored.record).toMatchObject({ kind: "order", id: "ord_1001", desk: DESK, kindVersion: 1, sourceVersion: 1 });

    const opened = await ok(
      call("POST", "/api/v1/tasks", integration, {
        ticketId: "LL-501",
        accountId: "cus_lumen",
        subject: "Broken lamp on order LL-1001",
        parts: [{ source: "customer_message", text: "The lamp of order LL-1001 arrived broken. Please refund it." }],
        contract: { intent: "refund_request", constraints: {} },
      }),
      201,
    );
    task = opened.task;
    await adminPage.context().close();
  });

  test("the agent's over-refund, its refund on another account's order and its two refunds that together exceed the order are refused", async () => {
    const over = await ok(submit([refund("r1", "ord_1001", 4_001)]), 422);
    expect(errorsOf(over)).toContainEqual(expect.objectContaining({ code: "amount_exceeds_balance", message: "Refund order of $40.01 is more than the available amount of order ord_1001 ($40.00)" }));

    const other = await ok(submit([refund("r1", "ord_2001", 1_000)]), 422);
    const outside = errorsOf(other).find((i) => i.code === "outside_task_accounts");
    expect(outside, JSON.stringify(other)).toMatchObject({ path: "steps.0.args.orderId" });
    expect(outside!.message).toContain("Oakridge Outfitters");

    const together = await ok(submit([refund("r1", "ord_1002", 2_500), refund("r2", "ord_1002", 2_500)]), 422);
    expect(errorsOf(together)).toContainEqual(
      expect.objectContaining({ code: "amounts_exceed_balance", stepId: "r2", message: "Together the steps of this plan take $50.00 from order ord_1002, more than its available amount of $40.00" }),
    );
  });

  test("in the browser the operator's edit meets the same refusals; a person's refund on another account's order needs the acknowledgement, the diff names the order and its account", async ({ browser }, testInfo) => {
    const submitted = await ok(submit([{ id: "note", tool: "add_ticket_note", args: { ticketId: "LL-501", note: "Refund for the broken lamp proposed." } }, refund("r1", "ord_1001", 1_500)]), 201);
    const runId = submitted.run.id as string;
    const page = await signInPage(browser, OPERATOR);
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("#LL-501");
    await expect(page.getByTestId("run-status")).toHaveText("Pending review");

    // 1. An over-refund in the edit form: refused, the form stays correctable.
    await page.getByRole("button", { name: "Edit plan" }).click();
    const minor = page.locator('[id="steps.1.args.amount.minor"]');
    await minor.fill("4001");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText("Refund order of $40.01 is more than the available amount of order ord_1001 ($40.00)").first()).toBeVisible();

    // 2. Two refunds that together exceed the order: refused.
    await minor.fill("1500");
    await page.getByLabel("Add step").selectOption("refund_order");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    // The order field is a record picker, as an invoice field is: the ticket account's orders are offered with their balance...
    const orderField = page.locator('[id="steps.2.args.orderId"]');
    const offered = () => orderField.evaluate((el) => [...((el as HTMLInputElement).list?.options ?? [])].map((o) => `${o.value} = ${o.label}`));
    await expect.poll(offered).toEqual(["ord_1001 = ord_1001 · Lumen Lamps Ltd · LL-1001 · open · $40.00 available", "ord_1002 = ord_1002 · Lumen Lamps Ltd · LL-1002 · open · $40.00 available"]);
    // ...and, as the operator types, the desk's orders found by id prefix, another account's named as such
    await orderField.fill("ord_2");
    await expect.poll(offered).toContain("ord_2001 = ord_2001 · Oakridge Outfitters · OO-2001 · open · $40.00 available");
    await orderField.fill("ord_2001");
    await expect(page.getByTestId("record-other-account")).toHaveText("ord_2001 is Oakridge Outfitters’s, not this ticket’s customer: whoever approves the step must acknowledge it.");
    await orderField.fill("ord_1001");
    await page.locator('[id="steps.2.args.amount.minor"]').fill("3000");
    await page.locator('[id="steps.2.args.amount.currency"]').selectOption("USD");
    await page.locator('[id="steps.2.args.reason"]').fill("The shade is broken too");
    await fillWhy(page, 2);
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText("Together the steps of this plan take $45.00 from order ord_1001, more than its available amount of $40.00").first()).toBeVisible();

    // 3. The added refund on another account's order: accepted for a person, with the acknowledgement the diff asks for.
    await page.locator('[id="steps.2.args.orderId"]').fill("ord_2001");
    await page.getByRole("button", { name: "Save edit" }).click();
    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review).toContainText("order ord_2001 belongs to Oakridge Outfitters, not to Lumen Lamps Ltd (the account on ticket #LL-501)");
    await expect(review.getByText("step added")).toBeVisible();
    await expect(review.getByRole("listitem", { name: "Step 3 added" })).toContainText("$30.00"); // money, in the words issue_refund's step has
    await page.screenshot({ path: testInfo.outputPath(`declared-order-diff-1366-${dialect}.png`), fullPage: true });

    const approve = page.getByTestId("approve-all");
    await expect(approve).toBeDisabled();
    const acks = page.getByRole("checkbox", { name: /I acknowledge/ });
    await expect(acks.first()).toBeVisible();
    for (const box of await acks.all()) await box.check();
    await expect(approve).toBeEnabled();

    // The same page on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(review).toContainText("order ord_2001 belongs to Oakridge Outfitters");
    await expectNoOverflow(page, "the run page with the edit's review at 390 px");
    await page.screenshot({ path: testInfo.outputPath(`declared-order-diff-390-${dialect}.png`), fullPage: true });
    await page.setViewportSize({ width: 1366, height: 900 });

    await approve.click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    const approved = await ok(call("GET", `/api/v1/runs/${runId}`, agent));
    expect(approved.run.status).toBe("approved");
    await page.context().close();
  });
});
