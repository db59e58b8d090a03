/**
 * A person's added step is held to the fields the gate policy requires of it, as the agent's is:
 * a refund the senior adds without its stop condition is refused with that field marked and
 * nothing typed lost; filled, the edit saves. A step that requires nothing keeps its Why folded.
 * (docs/design.md "The task contract and what the agent saw")
 */
import { expect, test } from "@playwright/test";
import { openTaskWithPlan, STORAGE } from "./helpers";

test.use({ storageState: STORAGE.senior });

test("a person's refund missing its stop condition is refused at that field, everything typed kept; filled, it saves", async ({ page }) => {
  const ticketId = `e2e-why-${Date.now()}`;
  const { runId } = await openTaskWithPlan(
    page.request,
    { ticketId, accountId: "acc_baltic", subject: "Reefer plug-in fee", parts: [{ source: "system", text: "Question on REEFER_PLUGIN fee of in_74201." }], contract: { intent: "refund_request", constraints: {} } },
    [{ id: "note", tool: "add_ticket_note", args: { ticketId, note: "Checking the reefer plug-in fee." } }],
  );
  await page.goto(`/runs/${runId}`);
  await page.getByRole("button", { name: "Edit plan" }).click();
  // a note requires nothing: its Why is folded, one press away
  await expect(page.locator('[id="steps.0.risk"]')).toBeHidden();
  const toggle = page.getByTestId("why-toggle-0");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await toggle.click();
  await expect(page.locator('[id="steps.0.risk"]')).toBeVisible();
  await expect(toggle).toHaveText("Hide the reasons");
  await page.getByLabel("Add step").selectOption("issue_refund");
  await page.getByRole("button", { name: "Add step", exact: true }).click();
  await page.locator('[id="steps.1.args.invoiceId"]').fill("in_74201");
  await page.locator('[id="steps.1.args.amount"]').fill("100.00");
  await page.locator('[id="steps.1.args.reason"]').fill("Plug-in fee charged in error");

  // the Why: the gate policy's required fields marked, a title from what the step does, the ticket as evidence
  const why = page.getByTestId("why-1");
  // the refund's fields are required: shown, with no fold
  await expect(page.getByTestId("why-toggle-1")).toHaveCount(0);
  await expect(why).toContainText("the gate policy requires title, risk (missing), stop condition (missing), evidence");
  await expect(page.locator('[id="steps.1.title"]')).toHaveValue("Issue refund on in_74201");
  await expect(why.getByTestId("why-evidence")).toHaveText(new RegExp(`ticket ${ticketId}`));
  await page.locator('[id="steps.1.risk"]').fill("Money leaves the company");
  await expect(page.getByTestId("why-count-1")).toContainText("3 of 5 filled");
  for (const [width, height] of [[1366, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await why.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath(`why-${width}.png`), fullPage: false });
  }
  await page.setViewportSize({ width: 1366, height: 900 });

  const refused = page.waitForResponse((r) => r.url().endsWith("/edits") && r.request().method() === "POST");
  await page.getByRole("button", { name: "Save edit" }).click();
  expect((await refused).status()).toBe(422);
  const stop = page.locator('[id="steps.1.stopCondition"]');
  await expect(stop).toHaveAttribute("aria-invalid", "true");
  await expect(why).toContainText("needs a stop condition under the gate policy");
  // nothing typed is lost
  await expect(page.locator('[id="steps.1.args.invoiceId"]')).toHaveValue("in_74201");
  await expect(page.locator('[id="steps.1.args.amount"]')).toHaveValue("100.00");
  await expect(page.locator('[id="steps.1.risk"]')).toHaveValue("Money leaves the company");
  await expect(page.locator('[id="steps.1.title"]')).toHaveValue("Issue refund on in_74201");
  await page.screenshot({ path: test.info().outputPath("why-refused-1366.png"), fullPage: false });

  await stop.fill("Stop if the fee was already refunded");
  await expect(stop).not.toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Save edit" }).click();
  await expect(page.getByRole("region", { name: /Your edit changed/ })).toBeVisible();
  const run = (await (await page.request.get(`/api/runs/${runId}`)).json()).run as { planVersion: number; steps: Record<string, unknown>[] };
  expect(run.planVersion).toBe(2);
  expect(run.steps.find((s) => s.tool === "issue_refund")).toMatchObject({
    title: "Issue refund on in_74201",
    risk: "Money leaves the company",
    stopCondition: "Stop if the fee was already refunded",
    evidence: [{ recordType: "ticket", recordId: ticketId }],
  });
});
