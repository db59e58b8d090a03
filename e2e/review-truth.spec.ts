import { test, expect, type APIRequestContext } from "@playwright/test";
import { openTaskWithPlan, STORAGE } from "./helpers";

// Issue 14, cases 1–3 end to end: the review tells the truth about moves and re-approval, money
// typed with a decimal comma, and promises hidden behind characters a reviewer cannot see.
// Each test uses its own ticket (no other spec proposes runs for 75012 and 75016; case 2 opens one).

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

async function submit(request: APIRequestContext, ticket: string, steps: unknown[]): Promise<{ id: string; body: Record<string, unknown> }> {
  const task = await (await request.get(`/api/v1/tasks/task_${ticket}`, { headers: AGENT })).json();
  const res = await request.post(`/api/v1/tasks/task_${ticket}/runs`, { headers: AGENT, data: { taskRevision: task.task.revision, steps } });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  return { id: body.run.id, body };
}

test.describe("the review tells the truth (issue 14)", () => {
  test.use({ storageState: STORAGE.senior });

  test("case 1: s1 s4 s3 s2 moves s4 and s2 — the diff, the re-approval line and the approvals the server keeps agree", async ({ page, baseURL }) => {
    const headers = { origin: baseURL! };
    const t = "75016";
    const steps = [
      { id: "s1", tool: "add_ticket_note", args: { ticketId: t, note: "Customer says thanks" } },
      { id: "s2", tool: "escalate_ticket", args: { ticketId: t, team: "billing", note: "Check the last invoice" } },
      { id: "s3", tool: "send_reply", args: { ticketId: t, body: "Thank you for your kind words." } },
      { id: "s4", tool: "send_reply", args: { ticketId: t, body: "We will close this ticket today." } },
    ];
    const { id } = await submit(page.request, t, steps);
    const approved = await page.request.post(`/api/runs/${id}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-moves-${id}` }, headers });
    expect(approved.status(), await approved.text()).toBeLessThan(300);
    const edit = await page.request.post(`/api/runs/${id}/edits`, { data: { baseVersion: 1, steps: [steps[0], steps[3], steps[2], steps[1]] }, headers });
    expect(edit.status(), await edit.text()).toBe(201);
    const result = await edit.json();
    expect(result.diff.moved.map((m: { stepId: string; from: number; to: number }) => [m.stepId, m.from, m.to])).toEqual([
      ["s4", 4, 2],
      ["s2", 2, 4],
    ]);
    expect(result.diff.reapprovalRequired).toEqual(["s4", "s2"]);
    expect(result.reapproval).toBe("re-approval required for step 2 (moved), step 4 (moved)");

    const run = await (await page.request.get(`/api/runs/${id}`)).json();
    expect(run.run.status).toBe("pending_review");
    const diff = await (await page.request.get(`/api/runs/${id}/diff?from=1&to=2`)).json();
    expect(diff.reapproval).toBe(result.reapproval);

    await page.goto(`/runs/${id}`);
    await expect(page.getByTestId("run-status")).toHaveText("Pending review");
    // the moved steps lost their approval, the ones that stayed in order kept it
    const cards = page.getByRole("list", { name: "Plan steps" }).getByRole("listitem").filter({ hasText: /^Step \d/ });
    await expect(cards).toHaveCount(4);
    await expect(cards.nth(2)).toContainText("approved by Sam Senior");
    for (const n of [1, 3]) await expect(cards.nth(n)).not.toContainText("approved by Sam Senior");
  });

  test("case 2: a decimal comma is read as decimals, shown live, stored as typed; bad input says what is wrong, once", async ({ page }) => {
    // a task of its own, opened by the ticketing integration as a refund request
    const { runId: id } = await openTaskWithPlan(page.request, { ticketId: `e2e-decimal-comma-${Date.now()}`, accountId: "acc_rhine", subject: "Duplicate charge", parts: [{ source: "system", text: "in_74311 duplicates in_74310." }], contract: { intent: "refund_request", constraints: {} } }, [
      { id: "r1", tool: "issue_refund", args: { invoiceId: "in_74311", amount: { minor: 1000, currency: "USD" }, reason: "Duplicate charge" }, title: "Refund the duplicate charge", evidence: [{ recordType: "invoice", recordId: "in_74311" }], risk: "Money leaves the company", stopCondition: "The duplicate was credited meanwhile" },
    ]);
    await page.goto(`/runs/${id}`);
    await page.getByRole("button", { name: "Edit plan" }).click();
    const amount = page.locator('[id="steps.0.args.amount"]');
    await expect(amount).toHaveValue("10.00");
    // limited text fields count characters as they are typed
    await expect(page.locator('[id="steps.0.args.reason-count"]')).toHaveText("16 / 1,000 characters");
    await page.locator('[id="steps.0.args.reason"]').fill("Duplicate charge, refunded");
    await expect(page.locator('[id="steps.0.args.reason-count"]')).toHaveText("26 / 1,000 characters");
    await page.locator('[id="steps.0.args.reason"]').fill("Duplicate charge");

    for (const [typed, problem] of [
      ["abc", /in digits/],
      ["1e3", /exponent/],
      ["12.345", /ambiguous/],
      ["99999999999999999", /more than the most/],
      ["0", /more than zero/],
      ["-5", /more than zero/],
    ] as const) {
      await amount.fill(typed);
      await expect(page.getByTestId("money-reading")).toHaveText(problem); // inline, before any save
    }
    // above the viewer's authoring limit and above the invoice's open balance: said inline, before any save
    await amount.fill("2100");
    await expect(page.getByTestId("money-notes")).toHaveText(/above your limit for issue refund \(\$2,000\.00\)/);
    await amount.fill("2500");
    await expect(page.getByTestId("money-notes")).toContainText("more than the open balance of invoice in_74311 ($2,400.00)");
    await amount.fill("10");
    await expect(page.getByTestId("money-notes")).toHaveCount(0);
    await amount.fill("abc");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText(/Enter the amount in digits/)).toHaveCount(1); // one message per problem
    await expect(page.locator('[id="steps.0.args.amount-error"]')).toHaveText(/Enter the amount in digits/);

    await amount.fill("14,89");
    await expect(page.getByTestId("money-reading")).toHaveText(/=\s*\$14\.89/);
    await page.getByRole("button", { name: "Save edit" }).click();
    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review).toContainText("$10.00");
    await expect(review).toContainText("$14.89");
    await expect(review).not.toContainText("1489");
    const stored = await (await page.request.get(`/api/runs/${id}`)).json();
    const step = stored.run.steps.find((s: { id: string }) => s.id === "r1");
    expect(step.args.amount).toEqual({ minor: 1489, currency: "USD" });
  });

  test("case 3: a soft hyphen inside 'refund' and 'no questions asked' still need acknowledgement", async ({ page, baseURL }) => {
    const t = "75012";
    const { id } = await submit(page.request, t, [
      { id: "r1", tool: "send_reply", args: { ticketId: t, body: "we will re\u00ADfund you $150.00 for the missed delivery" } },
      { id: "r2", tool: "send_reply", args: { ticketId: t, body: "we will refund you $150.00 with no questions asked" } },
    ]);
    const details = await (await page.request.get(`/api/runs/${id}`)).json();
    const flagged = details.validation.issues.filter((i: { code: string }) => i.code === "unbacked_commitment").map((i: { stepId: string }) => i.stepId);
    expect(flagged.sort()).toEqual(["r1", "r2"]);
    const refused = await page.request.post(`/api/runs/${id}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-promise-${id}` }, headers: { origin: baseURL! } });
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error.code).toBe("acknowledgement_required");

    await page.goto(`/runs/${id}`);
    await expect(page.getByText(/I acknowledge: The reply promises money/)).toHaveCount(2);
  });

  test("cases 5-6: after approval the review is read-only; a rejection reason is checked in plain words, once", async ({ page }) => {
    const t = "75004";
    const { id } = await submit(page.request, t, [
      { id: "n1", tool: "add_ticket_note", args: { ticketId: t, note: "New contact noted" } },
      { id: "r1", tool: "send_reply", args: { ticketId: t, body: "We have noted your new contact for Oslo deliveries." } },
    ]);
    await page.goto(`/runs/${id}`);
    // rejection: empty and over-long reasons are refused before sending, in plain words, with a counter
    await page.getByRole("button", { name: "Reject…" }).click();
    await page.getByRole("button", { name: "Reject plan" }).click();
    await expect(page.getByText(/Write a reason of at least 3 characters/)).toHaveCount(1);
    await expect(page.getByText("The request body has the wrong shape.")).toHaveCount(0);
    await page.getByLabel("Reason (the agent reads it)").fill("x".repeat(2001));
    await expect(page.getByText("2,001 / 2,000 characters")).toBeVisible();
    await page.getByRole("button", { name: "Reject plan" }).click();
    await expect(page.getByText(/shorten it to 2,000/)).toHaveCount(1);
    await expect(page.getByText(/Too big/)).toHaveCount(0);
    await page.getByRole("button", { name: "Reject…" }).click(); // close the form again

    // edit, then approve from the review: the review collapses to a read-only summary
    await page.getByRole("button", { name: "Edit plan" }).click();
    await page.locator('[id="steps.1.args.body"]').fill("We have noted your new contact for all Oslo deliveries from today.");
    await page.getByRole("button", { name: "Save edit" }).click();
    const review = page.getByRole("region", { name: /Your edit changed/ });
    await expect(review.locator("ins").first()).toContainText("all"); // word-level highlight, not the paragraph twice
    await expect(review.locator("del")).toHaveCount(0);
    await expect(page.getByTestId("approve-all")).toHaveText("Approve step 2");
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    await expect(page.getByTestId("review-approved")).toBeVisible();
    await expect(page.getByRole("button", { name: "Discard my edits" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^Remove step/ })).toHaveCount(0);
  });
});

test.describe("the operator's time zone next to UTC (issue 14)", () => {
  test.use({ storageState: STORAGE.senior, timezoneId: "Europe/Oslo" });

  test("the run's deadline and the audit trail show Oslo time beside UTC", async ({ page }) => {
    const list = await (await page.request.get("/api/runs?status=pending_review")).json();
    const runId = list.runs[0].id as string;
    await page.goto(`/runs/${runId}`);
    const deadline = page.getByText(/expires in .*UTC/).first();
    await expect(deadline).toContainText(/UTC · \d{1,2} \w{3} \d{4}, \d{2}:\d{2} (CET|CEST|GMT\+[12])/);
    await page.goto(`/runs/${runId}/audit`);
    await expect(page.getByTestId("local-time").first()).toHaveText(/ · \d{1,2} \w{3} \d{4}, \d{2}:\d{2} (CET|CEST|GMT\+[12])/);
  });
});
