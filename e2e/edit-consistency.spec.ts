import { test, expect } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { openChargedTwicePlan, STORAGE } from "./helpers";

// An edit's consequences are in its review: when a person lowers a refund, the reply that still
// tells the customer the old amount is named at the top of "Your edit changed …" and in the red
// callout, not only in an acknowledgement box of the decision. The task is opened through the
// ticketing door, so no other spec proposes runs for it.

test.use({ storageState: STORAGE.senior });

test("lowering a refund names the reply that still promises the old amount, in the review and the callout", async ({ page }, testInfo) => {
  const ticketId = `e2e-consistency-${testInfo.workerIndex}-${Date.now()}`;
  const { runId } = await openChargedTwicePlan(page.request, ticketId);

  await page.goto(`/runs/${runId}`);
  // as proposed, the reply's promise is kept by the refund: no promise in the callout
  await expect(page.getByTestId("risk-callout")).not.toContainText("promise no step keeps");
  await page.getByRole("button", { name: "Edit plan" }).click();
  await page.locator('[id="steps.0.args.amount"]').fill("1,000.00");
  await page.getByRole("button", { name: "Save edit" }).click();
  const review = page.getByRole("region", { name: /Your edit changed/ });
  const inconsistent = review.getByTestId("review-inconsistencies");
  await expect(inconsistent).toContainText("The plan now tells the customer what no step does");
  await expect(inconsistent).toContainText("Step 2:");
  await expect(inconsistent).toContainText("$1,060.00");
  // at the top of the review, above the changed fields
  const top = (await inconsistent.boundingBox())!.y;
  expect(top).toBeLessThan((await review.getByRole("listitem").filter({ hasText: "changed" }).first().boundingBox())!.y);
  expect((await new AxeBuilder({ page }).include('[data-testid="review-inconsistencies"]').analyze()).violations).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath("edit-consistency-review-1366.png") });

  // the run page's red callout names it too, on a phone's first screen as well
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/runs/${runId}`);
  const line = page.getByTestId("risk-callout").getByTestId("risk-line").filter({ hasText: "Step 2" });
  await expect(line).toContainText("Reply · promises what no step does");
  await expect(line).toContainText("promise no step keeps");
  await expect(page.getByTestId("risk-callout")).toBeInViewport();
  await page.screenshot({ path: testInfo.outputPath("edit-consistency-callout-390.png"), fullPage: false });
});
