import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "@playwright/test";
import { createRun } from "./factory";
import { STORAGE } from "./helpers";

/*
 * cancel_shipment end to end on the demo desk, ticket #75021 (Hanse Parts withdrew an order):
 * the demo agent submits the seeded plan through the agent API (cancel sh_5691, not yet
 * dispatched, and a reply); a senior operator sees "sh_5691 cancelled" before approving, edits
 * the reason in the console, approves; the executor claims each step and the reference executor
 * writes it; the audit trail shows expected vs actual, and they agree. A plan that cancels
 * sh_5692 (already in transit) is refused with a typed issue.
 */

const AGENT = { authorization: "Bearer pd_demo_agent_key", cookie: "" };

test.describe("cancel_shipment, senior operator", () => {
  test.use({ storageState: STORAGE.senior });

  test("submit, preview, edit, approve, claim, write: sh_5691 is cancelled and expected agrees with actual", async ({ page }) => {
    const runId = await createRun(page.request, "cancel-75021");
    await page.goto(`/runs/${runId}`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #75021");
    const steps = page.getByRole("list", { name: "Plan steps" });

    // before approval: the effects preview says what the step will do
    await expect(steps.getByRole("region", { name: "After step 1" })).toContainText("sh_5691 cancelled");

    // the operator edits the reason in the console form (the tool's one schema serves the form)
    await page.getByRole("button", { name: "Edit plan" }).click();
    const reason = page.locator('[id="steps.0.args.reason"]');
    await reason.fill("");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText("Reason is required").first()).toBeVisible();
    await reason.fill("Order 8812 withdrawn; confirmed with the customer by phone");
    await page.getByRole("button", { name: "Save edit" }).click();
    const effects = page.getByRole("region", { name: /The account after each step/ });
    await expect(effects.getByRole("listitem", { name: "After step 1" })).toContainText("sh_5691 cancelled");
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.getByRole("button", { name: "Back to the plan" }).click();

    // approve: an irreversible tool always needs a person
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");

    // the executor claims each step, the reference executor writes it, the outcome is reported
    const run = (await (await page.request.get(`/api/runs/${runId}`)).json()).run;
    expect(run.planVersion).toBe(2);
    const cancel = run.steps.find((s: { tool: string }) => s.tool === "cancel_shipment");
    expect(cancel.args).toEqual({ shipmentId: "sh_5691", reason: "Order 8812 withdrawn; confirmed with the customer by phone" });
    for (const step of run.steps as { id: string; tool: string; digest: string }[]) {
      const claimed = await page.request.post(`/api/v1/runs/${runId}/steps/${step.id}/claim`, { headers: AGENT, data: { digest: step.digest, taskRevision: run.boundTaskRevision } });
      expect(claimed.status(), await claimed.text()).toBe(200);
      const { claim } = await claimed.json();
      const wrote = await page.request.post("/api/v1/demo/effects", { headers: AGENT, data: { runId, stepId: step.id, token: claim.token } });
      expect(wrote.status(), await wrote.text()).toBe(200);
      if (step.tool === "cancel_shipment") {
        expect((await wrote.json()).effect).toMatchObject({ summary: "Cancelled sh_5691.", record: { type: "shipment", id: "sh_5691", after: { status: "cancelled" } } });
      }
      const out = await page.request.post(`/api/v1/runs/${runId}/steps/${step.id}/outcome`, { headers: AGENT, data: { token: claim.token, status: "succeeded" } });
      expect(out.status(), await out.text()).toBe(200);
    }

    // the audit trail: expected at approval vs actual, and they agree
    await page.goto(`/runs/${runId}/audit`);
    const approved = page.locator('[data-testid="audit-event"][data-type="approved"]');
    await expect(approved.getByTestId("approved-effect").filter({ hasText: "sh_5691 cancelled" })).toHaveCount(1);
    const comparison = page.getByTestId("effect-comparison").filter({ hasText: "sh_5691 status" });
    await expect(comparison).toHaveCount(1);
    const row = comparison.getByRole("row").filter({ hasText: "sh_5691 status" });
    await expect(row.getByRole("cell")).toHaveText(["sh_5691 status", "cancelled", "cancelled", /yes|✓|same/i]);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  });

  test("a dispatched shipment is refused with a typed issue on the argument", async ({ request }) => {
    const task = await (await request.get("/api/v1/tasks/task_75021", { headers: AGENT })).json();
    const res = await request.post("/api/v1/tasks/task_75021/runs", {
      headers: AGENT,
      data: { taskRevision: task.task.revision, steps: [{ id: "st_cancel", tool: "cancel_shipment", args: { shipmentId: "sh_5692", reason: "Order withdrawn" }, rationale: "The customer withdrew the order.", title: "Cancel the withdrawn order", evidence: [{ recordType: "shipment", recordId: "sh_5692" }], risk: "A cancelled shipment cannot be restored", stopCondition: "The shipment was dispatched meanwhile" }] },
    });
    expect(res.status()).toBe(422);
    const body = await res.json();
    expect(body.error.code).toBe("validation_failed");
    const issues = (body.error.issues ?? body.error.details?.issues) as { code: string; stage: string; path: string; message: string }[];
    expect(issues).toContainEqual(expect.objectContaining({ code: "shipment_dispatched", stage: "argument_bounds", path: "steps.0.args.shipmentId" }));
  });
});
