import AxeBuilder from "@axe-core/playwright";
import { test, expect, type APIRequestContext } from "@playwright/test";
import { createRun } from "./factory";
import { refundWhy, STORAGE } from "./helpers";

/*
 *, done when: an admin raises the refund rule to two approvers in the console; a
 * senior's own $1,500 refund then needs a second person; two people approve; the executor's claim
 * succeeds only after the second approval; the audit shows the policy version and both approvers.
 * The gate policy is global to the e2e database: the rule added here is scoped to the account of
 * the run this spec creates (acc_baltic, ticket #75003), and the spec saves the previous rules
 * back at the end.
 */

const AGENT = { authorization: "Bearer pd_demo_agent_key" };
type Rule = Record<string, unknown> & { id?: string; position?: number };

async function livePolicy(request: APIRequestContext) {
  const res = await request.get("/api/admin/gate-policy");
  expect(res.status()).toBe(200);
  return (await res.json()).live as { version: number; rules: Rule[] };
}

test.describe("gate policy as data and four eyes", () => {
  test("an admin requires two approvers for large refunds; the senior's own refund then needs a second person", async ({ browser, baseURL }) => {
    // three people's sessions, a policy saved and checked with axe, a refund approved twice and
    // executed: about 60 actions, 45–60 s on a busy two-core machine, so more than the default 60 s
    test.setTimeout(150_000);
    const admin = await browser.newContext({ storageState: STORAGE.admin });
    const adminPage = await admin.newPage();
    const before = await livePolicy(adminPage.request);
    const origin = { origin: baseURL! };
    try {
      // 1. The admin adds the rule in the console, dry-runs it and saves a new version.
      await adminPage.goto("/admin/gate-policy");
      await expect(adminPage.getByRole("heading", { name: `Rules of version ${before.version} (draft)` })).toBeVisible();
      expect((await new AxeBuilder({ page: adminPage }).analyze()).violations).toEqual([]);
      await adminPage.getByRole("button", { name: "Add rule" }).click();
      const n = before.rules.length + 1;
      await adminPage.getByLabel(`Rule ${n} tool`).selectOption("issue_refund");
      await adminPage.getByLabel(`Rule ${n} account`, { exact: true }).fill("acc_baltic");
      await adminPage.getByLabel(`Rule ${n} from amount`).fill("1000.00");
      await adminPage.getByLabel(`Rule ${n} decision`).selectOption("two");
      await adminPage.getByLabel(`Rule ${n} note`).fill("Refunds from $1,000 need two approvers");
      // The seeded refund rule requires what seed 001 asks of an irreversible step; the new one keeps that.
      const refundRule = before.rules.findIndex((r) => r.tool === "issue_refund") + 1;
      for (const f of ["title", "evidence", "risk", "stop condition"]) await expect(adminPage.getByLabel(`Rule ${refundRule} requires ${f}`)).toBeChecked();
      await expect(adminPage.getByLabel(`Rule ${refundRule} requires rationale`)).not.toBeChecked();
      for (const f of ["title", "evidence", "risk", "stop condition"]) await adminPage.getByLabel(`Rule ${n} requires ${f}`).check();
      await adminPage.getByLabel(`Rule ${n} date horizon days`).fill("0");
      await adminPage.getByRole("button", { name: "Dry-run" }).click();
      await expect(adminPage.getByTestId(`rule-${n - 1}`).getByRole("alert")).toHaveText("Write a whole number of days from 1 to 3660, e.g. 366.");
      await adminPage.getByLabel(`Rule ${n} date horizon days`).fill("");
      await adminPage.getByRole("button", { name: "Dry-run" }).click();
      await expect(adminPage.getByTestId("dry-run")).toContainText(/of the last \d+ runs would be gated differently/);
      await adminPage.getByLabel("Why it changes").fill("Four eyes on large Baltic refunds (e2e)");
      await adminPage.getByRole("button", { name: `Save as version ${before.version + 1}` }).click();
      await expect(adminPage.getByRole("heading", { name: `Rules of version ${before.version + 1} (draft)` })).toBeVisible();
      await expect(adminPage.getByRole("region", { name: "History" })).toContainText(`Version ${before.version + 1}`);
      const raised = await livePolicy(adminPage.request);
      expect(raised.rules.at(-1)).toMatchObject({ tool: "issue_refund", accountId: "acc_baltic", minAmountMinor: 100000, decision: "two", authorMayApprove: true, requiredFields: ["title", "evidence", "risk", "stopCondition"], dateHorizonDays: null });

      // 2. A fresh run; the senior adds their own $1,500 refund (an edit: the senior is its author).
      const senior = await browser.newContext({ storageState: STORAGE.senior });
      const seniorPage = await senior.newPage();
      const runId = await createRun(seniorPage.request, "customs-75003");
      const { run } = await (await seniorPage.request.get(`/api/runs/${runId}`)).json();
      const steps = run.steps.map((s: { id: string; tool: string; args: unknown }) => ({ id: s.id, tool: s.tool, args: s.args }));
      steps.push({ id: "x", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 150000, currency: "USD" }, reason: "Goodwill for the customs delay" }, ...refundWhy(run.ticketId, "in_74201") });
      const edit = await seniorPage.request.post(`/api/runs/${runId}/edits`, { data: { baseVersion: run.planVersion, steps }, headers: origin });
      expect(edit.status()).toBe(201);

      // 3. The senior approves everything they may: the refund has 1 of 2 approvals.
      await seniorPage.goto(`/runs/${runId}`);
      await seniorPage.getByTestId("approve-all").click();
      await expect(seniorPage.getByText("1 of 2 approvals · needs one more approver other than Sam Senior")).toBeVisible();
      await expect(seniorPage.getByRole("button", { name: "Approve step 3" })).toBeDisabled();
      await expect(seniorPage.getByText("Disabled: you already approved this step; it needs another person")).toBeVisible();
      expect((await new AxeBuilder({ page: seniorPage }).analyze()).violations).toEqual([]);

      const current = (await (await seniorPage.request.get(`/api/runs/${runId}`)).json()).run;
      const refund = current.steps.find((s: { tool: string }) => s.tool === "issue_refund");
      expect(refund.approvals).toMatchObject({ required: 2, given: 1, approverIds: ["usr_senior"], policyVersion: raised.version });
      const again = await seniorPage.request.post(`/api/runs/${runId}/approvals`, { data: { planVersion: current.planVersion, stepIds: [refund.id], idempotencyKey: `again-${Date.now()}` }, headers: origin });
      expect(again.status()).toBe(409);
      expect((await again.json()).error.code).toBe("already_approved_by_you");

      // 4. The executor cannot claim the refund yet.
      const claim = (stepId: string, digest: string) =>
        seniorPage.request.post(`/api/v1/runs/${runId}/steps/${stepId}/claim`, { headers: { ...AGENT, cookie: "" }, data: { digest, taskRevision: current.boundTaskRevision } });
      const early = await claim(refund.id, refund.digest);
      expect(early.status()).toBe(409);
      expect((await early.json()).error.code).toBe("run_not_approved");

      // 5. The supervisor gives the second approval in the console.
      const supervisor = await browser.newContext({ storageState: STORAGE.supervisor });
      const supPage = await supervisor.newPage();
      await supPage.goto(`/runs/${runId}`);
      await expect(supPage.getByText("1 of 2 approvals · needs one more approver other than Sam Senior")).toBeVisible();
      await expect(supPage.getByTestId("approve-all")).toHaveText("Approve step 3");
      await supPage.getByTestId("approve-all").click();
      await expect(supPage.getByText("2 of 2 approvals · Sam Senior and Sofia Supervisor")).toBeVisible();

      // 6. Now the claims succeed, in plan order.
      for (const step of current.steps as { id: string; digest: string }[]) {
        const res = await claim(step.id, step.digest);
        expect(res.status(), await res.text()).toBe(200);
        const { claim: c } = await res.json();
        const out = await seniorPage.request.post(`/api/v1/runs/${runId}/steps/${step.id}/outcome`, { headers: { ...AGENT, cookie: "" }, data: { token: c.token, status: "succeeded" } });
        expect(out.status()).toBe(200);
      }

      // 7. The audit trail names the policy version and both approvers.
      await supPage.goto(`/runs/${runId}/audit`);
      await expect(supPage.getByText(`(1 of 2 approvals) under gate policy version ${raised.version}`)).toBeVisible();
      await expect(supPage.getByText(`(2 of 2 approvals) under gate policy version ${raised.version}`)).toBeVisible();
      await expect(supPage.getByText(/under the approval of Sam Senior and Sofia Supervisor/)).toBeVisible();
      await senior.close();
      await supervisor.close();
    } finally {
      // Put the previous rules back as a new version, so other specs see the policy they expect.
      const live = await livePolicy(adminPage.request);
      if (live.version !== before.version) {
        const rules = before.rules.map(({ id: _id, position: _p, ...r }) => r);
        const res = await adminPage.request.put("/api/admin/gate-policy", { data: { baseVersion: live.version, rules, note: "e2e: restore" }, headers: origin });
        expect(res.status()).toBe(200);
      }
      await admin.close();
    }
  });
});
