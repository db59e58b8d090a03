import { test, expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { formatIsoDate } from "../lib/text/format";
import { createRun } from "./factory";
import { fillWhy, STORAGE } from "./helpers";

/*
 * The effects preview on the reference case, ticket #74991: before approval the
 * run page and the review screen after the operator's edit show the account after each step —
 * sh_5521's new window and in_74119 going from $2,120.00 to $631.00 open — and the approval
 * stores that expected effect, which the audit trail shows on the approved event.
 */

function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

async function openRun(page: Page): Promise<string> {
  const id = await createRun(page.request, "ref-74991");
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #74991");
  return id;
}

test.describe("effects preview, senior operator", () => {
  test.use({ storageState: STORAGE.senior });

  test("shows the account after each step on the run page and the review screen, and the approval stores it", async ({ page }, testInfo) => {
    const runId = await openRun(page);
    const steps = page.getByRole("list", { name: "Plan steps" });
    const after2 = steps.getByRole("region", { name: "After step 2" });
    const from = page.locator('[id="steps.1.args.window.from"]');

    // the run page, version 1: the agent's reschedule, and what the customer will have been told
    await expect(after2).toContainText("sh_5521 window");
    await expect(steps.getByRole("region", { name: "After step 3" })).toContainText("Customer will have been told");
    await expect(steps.getByRole("region", { name: "After step 1" })).toContainText("Internal note on ticket 74991");
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // the operator's edit: the date four days later, a refund of 1,489.00 against in_74119
    await page.getByRole("button", { name: "Edit plan" }).click();
    const oldDate = await from.inputValue();
    const newDate = addDays(oldDate, 4);
    await from.fill(newDate);
    await page.locator('[id="steps.1.args.window.to"]').fill(newDate);
    await page.getByLabel("Add step").selectOption("issue_refund");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    await page.locator('[id="steps.3.args.invoiceId"]').fill("in_74119");
    await page.locator('[id="steps.3.args.amount"]').fill("1,489.00");
    await page.locator('[id="steps.3.args.reason"]').fill("Goodwill for the missed delivery window");
    await fillWhy(page, 3);
    await page.getByRole("button", { name: "Save edit" }).click();

    // the review screen, before approval
    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review.getByRole("heading", { name: /Your edit changed/ })).toHaveText(/Your edit changed 2 things/i);
    const effects = page.getByRole("region", { name: /The account after each step/ });
    await expect(effects.getByRole("listitem", { name: "After step 4" })).toContainText("in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00");
    await expect(effects.getByRole("listitem", { name: "After step 2" })).toContainText(new RegExp(`sh_5521 window .+ → ${formatIsoDate(newDate)}`));
    await page.screenshot({ path: testInfo.outputPath("review-effects.png"), fullPage: true });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // back on the run page: the same preview under each step
    await page.getByRole("button", { name: "Back to the plan" }).click();
    await expect(steps.getByRole("region", { name: "After step 4" })).toContainText("in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00");
    await expect(steps.getByRole("region", { name: "After step 2" })).toContainText(`→ ${formatIsoDate(newDate)}`);

    // the API says the same (declared in the response schema)
    const details = await (await page.request.get(`/api/runs/${runId}`)).json();
    const refund = details.effects.find((e: { position: number }) => e.position === 4);
    expect(refund).toMatchObject({ status: "previewed", changes: [{ kind: "invoice_balance", invoiceId: "in_74119", before: { minor: 212000, currency: "USD" }, after: { minor: 63100, currency: "USD" } }] });

    // approve with the cross-account warning acknowledged; the audit shows the stored expected effect
    for (const box of await page.getByRole("checkbox", { name: /I acknowledge/ }).all()) await box.check();
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    await page.goto(`/runs/${runId}/audit`);
    const approved = page.locator('[data-testid="audit-event"][data-type="approved"]');
    await expect(approved.getByTestId("approved-effect").filter({ hasText: "in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00" })).toHaveCount(1);
    await expect(approved.getByTestId("approved-effect").filter({ hasText: `→ ${formatIsoDate(newDate)}` })).toHaveCount(1);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  });
});

test.describe("effects preview at 390 px", () => {
  test.use({ storageState: STORAGE.senior, viewport: { width: 390, height: 844 } });

  test("the 'After this step' panels stay readable on a phone", async ({ page }) => {
    await openRun(page);
    const panel = page.getByRole("list", { name: "Plan steps" }).getByRole("region", { name: "After step 2" });
    await expect(panel).toContainText("sh_5521 window");
    const box = await panel.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  });
});
