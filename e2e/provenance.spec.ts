import { test, expect, type APIRequestContext } from "@playwright/test";
import { STORAGE } from "./helpers";

/*
 * What the agent saw, on the card: a run on task_75009 (Oak, invoice in_74901 open $2,650.00)
 * whose refund amount is "computed" from the invoice's open balance and which carries the read the
 * agent made. At submission both are true. Then another run's refund on in_74901 is approved and
 * written (the demo executor's effect), so the open balance moves: the first run's card now shows
 * the formula as a mismatch ("claimed $265.00, formula gives …") instead of a fact, and the
 * collapsed "The agent read: …" line says the record changed since. A false formula at submission
 * is refused outright (422 provenance_mismatch).
 */

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

async function submit(request: APIRequestContext, body: Record<string, unknown>) {
  const task = await request.get("/api/v1/tasks/task_75009", { headers: AGENT });
  expect(task.status()).toBe(200);
  const revision = (await task.json()).task.revision as number;
  return request.post("/api/v1/tasks/task_75009/runs", { data: { taskRevision: revision, addition: true, ...body }, headers: { ...AGENT, "idempotency-key": `e2e-prov-${Date.now()}-${Math.random()}` } });
}

const refund = (id: string, minor: number, over: Record<string, unknown> = {}) => ({
  id,
  tool: "issue_refund",
  args: { invoiceId: "in_74901", amount: { minor, currency: "USD" }, reason: "Redelivery never attempted" },
  title: "Refund the redelivery",
  rationale: "The first attempt was never made",
  risk: "Money leaves the company",
  stopCondition: "The invoice was refunded meanwhile",
  evidence: [{ recordType: "invoice", recordId: "in_74901" }],
  ...over,
});

test.describe("provenance, reads and evidence on the card", () => {
  test.use({ storageState: STORAGE.senior });

  test("a false formula is refused at submission; a formula the world moved under shows as a mismatch, with the reads collapsed above the writes", async ({ page, baseURL }) => {
    // 1. A false calculation never reaches a card.
    const lie = await submit(page.request, { steps: [refund("r1", 150000, { provenance: { amount: { kind: "computed", formula: "265000 * 2 / 6" } } })] });
    expect(lie.status()).toBe(422);
    expect(JSON.stringify(await lie.json())).toContain("claimed $1,500.00, formula gives $883.33");

    // 2. A true one, with the read the agent made.
    const ok = await submit(page.request, {
      steps: [
        { id: "rd1", kind: "read", tool: "read_invoice", args: { invoiceId: "in_74901" }, status: "ok", observed: { openMinor: 265000, status: "open" } },
        refund("r1", 26500, { evidence: [{ readStepId: "rd1" }], provenance: { amount: { kind: "computed", formula: "in_74901.openMinor * 10%" } } }),
      ],
    });
    expect(ok.status(), await ok.text()).toBe(201);
    const runId = (await ok.json()).run.id as string;
    await page.goto(`/runs/${runId}`);
    const reads = page.getByTestId("agent-reads");
    await expect(reads).toContainText("The agent read: invoice in_74901");
    await expect(reads.getByTestId("read-rd1")).toBeHidden(); // collapsed
    await expect(page.getByTestId("provenance-check").first()).toHaveAttribute("data-status", "checked");
    await expect(page.getByTestId("step-completeness-r1")).toContainText("5 of 5 filled");

    // 3. Another run's refund of $100.00 on the same invoice is approved and written.
    const other = await submit(page.request, { steps: [refund("r2", 10000)] });
    expect(other.status(), await other.text()).toBe(201);
    const otherRun = (await other.json()).run;
    const approved = await page.request.post(`/api/runs/${otherRun.id}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-prov-${otherRun.id}` }, headers: { origin: baseURL! } });
    expect(approved.status(), await approved.text()).toBeLessThan(300);
    const step = otherRun.steps[0];
    const claim = await page.request.post(`/api/v1/runs/${otherRun.id}/steps/r2/claim`, { data: { digest: step.digest, taskRevision: otherRun.boundTaskRevision }, headers: { ...AGENT, "idempotency-key": `e2e-prov-claim-${otherRun.id}` } });
    expect(claim.status(), await claim.text()).toBe(200);
    const token = (await claim.json()).claim.token as string;
    const wrote = await page.request.post("/api/v1/demo/effects", { data: { runId: otherRun.id, stepId: "r2", token }, headers: AGENT });
    expect(wrote.status(), await wrote.text()).toBeLessThan(300);
    const reported = await page.request.post(`/api/v1/runs/${otherRun.id}/steps/r2/outcome`, { data: { token, status: "succeeded" }, headers: AGENT });
    expect(reported.status(), await reported.text()).toBe(200);

    // 4. The first run's card: the formula no longer gives the amount, and the read is out of date.
    await page.goto(`/runs/${runId}`);
    const mark = page.getByTestId("provenance-check").first();
    await expect(mark).toHaveAttribute("data-status", "mismatch");
    await expect(mark).toContainText("claimed $265.00, formula gives $255.00");
    await expect(reads).toContainText("1 changed since");
    await reads.locator("summary").click();
    await expect(reads.getByTestId("read-rd1")).toContainText("The agent saw an open balance of $2,650.00 on invoice in_74901; it is $2,550.00 now");
  });
});
