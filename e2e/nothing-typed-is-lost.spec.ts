/**
 * Nothing typed is lost: a key typed into a text field is the field's on every page (never a
 * shortcut); on the outcomes review, "3, a reason, Enter, j, 1" labels the run worse with that
 * reason and chooses better for the next one — at typing speed, without waiting for the save;
 * and "Start over from version N" after a stale-edit refusal keeps what the person typed where it
 * still applies and says what no longer does.
 */
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createRun } from "./factory";
import { refundWhy, STORAGE } from "./helpers";

const AGENT = { authorization: "Bearer pd_demo_agent_key", cookie: "" };
const SHOTS = "test-results/nothing-typed-is-lost";

/** Screenshots of the page at 1366 and 390 px wide (full page), for people to look at. */
async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1366, height: 900 });
}

/**
 * A run of ticket #75001 that a senior edited (a refund of `refundMinor` on in_75003, an invoice
 * of the same account no other spec refunds, the agent did not propose), approved and that the
 * executor wrote: an edited, executed run for the review queue.
 */
async function editedExecutedRun(request: APIRequestContext, origin: string, refundMinor: number): Promise<string> {
  const runId = await createRun(request, "damaged-75001");
  const { run: r } = await (await request.get(`/api/runs/${runId}`)).json();
  const steps = r.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
  steps.push({ id: "refund", tool: "issue_refund", args: { invoiceId: "in_75003", amount: { minor: refundMinor, currency: "USD" }, reason: "Goodwill for the crushed sacks" }, ...refundWhy(r.ticketId, "in_75003") });
  const edited = await request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: r.planVersion, steps }, headers: { origin } });
  expect(edited.status(), await edited.text()).toBe(201);
  const details = await (await request.get(`/api/runs/${runId}`)).json();
  const warnings = (details.validation.issues as { code: string; stepId?: string; severity: string }[]).filter((i) => i.severity === "warning" && i.stepId).map((i) => ({ code: i.code, stepId: i.stepId! }));
  const approved = await request.post(`/api/runs/${runId}/approvals`, {
    headers: { origin },
    data: { planVersion: details.run.planVersion, stepIds: "all", idempotencyKey: `typed-${runId}`, acknowledgedWarnings: warnings, acknowledgedConcurrentRuns: (details.concurrentRuns ?? []).map((c: { id: string }) => c.id) },
  });
  expect(approved.ok(), await approved.text()).toBe(true);
  const run = (await (await request.get(`/api/runs/${runId}`)).json()).run;
  for (const step of run.steps as { id: string; digest: string }[]) {
    const claimed = await request.post(`/api/v1/runs/${runId}/steps/${step.id}/claim`, { headers: AGENT, data: { digest: step.digest, taskRevision: run.boundTaskRevision } });
    expect(claimed.status(), await claimed.text()).toBe(200);
    const { claim } = await claimed.json();
    const wrote = await request.post("/api/v1/demo/effects", { headers: AGENT, data: { runId, stepId: step.id, token: claim.token } });
    expect(wrote.status(), await wrote.text()).toBe(200);
    const out = await request.post(`/api/v1/runs/${runId}/steps/${step.id}/outcome`, { headers: AGENT, data: { token: claim.token, status: "succeeded" } });
    expect(out.status(), await out.text()).toBe(200);
  }
  return runId;
}

/** The stored label of a run's outcome (GET /api/runs/{id}/outcome), or null when not labelled. */
async function storedLabel(request: APIRequestContext, runId: string): Promise<{ label: string; reason: string } | null> {
  const { outcome } = await (await request.get(`/api/runs/${runId}/outcome`)).json();
  return outcome?.label ? { label: outcome.label.label, reason: outcome.label.reason } : null;
}

