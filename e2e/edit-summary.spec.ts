import { test, expect, type Browser, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { openChargedTwicePlan, STORAGE } from "./helpers";

// An operator who may author refunds (Sam Senior, role operator) lowers a refund; the review and
// the red callout name the reply that still says the old amount; a second person (Olivia Operator)
// opening the run reads the edit (who, when, amount before → after, linked to the step) on the
// first screen, at 1366 and at 390 px. Its own tickets: the task is opened through the ticketing
// door with a ticket id of its own (e2e-edit-summary-…), so no other spec touches its runs.

async function pageAs(browser: Browser, role: "operator" | "senior", viewport: { width: number; height: number }, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const context = await browser.newContext({ storageState: STORAGE[role], viewport, colorScheme });
  return context.newPage();
}

test("an operator's edit of a refund: the review names the reply's stale amount, a second reviewer sees the edit first", async ({ browser }, testInfo) => {
  const ticketId = `e2e-edit-summary-${testInfo.workerIndex}-${Date.now()}`;
  const editor = await pageAs(browser, "senior", { width: 1366, height: 768 });
  const { runId } = await openChargedTwicePlan(editor.request, ticketId);

  // as the agent proposed it, nobody edited the plan: no summary
  await editor.goto(`/runs/${runId}`);
  await expect(editor.getByRole("heading", { name: /Plan · version 1/ })).toBeVisible();
  await expect(editor.getByTestId("edit-summary")).toHaveCount(0);

  // the operator lowers the refund to $1,000.00
  await editor.getByRole("button", { name: "Edit plan" }).click();
  await editor.locator('[id="steps.0.args.amount"]').fill("1,000.00");
  await editor.getByRole("button", { name: "Save edit" }).click();
  const review = editor.getByRole("region", { name: /Your edit changed/ });
  await expect(review.getByTestId("review-inconsistencies")).toContainText("Step 2:");
  await expect(review.getByTestId("review-inconsistencies")).toContainText("The reply promises $1,060.00");
  const reply = editor.getByTestId("risk-callout").getByTestId("risk-line").filter({ hasText: "Step 2" });
  await expect(reply).toContainText("promises what no step does");
  await expect(reply).toContainText("$1,060.00");
  await editor.screenshot({ path: testInfo.outputPath("edit-summary-review-1366.png") });
  await editor.context().close();

  // a second person opens the run: the edit is on the first screen, above the steps
  for (const [viewport, scheme] of [
    [{ width: 1366, height: 768 }, "light"],
    [{ width: 390, height: 844 }, "light"],
    [{ width: 390, height: 844 }, "dark"],
  ] as const) {
    const second = await pageAs(browser, "operator", viewport, scheme);
    await second.goto(`/runs/${runId}`);
    const summary = second.getByTestId("edit-summary");
    await expect(summary).toContainText("Changed since the agent's plan: 1 edit");
    await expect(summary.getByTestId("edit-summary-edit")).toContainText(/Edited by Sam Senior · \d+ \w+ \d{4}, \d\d:\d\d UTC · version 1 → 2/);
    const step = summary.getByTestId("edit-summary-step");
    await expect(step).toHaveCount(1);
    await expect(step).toContainText("changed");
    await expect(step).toContainText("$1,060.00 → $1,000.00");
    await expect(summary).toBeInViewport({ ratio: 1 });
    // the red callout still names the reply's stale amount, for this reviewer too
    await expect(second.getByTestId("risk-callout").getByTestId("risk-line").filter({ hasText: "Step 2" })).toContainText("$1,060.00");
    expect((await new AxeBuilder({ page: second }).include('[data-testid="edit-summary"]').analyze()).violations).toEqual([]);
    await second.screenshot({ path: testInfo.outputPath(`edit-summary-second-reviewer-${viewport.width}-${scheme}.png`) });
    // the step's name leads to its card
    await step.getByRole("link", { name: /Step 1/ }).click();
    await expect(second.getByRole("heading", { name: /Refund the second charge/, level: 3 })).toBeInViewport();
    await second.context().close();
  }
});
