import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "@playwright/test";
import { createRun } from "./factory";
import { refundWhy, STORAGE } from "./helpers";

/*
 * Did the edit help? Ticket #75001 (crushed coffee sacks, a damage claim without a cap): the agent
 * proposes an escalation and a note; a senior operator adds a $500.00 refund on in_75001 and
 * approves; the executor claims and writes every step; the ticketing integration reports the
 * ticket reopened; a supervisor labels the run worse by keyboard on /outcomes/review; the run
 * page, /insights and the diff corpus show it.
 */

const AGENT = { authorization: "Bearer pd_demo_agent_key", cookie: "" };
const INTEGRATION = { authorization: "Bearer pd_demo_integration_key", cookie: "" };

test.describe("outcomes, from the edit to the supervisor's label", () => {
  test.use({ storageState: STORAGE.senior });

  test("edit, write, reopen, label worse by keyboard; insights and the corpus show it", async ({ page, browser, baseURL }) => {
    const runId = await createRun(page.request, "damaged-75001");
    // the senior operator adds a refund the agent did not propose
    const { run: r } = await (await page.request.get(`/api/runs/${runId}`)).json();
    const steps = r.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
    steps.push({ id: "refund", tool: "issue_refund", args: { invoiceId: "in_75001", amount: { minor: 50000, currency: "USD" }, reason: "Goodwill for the crushed sacks" }, ...refundWhy(r.ticketId, "in_75001") });
    const edited = await page.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: r.planVersion, steps }, headers: { origin: baseURL! } });
    expect(edited.status(), await edited.text()).toBe(201);

    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #75001");
    // the run page streams in after the frame hydrates: click once its approval panel is live
    await page.locator('html[data-shortcuts~="approve"]').waitFor({ state: "attached" });
    await page.getByTestId("approve-all").click();
    // either the acknowledgement dialog opens (confirmed with Alt+A) or the run is approved at once
    const dialog = page.getByRole("dialog", { name: /Approve/ });
    const approved = page.getByTestId("run-status").filter({ hasText: /^Approved$/ });
    await expect(dialog.or(approved).first()).toBeVisible();
    if (await dialog.isVisible()) await page.keyboard.press("Alt+A");
    await expect(page.getByTestId("run-status")).toHaveText("Approved");

    // the executor claims each step, the reference executor writes it, the outcome is reported
    const run = (await (await page.request.get(`/api/runs/${runId}`)).json()).run;
    for (const step of run.steps as { id: string; digest: string }[]) {
      const claimed = await page.request.post(`/api/v1/runs/${runId}/steps/${step.id}/claim`, { headers: AGENT, data: { digest: step.digest, taskRevision: run.boundTaskRevision } });
      expect(claimed.status(), await claimed.text()).toBe(200);
      const { claim } = await claimed.json();
      const wrote = await page.request.post("/api/v1/demo/effects", { headers: AGENT, data: { runId, stepId: step.id, token: claim.token } });
      expect(wrote.status(), await wrote.text()).toBe(200);
      const out = await page.request.post(`/api/v1/runs/${runId}/steps/${step.id}/outcome`, { headers: AGENT, data: { token: claim.token, status: "succeeded" } });
      expect(out.status(), await out.text()).toBe(200);
    }

    // the ticketing integration reports the ticket reopened (an agent key may not)
    const asAgent = await page.request.post(`/api/v1/tasks/${run.taskId}/events`, { headers: AGENT, data: { type: "reopened" } });
    expect(asAgent.status()).toBe(403);
    const reopened = await page.request.post(`/api/v1/tasks/${run.taskId}/events`, { headers: { ...INTEGRATION, "idempotency-key": `e2e-${runId}` }, data: { type: "reopened", detail: "Customer says the claim is not settled." } });
    expect(reopened.status(), await reopened.text()).toBe(201);
    expect((await reopened.json()).outcomes.find((o: { runId: string }) => o.runId === runId).signals).toEqual(expect.arrayContaining(["reopened", "over_compensation"]));

    // the run page's Outcome section: the counterfactual and what happened afterwards
    await page.reload();
    const outcome = page.getByTestId("run-outcome");
    await expect(outcome.getByTestId("outcome-summary")).toHaveText("The edit moved $500.00 more than the agent proposed; the ticket was reopened the same day.");
    await expect(outcome.getByTestId("outcome-label")).toContainText("Not labelled yet.");

    // a supervisor judges it on the review queue, by keyboard
    const ctx = await browser.newContext({ storageState: STORAGE.supervisor });
    const sup = await ctx.newPage();
    await sup.goto("/outcomes/review");
    await expect(sup.getByRole("heading", { level: 1 })).toHaveText("Did the edit help?");
    const item = sup.getByTestId("review-item").filter({ has: sup.locator(`a[href="/runs/${runId}"]`) });
    await expect(item.getByTestId("outcome-suggestion")).toContainText("They suggest “worse”");
    expect((await new AxeBuilder({ page: sup }).analyze()).violations).toEqual([]);
    await item.getByRole("link", { name: /Ticket #75001/ }).focus();
    await expect(item).toHaveAttribute("aria-current", "true");
    await sup.keyboard.press("3");
    const reason = item.getByLabel("Reason (Enter saves)");
    await expect(reason).toBeFocused();
    await expect(item.getByRole("radio", { name: /Worse/ })).toBeChecked();
    await sup.keyboard.type("Refund beyond the claim; the customer reopened.");
    await sup.keyboard.press("Enter");
    await expect(item).toContainText("labelled worse by Sofia Supervisor");
    // the saved reason lets go of the focus: the queue's keys act on the queue, never retype the reason
    await expect(reason).not.toBeFocused();
    await expect(sup.locator("[data-testid=review-item] h2:focus")).toHaveCount(1);
    await sup.keyboard.press("j");
    await sup.keyboard.press("1");
    await expect(reason).toHaveValue("Refund beyond the claim; the customer reopened.");
    await expect(item).toContainText("labelled worse by Sofia Supervisor");

    // the run page shows the label; insights count it; the corpus carries it
    await sup.goto(`/runs/${runId}`);
    await expect(sup.getByTestId("outcome-label")).toContainText("Labelled worse by Sofia Supervisor: “Refund beyond the claim; the customer reopened.”");
    await sup.goto("/insights");
    const byLabel = sup.getByTestId("edits-by-label");
    await expect(byLabel.getByRole("row", { name: /Worse/ })).not.toContainText(/^Worse0$/);
    await expect(sup.getByTestId("over-by-tool")).toContainText("issue_refund");
    await expect(sup.getByTestId("over-by-operator")).toContainText("Sam Senior");
    const corpus = await sup.request.get("/api/audit/diffs.jsonl?label=worse&signal=reopened");
    expect(corpus.status()).toBe(200);
    const lines = (await corpus.text()).trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { runId: string; label: { label: string }; outcomeRecord: { signals: string[] } });
    const mine = lines.find((l) => l.runId === runId)!;
    expect(mine.label.label).toBe("worse");
    expect(mine.outcomeRecord.signals).toEqual(expect.arrayContaining(["reopened", "over_compensation"]));
    await ctx.close();
  });

  test("operators are refused the review queue (403)", async ({ page }) => {
    const res = await page.goto("/outcomes/review");
    expect(res?.status()).toBe(403);
  });
});
