import { test, expect } from "@playwright/test";
import { STORAGE } from "./helpers";

// No dead end after approval: a run whose approved refund the invoice no longer covers (the
// `needs-decision` scenario: a fresh ticket, task and invoice each time, so no other spec meets it)
// is owned by a person, says why and what must be decided, shows in the queue, and an operator
// rejects it — the desk keeps no run waiting for a new decision.

test.describe("a run that needs a new decision", () => {
  test.use({ storageState: STORAGE.operator });

  test("the run page names the owner and the reason, the queue lists it, and an operator rejects it", async ({ page, baseURL }) => {
    const made = await page.request.post("/api/demo/scenarios/needs-decision", { headers: { origin: baseURL! } });
    expect(made.status(), await made.text()).toBe(201);
    const { runIds, ticketIds, refs } = (await made.json()) as { runIds: string[]; ticketIds: string[]; refs: { invoiceId: string } };
    const runId = runIds[0];
    const reason = `Needs a new decision: ${refs.invoiceId} has $100.00 open; the approved refund was $600.00.`;

    // The queue counts it and lists it under its own status, marked.
    await page.goto("/runs");
    await expect(page.getByTestId("needs-decision-notice")).toContainText("need");
    await page.getByTestId("needs-decision-notice").getByRole("link").click();
    await expect(page).toHaveURL(/status=needs_decision/);
    const row = page.getByRole("row").filter({ hasText: `#${ticketIds[0]}` });
    await expect(row).toContainText("Needs decision");
    await expect(row.getByTestId("needs-decision-badge")).toBeVisible();

    await page.goto(`/runs/${runId}`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await expect(page.getByTestId("run-status")).toHaveText("Needs decision");
    // A person owns it, never the executor; the page says why and what must be decided.
    await expect(page.getByTestId("needs-decision")).toContainText("owner: an operator of this desk");
    await expect(page.getByTestId("needs-decision-reason")).toHaveText(reason);
    await expect(page.getByTestId("needs-decision")).toContainText("approve step 1 again");
    const next = page.getByTestId("next-line");
    await expect(next).toContainText("An operator.");
    await expect(next).toContainText(reason);
    await expect(next).not.toContainText("executor");
    await expect(page.locator("main")).not.toContainText("Claim the next step");
    // The approve button says what it would do; this operator's refund limit ($500.00) is below it.
    await expect(page.getByTestId("approve-all")).toHaveText("Approve step 1 again");
    await expect(page.getByTestId("approve-all")).toBeDisabled();
    await expect(page.locator("main")).not.toContainText("Approve 0 remaining steps");

    // The operator rejects it with a reason for the agent.
    await page.getByRole("button", { name: "Reject…" }).click();
    await page.getByLabel("Reason (the agent reads it)").fill("The customer paid most of the invoice; no refund is owed now.");
    await page.getByRole("button", { name: "Reject plan" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("Rejected");
    await expect(page.getByTestId("needs-decision")).toHaveCount(0);
    const agentView = await page.request.get(`/api/v1/runs/${runId}`, { headers: { authorization: "Bearer pd_demo_agent_key" } });
    expect(((await agentView.json()) as { run: { status: string } }).run.status).toBe("rejected");
  });
});
