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

// Shift+A on a run that needs a new decision approves the blocked step again — checked against live
// account data first: while the invoice is still short the refusal is shown and the run keeps
// waiting for a person; once the balance covers the refund again, Shift+A approves it again and
// opens the next run that waits for a decision.
test.describe("Shift+A on a run that needs a new decision", () => {
  test.use({ storageState: STORAGE.senior });

  test("is re-validated against live data: refused while the balance is short, approved again once it covers the refund", async ({ page, baseURL }) => {
    const make = async (name: string) => {
      const made = await page.request.post(`/api/demo/scenarios/${name}`, { headers: { origin: baseURL! } });
      expect(made.status(), await made.text()).toBe(201);
      return ((await made.json()) as { runIds: string[] }).runIds[0];
    };
    const status = async (id: string) => ((await (await page.request.get(`/api/runs/${id}`)).json()) as { run: { status: string } }).run.status;
    // the acknowledgement dialog may open first (confirmed with Alt+A), as for any approval
    const confirmIfAsked = async (done: () => Promise<boolean>) => {
      const dialog = page.getByRole("dialog", { name: /Approve/ });
      await expect.poll(async () => (await dialog.isVisible()) || (await done())).toBe(true);
      if (await dialog.isVisible()) await page.keyboard.press("Alt+A");
    };

    const short = await make("needs-decision");
    await page.goto(`/runs/${short}`);
    await expect(page.getByTestId("run-status")).toHaveText("Needs decision");
    await expect(page.getByTestId("approve-all")).toHaveText("Approve step 1 again");
    await page.locator('html[data-shortcuts~="approveNext"]').waitFor({ state: "attached" });
    await page.keyboard.press("Shift+A");
    const refusal = page.getByRole("alert").filter({ hasText: "no longer passes validation" });
    await confirmIfAsked(() => refusal.isVisible());
    await expect(refusal).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/runs/${short}$`));
    expect(await status(short)).toBe("needs_decision");

    const recovered = await make("needs-decision-recovered");
    await page.goto(`/runs/${recovered}`);
    await expect(page.getByTestId("run-status")).toHaveText("Needs decision");
    await page.locator('html[data-shortcuts~="approveNext"]').waitFor({ state: "attached" });
    await page.keyboard.press("Shift+A");
    await confirmIfAsked(async () => (await status(recovered)) === "approved");
    await expect.poll(() => status(recovered)).toBe("approved");
    // approve & next: another run that waits for a decision opens (or the page says this was the last one)
    await expect.poll(async () => !page.url().endsWith(`/runs/${recovered}`) || (await page.getByText("this was the last one").isVisible())).toBe(true);
    const audit = (await (await page.request.get(`/api/runs/${recovered}/audit`)).json()) as { events: { type: string }[] };
    expect(audit.events.map((e) => e.type)).toContain("approved_again");
  });
});
