import AxeBuilder from "@axe-core/playwright";
import { test, expect, type APIRequestContext } from "@playwright/test";
import { STORAGE } from "./helpers";

/*
 * Two plans for one task (docs/design.md "The moment of the write"): the agent's run A is approved
 * and being executed (a step claimed), then the agent submits run B for the same task. B's decision
 * card says "Another plan for this task is being executed: run A (Executing)" with a link and a
 * checkbox, the queue marks B's row in words, approving B is refused 409
 * concurrent_run_unacknowledged without the acknowledgement (over the API as in the console), and
 * with the box ticked B is approved and its audit names what was acknowledged. Ticket #75011
 * (Polar, "Certificate uploaded"): no other spec plans for it. Run A is completed at the end, so a
 * second run of the spec on the same database starts from a task with nothing being executed.
 */

const AGENT = { authorization: "Bearer pd_demo_agent_key" };
const TASK = "task_75011";
type Json = Record<string, any>;

/** A note (auto-approved by the seeded policy) and a reply a person approves, on ticket #75011. */
const steps = (tag: string) => [
  { id: "st_note", tool: "add_ticket_note", args: { ticketId: "75011", note: `Certificate checked against the shipment (${tag}).` } },
  { id: "st_reply", tool: "send_reply", args: { ticketId: "75011", body: "Thanks, we received the certificate and released the shipment." } },
];

async function submit(request: APIRequestContext, tag: string): Promise<Json> {
  const { task } = await (await request.get(`/api/v1/tasks/${TASK}`, { headers: AGENT })).json();
  const res = await request.post(`/api/v1/tasks/${TASK}/runs`, { headers: AGENT, data: { taskRevision: task.revision, steps: steps(tag) } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).run;
}

/** The executor claims `stepId` of `run` (and, with `report`, reports it written). */
async function claim(request: APIRequestContext, run: Json, stepId: string, report = false) {
  const step = run.steps.find((s: Json) => s.id === stepId);
  const res = await request.post(`/api/v1/runs/${run.id}/steps/${stepId}/claim`, { headers: AGENT, data: { digest: step.digest, taskRevision: run.boundTaskRevision } });
  expect(res.status(), await res.text()).toBe(200);
  const { claim: c } = await res.json();
  if (report) expect((await request.post(`/api/v1/runs/${run.id}/steps/${stepId}/outcome`, { headers: AGENT, data: { token: c.token, status: "succeeded" } })).status()).toBe(200);
  return c.token as string;
}

test.describe("another plan for the task is being executed", () => {
  test("the card and the queue say so, and approving needs it acknowledged", async ({ browser, baseURL }) => {
    const senior = await browser.newContext({ storageState: STORAGE.senior });
    const page = await senior.newPage();
    const origin = { origin: baseURL! };

    // Run A: approved, its note claimed (not yet reported): being executed.
    const a = await submit(page.request, "A");
    const approvedA = await page.request.post(`/api/runs/${a.id}/approvals`, { headers: origin, data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-${a.id}` } });
    expect(approvedA.status(), await approvedA.text()).toBe(201);
    const noteToken = await claim(page.request, a, "st_note");

    // Run B for the same task: A is not superseded (its writes are under way), B is waiting.
    const b = await submit(page.request, "B");
    expect(b.status).toBe("pending_review");

    // The card: the other run, linked, with its status in words, and the checkbox approving needs.
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`/runs/${b.id}`);
    await page.locator('html[data-shortcuts~="approve"]').waitFor();
    const notice = page.getByTestId("concurrent-runs");
    await expect(notice).toContainText(`Another plan for this task is being executed: run ${a.id} (Executing).`);
    await expect(notice.getByRole("link", { name: `run ${a.id}` })).toHaveAttribute("href", `/runs/${a.id}`);
    const ack = notice.getByRole("checkbox", { name: /I acknowledge that another plan for this task is being executed/ });
    await expect(ack).not.toBeChecked();
    await expect(page.getByTestId("approve-all")).toBeDisabled();
    await expect(page.getByTestId("decision-summary")).toContainText("acknowledge the other plan being executed first");
    expect((await new AxeBuilder({ page }).include("main").analyze()).violations).toEqual([]);
    const card = page.locator('section[aria-labelledby="decide-h"]');
    await card.screenshot({ path: "test-results/concurrent-plans/card-1366.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(notice).toBeVisible();
    await card.screenshot({ path: "test-results/concurrent-plans/card-390.png" });
    await page.setViewportSize({ width: 1366, height: 900 });

    // The queue marks B's row in words; A's row (executing) is not marked.
    await page.goto(`/runs?status=all&q=75011`);
    const rowOf = (id: string) => page.locator("tr", { has: page.locator(`a[href="/runs/${id}"]`) });
    await expect(rowOf(b.id).getByTestId("concurrent-run-badge")).toHaveText("another plan for this task is being executed");
    await expect(rowOf(a.id)).toBeVisible();
    await expect(rowOf(a.id).getByTestId("concurrent-run-badge")).toHaveCount(0);
    await rowOf(b.id).screenshot({ path: "test-results/concurrent-plans/queue-row-1366.png" });
    // On a phone the row is a card, marked the same way.
    await page.setViewportSize({ width: 390, height: 844 });
    const cardOf = (id: string) => page.getByRole("list", { name: "Runs" }).locator("li", { has: page.locator(`a[href="/runs/${id}"]`) });
    await expect(cardOf(b.id).getByTestId("concurrent-run-badge")).toHaveText("another plan for this task is being executed");
    await cardOf(b.id).screenshot({ path: "test-results/concurrent-plans/queue-card-390.png" });
    await page.setViewportSize({ width: 1366, height: 900 });
    const listed = (await (await page.request.get("/api/runs?status=pending_review&q=75011")).json()).runs.find((r: Json) => r.id === b.id);
    expect(listed.concurrentRuns).toEqual([{ id: a.id, status: "executing" }]);

    // A person's approval over the API without the acknowledgement: refused, nothing approved.
    const refused = await page.request.post(`/api/runs/${b.id}/approvals`, { headers: origin, data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-${b.id}-noack` } });
    expect(refused.status()).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: "concurrent_run_unacknowledged", runs: [{ id: a.id, status: "executing" }] });

    // In the console: tick the box, approve.
    await page.goto(`/runs/${b.id}`);
    await page.locator('html[data-shortcuts~="approve"]').waitFor();
    await page.getByTestId("concurrent-runs").getByRole("checkbox").check();
    await expect(page.getByTestId("approve-all")).toBeEnabled();
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText("Approved");
    const audit = await (await page.request.get(`/api/runs/${b.id}/audit`)).json();
    const approved = audit.events.filter((e: Json) => e.type === "approved");
    expect(approved.map((e: Json) => e.data.concurrentRunsAcknowledged)).toEqual([[{ id: a.id, status: "executing" }]]);

    // A finishes: the note reported, the reply claimed and reported; nothing of this task is being executed any more.
    expect((await page.request.post(`/api/v1/runs/${a.id}/steps/st_note/outcome`, { headers: AGENT, data: { token: noteToken, status: "succeeded" } })).status()).toBe(200);
    await claim(page.request, a, "st_reply", true);
    expect((await (await page.request.get(`/api/runs/${a.id}`)).json()).run.status).toBe("completed");
    expect((await (await page.request.get(`/api/runs/${b.id}`)).json()).concurrentRuns).toEqual([]);
    await senior.close();
  });
});
