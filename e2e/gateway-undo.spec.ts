import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test, expect, request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { startHttpStagedCarrier } from "../testing/http-carrier";
import { DEMO_KEYS, STORAGE, type Role } from "./helpers";

/*
 * "Undo the written steps" on the run page (docs/design.md "Staged runs"), in real Chromium against
 * the production build: an admin registers a carrier over Streamable HTTP whose `book_collection`
 * declares the compensating `cancel_collection` (testing/staged-carrier-mcp-server.ts), gives a new
 * agent both tools and lets the senior approve them. The agent books two collections through
 * Plandesk's MCP gateway as one plan; the senior approves; the running server's executor books the
 * first, and the carrier finds the second parcel already collected (its stop condition met): the
 * run stops part-way with one written step. On the run page an admin sees the offer and why they
 * cannot ask; the operator sees the compensating call with its arguments, confirms it in a dialog
 * that lists it, and follows the undo plan: waiting for approval, then — once the senior approved
 * it — undone, with the carrier's call log showing the compensating call exactly once.
 * Screenshots at 1366 and 390 px; axe on the page with the offer, the dialog and the outcome.
 */

test.describe.configure({ mode: "serial" });

type Json = Record<string, any>;
const stamp = Date.now();
const NAME = `collections-${stamp}`;
const BOOKED = { shipmentId: `sh_u${stamp % 100000}a`, date: "2027-05-03" };
const COLLECTED = { shipmentId: `sh_u${stamp % 100000}b`, date: "2027-05-04" };

let workDir = "";
let carrier: ChildProcess | undefined;
let baseURL = "";

/** An API context signed in as `role` (its stored session), sending the console's origin. */
const asRole = (role: Role) => playwrightRequest.newContext({ baseURL, storageState: STORAGE[role], extraHTTPHeaders: { origin: baseURL } });

/** Every tools/call the carrier received: `{tool, arguments, _meta}`. */
const carrierCalls = (): Json[] => {
  const file = path.join(workDir, "calls.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json) : [];
};

/** One tools/call to Plandesk's MCP endpoint with `agentKey`: the JSON-RPC answer's result. */
async function callTool(agent: APIRequestContext, agentKey: string, params: Json): Promise<Json> {
  const res = await agent.post("/api/mcp", {
    headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/call", params },
  });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as Json).result as Json;
}

/** The agent's view of run `runId`'s status, polled until it is one of `statuses`. */
async function waitForRun(agent: APIRequestContext, agentKey: string, runId: string, statuses: string[]): Promise<string> {
  let status = "";
  await expect
    .poll(
      async () => {
        status = ((await (await agent.get(`/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${agentKey}` } })).json()).run as Json).status;
        return statuses.includes(status);
      },
      { timeout: 60_000, intervals: [250] },
    )
    .toBe(true);
  return status;
}

test.beforeAll(async ({}, testInfo) => {
  baseURL = testInfo.project.use.baseURL!;
  workDir = mkdtempSync(path.join(tmpdir(), "plandesk-e2e-undo-"));
  const started = await startHttpStagedCarrier(workDir, ["--collected", COLLECTED.shipmentId]);
  carrier = started.process;

  const admin = await asRole("admin");
  try {
    const registered = await admin.post("/api/admin/desks/freight/mcp-servers", { data: { transport: "http", name: NAME, url: started.url } });
    expect(registered.status(), await registered.text()).toBe(201);
    const serverId = ((await registered.json()).server as Json).id as string;
    const imported = await admin.post(`/api/admin/desks/freight/mcp-servers/${serverId}/import`);
    expect(imported.status(), await imported.text()).toBe(201);
    for (const tool of ["book_collection", "cancel_collection"]) {
      const grant = await admin.put(`/api/admin/users/usr_senior/grants/${tool}`, { data: { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null } });
      expect(grant.status(), await grant.text()).toBe(200);
    }
    // delivery exceptions permit both tools (the catalog is one document: read it, save on its digest, again if another spec saved first)
    await expect
      .poll(
        async () => {
          const catalog = (await (await admin.get("/api/admin/desks/freight/intents")).json()) as Json;
          const intents = (catalog.intents as Json[]).map((i) =>
            i.name === "delivery_exception" ? { ...i, permittedTools: [...new Set([...(i.permittedTools as string[]), "book_collection", "cancel_collection"])] } : i,
          );
          const saved = await admin.put("/api/admin/desks/freight/intents", { data: { baseDigest: catalog.digest, intents, note: "e2e: collections and their undo" } });
          expect([200, 409], await saved.text()).toContain(saved.status());
          return saved.status();
        },
        { timeout: 30_000 },
      )
      .toBe(200);
  } finally {
    await admin.dispose();
  }
});

