import { test, expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { formatIsoDate } from "../lib/text/format";
import { createRun } from "./factory";
import { fillWhy, STORAGE } from "./helpers";

/** Creates a fresh run of the reference case through the agent API and opens it. */
async function openRun(page: Page, ticket: string): Promise<string> {
  const id = await createRun(page.request, "ref-74991");
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Ticket #${ticket}`);
  return id;
}

function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

test.describe("reference case, operator without refund authorship", () => {
  test.use({ storageState: STORAGE.operator });

  test("cannot add the refund: the tool is disabled with its reason, and a raw API edit is refused", async ({ page, baseURL }) => {
    const runId = await openRun(page, "74991");
    await page.getByRole("button", { name: "Edit plan" }).click();
    const option = page.getByRole("option", { name: /Issue refund/ });
    await expect(option).toBeDisabled();
    await expect(option).toContainText("needs a grant to author issue_refund");

    const run = await page.request.get(`/api/runs/${runId}`);
    const { run: r } = await run.json();
    const steps = r.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
    steps.push({ id: "x", tool: "issue_refund", args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "goodwill" } });
    const res = await page.request.post(`/api/runs/${r.id}/edits`, { data: { baseVersion: r.planVersion, steps }, headers: { origin: baseURL! } });
    expect(res.status()).toBe(403);
    expect((await res.json()).error.code).toBe("authorship_denied");
  });
});

test.describe("reference case, senior operator", () => {
  test.use({ storageState: STORAGE.senior });

  test("moves the date, adds the refund, sees 2 changes and the cross-account note, removes the added step, approves", async ({ page }, testInfo) => {
    await openRun(page, "74991");
    await expect(page.getByRole("list", { name: "Plan steps" })).toBeVisible();
    const axeRun = await new AxeBuilder({ page }).analyze();
    expect(axeRun.violations).toEqual([]);

    await page.getByRole("button", { name: "Edit plan" }).click();
    const from = page.locator('[id="steps.1.args.window.from"]');
    const to = page.locator('[id="steps.1.args.window.to"]');
    const oldDate = await from.inputValue();
    const newDate = addDays(oldDate, 4);
    await from.fill(newDate);
    await to.fill(newDate);
    // the date inputs show the browser's format; the form also says it as the page does
    await expect(page.getByTestId("window-in-words")).toHaveText(formatIsoDate(newDate));

    await page.getByLabel("Add step").selectOption("issue_refund");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    await page.locator('[id="steps.3.args.invoiceId"]').fill("in_74119"); // an invoice of another account: typed, suggested by the server's search
    await page.locator('[id="steps.3.args.amount"]').fill("1,489.00");
    await page.locator('[id="steps.3.args.reason"]').fill("Goodwill for the missed delivery window");
    // the refund's "Why": its title follows what it does and the ticket is its evidence; the senior types the risk and the stop condition
    await expect(page.locator('[id="steps.3.title"]')).toHaveValue("Issue refund on in_74119");
    await expect(page.getByTestId("why-3").getByTestId("why-evidence")).toHaveText(/ticket 74991/);
    await fillWhy(page, 3, { risk: "The invoice belongs to another account", stopCondition: "Stop if in_74119 was already refunded" });
    await expect(page.getByTestId("why-count-3")).toContainText("4 of 5 filled");
    await page.screenshot({ path: testInfo.outputPath("card-editing.png"), fullPage: true });
    await page.getByRole("button", { name: "Save edit" }).click();

    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review.getByRole("heading", { name: /Your edit changed/ })).toHaveText(/Your edit changed 2 things/i);
    await expect(review.getByText("step added")).toBeVisible();
    // one date presentation (issue 14): weekday, day, month, year, and the shift
    await expect(review).toContainText(formatIsoDate(oldDate));
    await expect(review).toContainText(`${formatIsoDate(newDate)} (+4 days)`);
    await expect(review).toContainText(/in_74119 belongs to Halvorsen Freight, not to Nordkapp Logistics/);
    await expect(review).toContainText("Re-approval required for step 4 (added), step 2 (changed)");
    // risk first: a red callout above everything names the refund, its amount and the other customer
    const callout = page.getByTestId("risk-callout");
    await expect(callout).toBeVisible();
    await expect(callout.getByTestId("risk-line").filter({ hasText: "Step 4" })).toContainText("Refund to another customer's invoice · $1,489.00 · Halvorsen Freight");
    const calloutBox = (await callout.boundingBox())!;
    const reviewBox = (await review.boundingBox())!;
    expect(calloutBox.y).toBeLessThan(reviewBox.y);
    // the effect line says whose invoice it is
    await expect(page.getByTestId("review-after-step").filter({ hasText: "After step 4" })).toContainText("in_74119 (Halvorsen Freight — another customer)");
    // one decision bar, in view at the bottom of the screen, with the decision's summary
    const bar = page.getByTestId("decision-bar");
    await expect(bar).toBeInViewport();
    await expect(bar.getByTestId("decision-summary")).toContainText("$1,489.00 out");
    await expect(bar.getByTestId("decision-summary")).toContainText("1 to another customer");
    await page.screenshot({ path: testInfo.outputPath("review-changes.png"), fullPage: true });
    const axeReview = await new AxeBuilder({ page }).analyze();
    expect(axeReview.violations).toEqual([]);

    // approving step 4 needs the cross-account warning acknowledged first
    await expect(page.getByRole("button", { name: "Approve step 4" })).toBeDisabled();

    await review.getByRole("button", { name: "Remove step 4" }).click();
    await expect(review.getByRole("heading", { name: /Your edit changed/ })).toHaveText(/Your edit changed 1 thing/i);
    await expect(review.getByText("step added")).toHaveCount(0);
    // the button says exactly what it approves (issue 14): the two steps still waiting
    await expect(page.getByTestId("approve-all")).toHaveText("Approve 2 remaining steps (2, 3)");
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    // "who acts next" follows the decision without a reload: nobody is left to approve
    await expect(page.getByTestId("next-line")).toContainText("The executor");
    await expect(page.getByTestId("named-deciders")).toHaveCount(0);
  });
});