test.describe("nothing typed is lost", () => {
  test.use({ storageState: STORAGE.senior, locale: "en-US" });

  test("on the queue, keys typed into a select, the search and a contenteditable stay there: no shortcut fires", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByRole("heading", { name: "Queue", level: 1 })).toBeVisible();
    await page.locator('html[data-shortcuts~="queueNext"]').waitFor({ state: "attached" });
    const rows = page.locator("tbody tr");
    await expect(rows.nth(1)).toBeVisible();
    await expect(rows.nth(0)).toHaveAttribute("aria-current", "true");
    const search = page.getByRole("searchbox", { name: "Search" });
    const nothingFired = async () => {
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect(page).toHaveURL(/\/runs$/);
      await expect(rows.nth(0)).toHaveAttribute("aria-current", "true");
    };

    // a select: j, ?, a digit and g q move nothing, open nothing, and the digit does not jump to the search
    await page.locator("#f-tool").focus();
    for (const k of ["j", "?", "1", "/", "g", "q"]) await page.keyboard.press(k);
    await expect(page.locator("#f-tool")).toBeFocused();
    await expect(search).toHaveValue("");
    await nothingFired();

    // a contenteditable element (a rich-text field): every key is text
    await page.locator("main").evaluate((main) => {
      const div = document.createElement("div");
      div.contentEditable = "true";
      div.setAttribute("role", "textbox");
      div.setAttribute("aria-label", "Scratch note");
      div.id = "scratch";
      main.prepend(div);
    });
    await page.locator("#scratch").focus();
    await page.keyboard.type("j k ? / 1 # g q a");
    await expect(page.locator("#scratch")).toHaveText("j k ? / 1 # g q a");
    await expect(page.locator("#scratch")).toBeFocused();
    await expect(search).toHaveValue("");
    await nothingFired();

    // the search itself (an input): j and ? are letters of the query
    await search.focus();
    await page.keyboard.type("j?k");
    await expect(search).toHaveValue("j?k");
    await nothingFired();
  });

  test("outcomes review: 3, a reason, Enter, j, 1 at typing speed labels run 1 worse with the reason and chooses better for run 2", async ({ page, browser, baseURL }) => {
    test.setTimeout(120_000);
    // two edited, executed runs next to each other in the review order (largest money difference
    // first): a cent apart, so no other run sorts between them
    const amount = 20_000 + (Date.now() % 10_000);
    const first = await editedExecutedRun(page.request, baseURL!, amount);
    const second = await editedExecutedRun(page.request, baseURL!, amount - 1);

    const ctx = await browser.newContext({ storageState: STORAGE.supervisor, locale: "en-US" });
    const sup = await ctx.newPage();
    await sup.setViewportSize({ width: 1366, height: 900 });
    await sup.goto("/outcomes/review");
    await expect(sup.getByRole("heading", { level: 1 })).toHaveText("Did the edit help?");
    await sup.locator('html[data-shortcuts~="labelWorse"]').waitFor({ state: "attached" });
    const items = sup.getByTestId("review-item");
    const run1 = items.filter({ has: sup.locator(`a[href="/runs/${first}"]`) });
    const run2 = items.filter({ has: sup.locator(`a[href="/runs/${second}"]`) });
    await expect(run1).toBeVisible();
    // run 2 is the row right after run 1
    const hrefs = await items.locator("h2 a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(hrefs.indexOf(`/runs/${second}`)).toBe(hrefs.indexOf(`/runs/${first}`) + 1);

    await run1.getByRole("link", { name: /Ticket #75001/ }).focus();
    await expect(run1).toHaveAttribute("aria-current", "true");
    // the documented sequence, at typing speed: nothing waits for the save to answer
    const reason1 = "Refund beyond the claim; the customer reopened.";
    await sup.keyboard.press("3");
    await sup.keyboard.type(reason1);
    await sup.keyboard.press("Enter");
    await sup.keyboard.press("j");
    await sup.keyboard.press("1");

    // run 1: labelled worse with its reason, its reason field untouched by j and 1
    await expect(run1).toContainText("labelled worse by Sofia Supervisor");
    await expect(run1.getByLabel("Reason (Enter saves)")).toHaveValue(reason1);
    // run 2: the current run, better chosen, focus in its reason
    await expect(run2).toHaveAttribute("aria-current", "true");
    await expect(run2.getByRole("radio", { name: /Better/ })).toBeChecked();
    const reason2 = run2.getByLabel("Reason (Enter saves)");
    await expect(reason2).toBeFocused();
    await expect(reason2).toHaveValue("");
    await expect.poll(() => storedLabel(sup.request, first)).toEqual({ label: "worse", reason: reason1 });
    await expect.poll(() => storedLabel(sup.request, second)).toBeNull();
    await shoot(sup, "outcomes-review-after-sequence");
    await expect(reason2).toBeFocused();

    // in run 2's reason the review keys are letters: j, k, 1, 3, w and ? are typed, nothing moves
    await sup.keyboard.type("Within the cap ");
    await sup.keyboard.type("j k 1 3 w ?");
    await expect(reason2).toHaveValue("Within the cap j k 1 3 w ?");
    await expect(run2.getByRole("radio", { name: /Better/ })).toBeChecked();
    await expect(sup.getByRole("dialog")).toHaveCount(0);
    await sup.keyboard.press("Control+a");
    await sup.keyboard.type("Within the cap, the customer was satisfied.");
    await sup.keyboard.press("Enter");
    // focus left run 2's reason for its row; both runs keep their own label and reason
    await expect(run2).toContainText("labelled better by Sofia Supervisor");
    await expect(reason2).not.toBeFocused();
    await expect(run2.locator("h2")).toBeFocused();
    await expect.poll(() => storedLabel(sup.request, second)).toEqual({ label: "better", reason: "Within the cap, the customer was satisfied." });
    expect(await storedLabel(sup.request, first)).toEqual({ label: "worse", reason: reason1 });

    expect((await new AxeBuilder({ page: sup }).analyze()).violations).toEqual([]);
    await shoot(sup, "outcomes-review-both-labelled");
    await ctx.close();
  });

  test("Start over from version N keeps what was typed where it still applies, and says what no longer does", async ({ page, browser, baseURL }) => {
    const id = await createRun(page.request, "address-74994");
    const other = await browser.newContext({ storageState: STORAGE.supervisor, locale: "en-US" });
    const sup = await other.newPage();
    await sup.setViewportSize({ width: 1366, height: 900 });
    await sup.goto(`/runs/${id}`);
    await sup.getByRole("button", { name: "Edit plan" }).click();
    // the supervisor types into all three steps
    await sup.locator('[id="steps.0.args.note"]').fill("Supervisor's note");
    await sup.locator('[id="steps.1.args.reason"]').fill("Re-routing: dock 4 at the new warehouse.");
    await sup.locator('[id="steps.2.args.body"]').fill("Supervisor's reply to the customer.");

    // meanwhile the senior saves version 2: another note, and the reply removed
    const { run } = await (await page.request.get(`/api/runs/${id}`)).json();
    const v2 = run.steps
      .filter((s: { id: string }) => s.id !== "st_reply")
      .map((s: { id: string; tool: string; args: Record<string, unknown> }) => ({ id: s.id, tool: s.tool, args: s.id === "st_note" ? { ...s.args, note: "Senior's note" } : s.args }));
    const saved = await page.request.post(`/api/runs/${id}/edits`, { data: { baseVersion: 1, steps: v2 }, headers: { origin: baseURL! } });
    expect(saved.status(), await saved.text()).toBe(201);

    await sup.getByRole("button", { name: "Save edit" }).click();
    const conflict = sup.getByRole("region", { name: "Someone else changed this plan first" });
    await expect(conflict).toBeVisible();
    await expect(conflict).toContainText("what you typed is kept where it still applies");
    await conflict.getByRole("button", { name: "Start over from version 2" }).click();

    // the form is version 2 with the supervisor's typed values where their steps still exist
    await expect(sup.getByRole("heading", { name: "Editing plan version 2" })).toBeVisible();
    await expect(sup.locator('[id="steps.0.args.note"]')).toHaveValue("Supervisor's note");
    await expect(sup.locator('[id="steps.1.args.reason"]')).toHaveValue("Re-routing: dock 4 at the new warehouse.");
    await expect(sup.locator('[id="steps.2.args.body"]')).toHaveCount(0);
    const steps = sup.getByRole("list", { name: "Plan steps (editing)" }).locator(":scope > li");
    await expect(steps).toHaveCount(2);
    await expect(steps.nth(0).getByTestId("kept-change")).toHaveText("Your change, kept: Note (replaces the value saved in version 2)");
    await expect(steps.nth(1).getByTestId("kept-change")).toHaveText("Your change, kept: Reason");
    // what no longer applies is said, with what was typed, and focus is on that summary
    const notice = sup.getByRole("region", { name: "Started over from version 2 with what you typed" });
    await expect(notice.getByRole("heading")).toBeFocused();
    await expect(notice).toContainText("Kept: 2 values you changed");
    await expect(notice.getByTestId("carried-lost")).toContainText("The Send reply step was removed in version 2; what you had typed there:");
    await expect(notice.getByTestId("carried-lost")).toContainText("Supervisor's reply to the customer.");
    expect((await new AxeBuilder({ page: sup }).analyze()).violations).toEqual([]);
    await shoot(sup, "start-over-form");

    // saving it makes version 3 with the supervisor's values on version 2's steps
    await sup.getByRole("button", { name: "Save edit" }).click();
    await expect(sup.getByRole("heading", { name: /Your edit changed/ })).toBeVisible();
    const after = (await (await sup.request.get(`/api/runs/${id}`)).json()).run;
    expect(after.planVersion).toBe(3);
    expect(after.steps.map((s: { id: string }) => s.id)).toEqual(["st_note", "st_resched"]);
    expect(after.steps[0].args.note).toBe("Supervisor's note");
    expect(after.steps[1].args.reason).toBe("Re-routing: dock 4 at the new warehouse.");
    await other.close();
  });
});
