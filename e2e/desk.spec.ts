import { test, expect } from "@playwright/test";
import { createRun } from "./factory";
import { STORAGE } from "./helpers";

test.describe("editing the plan card", () => {
  test.use({ storageState: STORAGE.senior });

  test("two people edit the same plan: the second save gets the conflict view, never a silent merge; starting over keeps what was typed", async ({ browser, page }) => {
    const id = await createRun(page.request, "address-74994");
    const other = await browser.newContext({ storageState: STORAGE.supervisor });
    const page2 = await other.newPage();
    for (const p of [page, page2]) {
      await p.goto(`/runs/${id}`);
      await p.getByRole("button", { name: "Edit plan" }).click();
    }
    await page.locator('[id="steps.0.args.note"]').fill("Senior's note");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByRole("heading", { name: /Your edit changed 1 thing/ })).toBeVisible();

    await page2.locator('[id="steps.0.args.note"]').fill("Supervisor's note");
    await page2.getByRole("button", { name: "Save edit" }).click();
    const conflict = page2.getByRole("region", { name: "Someone else changed this plan first" });
    await expect(conflict).toBeVisible();
    await expect(conflict).toContainText(/Sam Senior saved version 2 at \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/); // who saved first
    await expect(conflict).toContainText("Senior's note");
    await expect(conflict).toContainText("Supervisor's note");
    await conflict.getByRole("button", { name: "Start over from version 2" }).click();
    // version 2's plan, with the supervisor's own typed note kept on it and marked as theirs
    await expect(page2.getByRole("heading", { name: "Editing plan version 2" })).toBeVisible();
    await expect(page2.locator('[id="steps.0.args.note"]')).toHaveValue("Supervisor's note");
    await expect(page2.getByTestId("kept-change")).toHaveText("Your change, kept: Note (replaces the value saved in version 2)");
    await other.close();
  });

  test("a cleared amount is a validation error, never 0, and the form keeps what was typed", async ({ page }) => {
    const id = await createRun(page.request, "credit-74997");
    await page.goto(`/runs/${id}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    const amount = page.locator('[id="steps.0.args.amount"]');
    await expect(amount).toHaveValue("250.00");
    await amount.fill("");
    await page.locator('[id="steps.0.args.memo"]').fill("Memo I typed");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.locator('[id="steps.0.args.amount-error"]')).toBeVisible();
    await expect(amount).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator('[id="steps.0.args.memo"]')).toHaveValue("Memo I typed");
    const res = await page.request.get(`/api/runs/${id}`);
    expect((await res.json()).run.planVersion).toBe(1);
  });

  test("removing and re-adding a step never resurrects its old values", async ({ page }) => {
    const id = await createRun(page.request, "customs-74995");
    await page.goto(`/runs/${id}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    await expect(page.locator('[id="steps.1.args.body"]')).toHaveValue(/held by customs/);
    await page.getByRole("button", { name: "Remove step 2" }).click();
    await page.getByLabel("Add step").selectOption("send_reply");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    await expect(page.locator('[id="steps.1.args.body"]')).toHaveValue("");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.locator('[id="steps.1.args.body-error"]')).toContainText(/required/i);
  });

  test("an unchanged form submits no edit", async ({ page }) => {
    const id = await createRun(page.request, "resched-75002");
    await page.goto(`/runs/${id}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText("Nothing changed; no edit was saved.")).toBeVisible();
    expect((await (await page.request.get(`/api/runs/${id}`)).json()).planVersions).toHaveLength(1);
  });
});

test.describe("operator limits", () => {
  test.use({ storageState: STORAGE.operator });

  test("the refund above the operator's ceiling shows a disabled approve button with its reason", async ({ page }) => {
    const id = await createRun(page.request, "damaged-74992");
    await page.goto(`/runs/${id}`);
    const button = page.getByRole("button", { name: "Approve step 2" });
    await expect(button).toBeDisabled();
    await expect(page.getByText("Disabled: needs issue_refund approval grant above $500.00")).toBeVisible();
    // The reply promises the $1,060.00 refund of step 2, which stays unapproved: approving the reply
    // alone needs an acknowledgement that names the step backing the promise.
    const reply = page.getByRole("button", { name: "Approve step 3" });
    await expect(reply).toBeDisabled();
    const ack = page.getByRole("checkbox", { name: /step 2 \(issue_refund\) backs/ });
    await expect(ack).toBeVisible();
    await ack.check();
    await expect(reply).toBeEnabled();
  });

  test("rejecting needs a reason, which the agent then reads on its run", async ({ page }) => {
    const id = await createRun(page.request, "goodwill-75005");
    await page.goto(`/runs/${id}`);
    await page.getByRole("button", { name: "Reject…" }).click();
    await page.getByRole("button", { name: "Reject plan" }).click();
    await expect(page.locator("#reject-error")).toContainText("reason");
    await page.getByLabel("Reason (the agent reads it)").fill("No goodwill credit without a supervisor's sign-off");
    await page.getByRole("button", { name: "Reject plan" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("Rejected");
    const agent = await page.request.get(`/api/v1/runs/${id}`, { headers: { authorization: "Bearer pd_demo_agent_key", cookie: "" } });
    const body = await agent.json();
    expect(body.run.status).toBe("rejected");
    expect(body.run.rejectionReason).toBe("No goodwill credit without a supervisor's sign-off");
  });
});