test.afterAll(async () => {
  if (carrier && carrier.exitCode === null) {
    const exited = new Promise((r) => carrier!.once("exit", r));
    carrier.kill("SIGTERM");
    await exited;
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test("after a partial stop, the operator undoes the written step from the run page: confirmed with its call and arguments, reviewed, called once", async ({ browser }) => {
  const admin = await asRole("admin");
  const senior = await asRole("senior");
  const agent = await playwrightRequest.newContext({ baseURL });
  try {
    // an agent of its own with both tools, and a task of its own (a delivery exception on ticket #74991's account)
    const created = await admin.post("/api/admin/agents", { data: { name: `Collections agent ${stamp}`, allowedTools: ["book_collection", "cancel_collection"] } });
    expect(created.status(), await created.text()).toBe(201);
    const agentId = ((await created.json()).agent as Json).id as string;
    const keyRes = await admin.post(`/api/admin/agents/${agentId}/keys`);
    expect(keyRes.status(), await keyRes.text()).toBe(201);
    const agentKey = (await keyRes.json()).key as string;
    const reference = await agent.get("/api/v1/tasks/task_74991", { headers: DEMO_KEYS.agent });
    const accountId = ((await reference.json()).task as Json).accountId as string;
    const opened = await agent.post("/api/v1/tasks", {
      headers: DEMO_KEYS.integration,
      data: { ticketId: `e2e-undo-${stamp}`, accountId, subject: "Collect two parcels", parts: [{ source: "system", text: "Collect both parcels for return." }], contract: { intent: "delivery_exception", constraints: {} } },
    });
    expect(opened.status(), await opened.text()).toBe(201);
    const taskId = ((await opened.json()).task as Json).id as string;

    // two collections held as one plan; approved; the first is booked, the second's parcel was collected meanwhile: the run stops
    const first = await callTool(agent, agentKey, { name: "book_collection", arguments: BOOKED, _meta: { "plandesk/taskId": taskId } });
    expect(first.structuredContent, JSON.stringify(first)).toMatchObject({ status: "pending" });
    const second = await callTool(agent, agentKey, { name: "book_collection", arguments: COLLECTED, _meta: { "plandesk/taskId": taskId, "plandesk/runId": first.structuredContent.runId } });
    expect(second.structuredContent, JSON.stringify(second)).toMatchObject({ status: "pending" });
    const runId = second.structuredContent.runId as string;
    const approved = await senior.post(`/api/runs/${runId}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-undo-${runId}` } });
    expect(approved.status(), await approved.text()).toBe(201);
    expect(await waitForRun(agent, agentKey, runId, ["stopped", "failed", "completed"])).toBe("stopped");
    expect(carrierCalls().map((c) => [c.tool, c.arguments])).toEqual([
      ["book_collection", BOOKED],
      ["book_collection", COLLECTED],
    ]);
    const callLine = `cancel_collection(shipmentId: "${BOOKED.shipmentId}", date: "${BOOKED.date}")`;

    // an admin sees the offer, and why they cannot ask
    const adminPage = await (await browser.newContext({ storageState: STORAGE.admin })).newPage();
    await adminPage.goto(`/runs/${runId}`);
    const adminOffer = adminPage.getByRole("region", { name: "Undo the written steps" });
    await expect(adminOffer).toContainText(callLine);
    await expect(adminOffer.getByRole("button", { name: "Undo the written steps…" })).toBeDisabled();
    await expect(adminOffer.getByTestId("undo-why-not")).toHaveText("Only operators and supervisors ask for an undo; you are signed in as admin and can look, not ask.");
    await adminPage.context().close();

    // the operator: the offer lists the one compensating call with the arguments the written step was approved with
    const context = await browser.newContext({ storageState: STORAGE.operator, viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await page.goto(`/runs/${runId}`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await expect(page.getByTestId("run-status")).toHaveText("Stopped");
    const offer = page.getByRole("region", { name: "Undo the written steps" });
    await expect(offer).toContainText("This run stopped part-way after writing one step");
    await expect(offer.getByRole("list", { name: "Compensating calls" }).getByRole("listitem")).toHaveCount(1);
    await expect(offer).toContainText(callLine);
    expect((await new AxeBuilder({ page }).include("main").analyze()).violations).toEqual([]);
    await offer.screenshot({ path: "test-results/gateway-undo/offer-1366.png" });

    // the confirm step lists exactly the call that will be proposed; Cancel proposes nothing
    await offer.getByRole("button", { name: "Undo the written steps…" }).click();
    const dialog = page.getByRole("dialog", { name: "Propose undoing the written step?" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("confirm-undo-calls").getByRole("listitem")).toHaveCount(1);
    await expect(dialog.getByTestId("confirm-undo-calls")).toContainText(callLine);
    await expect(dialog.getByTestId("confirm-undo-calls")).toContainText(/undoes step 1 · .*\(book_collection\)/);
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.screenshot({ path: "test-results/gateway-undo/confirm-1366.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: "test-results/gateway-undo/confirm-390.png" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(offer.getByRole("button", { name: "Undo the written steps…" })).toBeFocused();
    await offer.screenshot({ path: "test-results/gateway-undo/offer-390.png" });
    await page.setViewportSize({ width: 1366, height: 900 });

    // confirmed: the undo plan is proposed and waits for a person; nothing reaches the carrier yet
    await offer.getByRole("button", { name: "Undo the written steps…" }).click();
    await dialog.getByRole("button", { name: "Propose the undo plan" }).click();
    const progress = offer.getByTestId("undo-progress");
    await expect(progress.getByTestId("undo-run-status")).toHaveText("Pending review");
    await expect(progress.getByTestId("undo-step")).toHaveCount(1);
    await expect(progress.getByTestId("undo-step")).toContainText(callLine);
    await expect(progress.getByTestId("undo-step-outcome")).toHaveText("Waits for a person's approval of the undo plan");
    const undoRunId = (await progress.getByRole("link").textContent())!.trim();
    expect(undoRunId).not.toBe(runId);
    expect(carrierCalls().filter((c) => c.tool === "cancel_collection")).toEqual([]);

    // the senior approves the undo plan; the page follows it to its outcome, and the carrier got the compensating call once
    const approvedUndo = await senior.post(`/api/runs/${undoRunId}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-undo-${undoRunId}` } });
    expect(approvedUndo.status(), await approvedUndo.text()).toBe(201);
    await expect(progress.getByTestId("undo-step-outcome")).toHaveText("Undone: the compensating call succeeded", { timeout: 60_000 });
    await expect(progress.getByTestId("undo-run-status")).toHaveText("Completed");
    const compensating = carrierCalls().filter((c) => c.tool === "cancel_collection");
    expect(compensating.map((c) => c.arguments)).toEqual([BOOKED]);
    expect(compensating[0]._meta["plandesk/idempotencyKey"]).toMatch(new RegExp(`^plandesk:${undoRunId}:`));
    expect((await new AxeBuilder({ page }).include("main").analyze()).violations).toEqual([]);
    await offer.screenshot({ path: "test-results/gateway-undo/outcome-1366.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await offer.screenshot({ path: "test-results/gateway-undo/outcome-390.png" });

    // a reload shows the proposed undo run, not a second offer
    await page.reload();
    await expect(page.getByRole("region", { name: "Undo the written steps" }).getByTestId("undo-step-outcome")).toHaveText("Undone: the compensating call succeeded");
    await expect(page.getByRole("button", { name: "Undo the written steps…" })).toHaveCount(0);
    await context.close();
  } finally {
    await Promise.all([admin.dispose(), senior.dispose(), agent.dispose()]);
  }
});
