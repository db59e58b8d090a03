import { test, expect } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { createRun } from "./factory";
import { STORAGE } from "./helpers";

// ownership, routing by authority, suggested steps — one run for ticket #74993
// (a $4,199.00 refund, beyond the operator's $500 and the senior's $2,000 approve limits).
test.describe("ownership, hand-offs and suggested steps", () => {
  test.use({ storageState: STORAGE.operator });

  test("operator takes the run, sees it beyond their limit with the named approver, hands it to the senior and suggests a refund the senior accepts", async ({ browser, page }) => {
    const id = await createRun(page.request, "dup-74993");
    await page.goto(`/runs/${id}`);
    const panel = page.getByRole("region", { name: "Ownership" });
    await expect(panel.getByTestId("assignee")).toHaveText("Unassigned");
    await panel.getByRole("button", { name: "Take this run" }).click();
    await expect(panel.getByTestId("assignee")).toHaveText("Assigned to you (Olivia Operator)");
    await expect(panel.getByTestId("assignee")).toBeFocused(); // the focus follows, not left on <body>

    // who acts next names the people whose grants cover the waiting step
    const next = page.getByRole("region", { name: "Who acts next" });
    await expect(next.getByTestId("named-deciders")).toContainText("Sofia Supervisor can approve step 1 (issue_refund $4,199.00)");
    await expect(next.getByTestId("named-deciders")).toContainText("beyond your limit");

    // the queue's views keep the run: mine, beyond my limit; the assignee and the approvals still missing are columns
    await page.goto("/runs?status=pending_review&view=mine");
    const row = page.getByRole("row", { name: /#74993/ });
    await expect(row).toBeVisible();
    await expect(row.getByTestId("assignee-cell")).toHaveText("Olivia Operator");
    await expect(row.getByTestId("approvals-missing")).toContainText("beyond my limit");
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.getByRole("button", { name: "Unassigned" }).click();
    await expect(page).toHaveURL(/view=unassigned/);
    await expect(page.getByRole("row", { name: /#74993/ })).toHaveCount(0);
    await page.getByRole("button", { name: "Beyond my limit" }).click();
    await expect(page.getByRole("row", { name: /#74993/ })).toBeVisible();

    // request approval from the senior, with a note
    await page.goto(`/runs/${id}`);
    await panel.getByRole("button", { name: "Request approval" }).click();
    const form = page.getByRole("form", { name: "Request approval" });
    await form.getByLabel("Ask").selectOption({ label: "Sam Senior (operator)" });
    await form.getByLabel("Note").fill("The duplicate refund is over my limit; please take a look.");
    await form.getByRole("button", { name: "Send request" }).click();
    await expect(panel).toContainText("Olivia Operator asked Sam Senior");

    // suggest a refund the operator may not author
    await panel.getByRole("button", { name: "Suggest a step" }).click();
    const sug = page.getByRole("form", { name: "Suggest a step" });
    await sug.getByLabel("Tool").selectOption("issue_refund");
    // an invoice of another customer is named while she types
    await sug.locator('[id="steps.0.args.invoiceId"]').fill("in_74119");
    await expect(sug.getByTestId("record-other-account")).toHaveText("in_74119 is Halvorsen Freight’s, not this ticket’s customer: whoever approves the step must acknowledge it.");
    await sug.locator('[id="steps.0.args.invoiceId"]').fill("in_74804");
    await expect(sug.getByTestId("record-other-account")).toHaveCount(0);
    await sug.locator('[id="steps.0.args.amount"]').fill("100.00");
    await sug.locator('[id="steps.0.args.reason"]').fill("Storage fee goodwill");
    await sug.getByRole("button", { name: "Attach suggestion" }).click();
    await expect(panel.getByTestId("suggestion")).toContainText("Olivia Operator suggests issue_refund on version 1 ($100.00)");
    // she cannot accept her own refund suggestion: the button says why instead of answering 403
    const own = panel.getByRole("button", { name: "Accept as my edit" });
    await expect(own).toBeDisabled();
    await expect(own).toHaveAccessibleDescription("You cannot accept it: needs a grant to author issue_refund steps.");

    // the senior sees the notification and accepts the suggestion as their own edit
    const senior = await browser.newContext({ storageState: STORAGE.senior });
    const sp = await senior.newPage();
    await sp.goto("/notifications");
    await expect(sp.getByRole("list", { name: "Notifications" })).toContainText("Olivia Operator asks you to decide ticket #74993: The duplicate refund is over my limit");
    await expect(sp.getByTestId("notification-bell")).toHaveAccessibleName(/unread/);
    expect((await new AxeBuilder({ page: sp }).analyze()).violations).toEqual([]);
    await sp.getByRole("button", { name: "Mark all read" }).click();
    await expect(sp.getByText("0 unread")).toBeVisible();
    await sp.goto(`/runs/${id}`);
    const sPanel = sp.getByRole("region", { name: "Ownership" });
    await sPanel.getByRole("button", { name: "Accept as my edit" }).click();
    // the step becomes the senior's own: the form asks for its reasons (title and the ticket as evidence prefilled)
    const acceptForm = sPanel.getByRole("form", { name: "Accept as my edit" });
    await expect(acceptForm.getByLabel("Title")).toHaveValue("Issue refund on in_74804");
    // without risk and stop condition the acceptance is refused at those fields, what was typed kept
    await acceptForm.getByLabel("Title").fill("Refund the storage fee");
    await acceptForm.getByRole("button", { name: "Accept with these reasons" }).click();
    await expect(acceptForm.getByRole("alert")).toContainText("fill the marked fields");
    await expect(acceptForm.getByLabel("Risk")).toHaveAttribute("aria-invalid", "true");
    await expect(acceptForm.getByLabel("Title")).toHaveValue("Refund the storage fee");
    await acceptForm.getByLabel("Risk").fill("Money leaves the company");
    await acceptForm.getByLabel("Stop condition").fill("Stop if the fee was already refunded");
    await acceptForm.getByRole("button", { name: "Accept with these reasons" }).click();
    await expect(sPanel.getByTestId("suggestion")).toContainText("Accepted by Sam Senior (plan version 2)");
    const run = (await (await sp.request.get(`/api/runs/${id}`)).json()).run;
    expect(run.planVersion).toBe(2);
    const refund = run.steps.find((s: { tool: string; args: { invoiceId?: string } }) => s.tool === "issue_refund" && s.args.invoiceId === "in_74804");
    expect(refund.author).toEqual({ kind: "user", userId: "usr_senior" });
    const audit = (await (await sp.request.get(`/api/runs/${id}/audit`)).json()).events.map((e: { type: string }) => e.type);
    expect(audit).toEqual(expect.arrayContaining(["run_assigned", "approval_requested", "step_suggested", "edited", "suggestion_accepted"]));
    await senior.close();
  });
});