test.describe("the queue's At stake column", () => {
  test.use({ storageState: STORAGE.senior });

  test("shows the money a plan moves and a badge when it reaches another account, and sorts by it in SQL", async ({ page, baseURL }) => {
    const runId = await createRun(page.request, "ref-74991");
    const { run: r } = await (await page.request.get(`/api/runs/${runId}`)).json();
    const steps = r.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
    // a person's refund carries what the gate policy requires of it
    steps.push({ id: "refund", tool: "issue_refund", args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "Goodwill for the missed delivery window" }, title: "Issue refund on in_74119", evidence: [{ recordType: "ticket", recordId: r.ticketId }], risk: "The invoice belongs to another account", stopCondition: "Stop if in_74119 was already refunded" });
    const res = await page.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: r.planVersion, steps }, headers: { origin: baseURL! } });
    expect(res.status(), await res.text()).toBe(201);

    await page.goto("/runs");
    const row = page.getByRole("row").filter({ has: page.locator(`a[href="/runs/${runId}"]`) });
    await expect(row.getByTestId("at-stake")).toContainText("$1,489.00");
    await expect(row.getByTestId("risk-other-account")).toHaveText("another account");

    await page.getByRole("button", { name: /At stake/ }).click();
    await expect(page).toHaveURL(/sort=at_stake/);
    await expect(page.getByRole("columnheader", { name: /At stake/ })).toHaveAttribute("aria-sort", "descending");
    // biggest first: the dollar amounts down the column never grow
    await expect(page.getByTestId("at-stake").first()).toContainText("$");
    const amounts = (await page.getByTestId("at-stake").allTextContents())
      .map((t) => /\$([\d,]+\.\d{2})/.exec(t)?.[1])
      .filter((x): x is string => !!x)
      .map((x) => Number(x.replace(/,/g, "")));
    expect(amounts.length).toBeGreaterThan(1);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  test("the run page: the red callout on top, the one-step decision has one button per name, the tab says which run", async ({ page }) => {
    const runId = await createRun(page.request, "ref-74991");
    await page.goto(`/runs/${runId}`);
    await expect(page).toHaveTitle("#74991 · Nordkapp Logistics · 3 steps");
    // the reference plan as proposed moves no money and reaches no other customer: its irreversible-free steps raise no callout
    await expect(page.getByTestId("risk-callout")).toHaveCount(0);
    // exactly one button per name in the decision
    const names = await page.getByRole("button").allTextContents();
    const approve = names.filter((n) => /^Approve/.test(n.trim()));
    expect(new Set(approve).size).toBe(approve.length);
  });
});
