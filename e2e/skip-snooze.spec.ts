import { test, expect, type Page } from "@playwright/test";
import { STORAGE } from "./helpers";

// Skip and snooze (docs/design.md "Skip and snooze"): a person skips a run → the next waiting run
// opens; approve & next (Shift+A) then never brings the skipped run back; once the run changes (an
// edit by someone else) it is in their next again. Its task is its own: opened through the
// ticketing door with a ticket id nobody else uses (a seeded ticket is not safe: the simulator
// spec executes a plan on 75015, and an executing plan of the task asks the approver to
// acknowledge it). Its two runs are additions submitted one after the other with deadlines a
// second apart (far from other specs' and the seeded runs'), so without the skip the run skipped
// is exactly the next after the other.

const AGENT = { authorization: "Bearer pd_demo_agent_key" };
const INTEGRATION = { authorization: "Bearer pd_demo_integration_key" };
const TICKET = `e2e-skip-${Date.now()}`;
const SHOTS = process.env.PLANDESK_SHOTS_DIR; // screenshots for review, only when asked for

test.use({ storageState: STORAGE.senior, locale: "en-US" });

let taskId = "";
async function submit(page: Page, expiresInSeconds: number, body: string): Promise<string> {
  if (!taskId) {
    const opened = await page.request.post("/api/v1/tasks", {
      headers: INTEGRATION,
      data: { ticketId: TICKET, accountId: "acc_baltic", subject: "Reefer plug-in fee", parts: [{ source: "system", text: "Question on the REEFER_PLUGIN fee of in_74201." }], contract: { intent: "question", constraints: {} } },
    });
    expect(opened.status(), await opened.text()).toBe(201);
    taskId = (await opened.json()).task.id;
  }
  const task = await (await page.request.get(`/api/v1/tasks/${taskId}`, { headers: AGENT })).json();
  const res = await page.request.post(`/api/v1/tasks/${taskId}/runs`, {
    headers: AGENT,
    data: { taskRevision: task.task.revision, addition: true, expiresInSeconds, steps: [{ id: "reply", tool: "send_reply", args: { ticketId: TICKET, body } }] },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).run.id;
}

const nextAfter = async (page: Page, runId: string) => ((await (await page.request.get(`/api/runs/${runId}/next`)).json()).next?.id ?? null) as string | null;

test("skip a run: the next opens, Shift+A never brings it back, and it returns once the run changes", async ({ page, browser, baseURL }) => {
  // submitted in deadline order, so the skipped run's deadline is surely after the other's
  const other = await submit(page, 5200, "Thank you: we are looking into it.");
  const skipped = await submit(page, 5201, "We are checking this with the carrier and will write again today.");
  expect(await nextAfter(page, other)).toBe(skipped); // without the skip, it is the next after the other

  // skip by keyboard: the next waiting run opens, with the focus on its heading (never <body>)
  await page.goto(`/runs/${skipped}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Ticket #${TICKET}`);
  await page.locator('html[data-shortcuts~="skip"]').waitFor({ state: "attached" });
  if (SHOTS) {
    await page.getByRole("button", { name: "Snooze…" }).click();
    await expect(page.getByRole("group", { name: "Snooze until" })).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/run-snooze-1366.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/run-snooze-390.png` });
    await page.keyboard.press("Escape");
    await page.setViewportSize({ width: 1366, height: 900 });
  }
  await page.keyboard.press("n");
  await expect(page).not.toHaveURL(new RegExp(`/runs/${skipped}$`));
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();

  // the queue marks it as skipped, for this person
  await page.goto("/runs");
  const row = page.getByRole("row").filter({ has: page.locator(`a[href="/runs/${skipped}"]`) });
  await expect(row.getByTestId("parked-badge")).toContainText("skipped by you until it changes");
  if (SHOTS) {
    await row.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/queue-parked-1366.png` });
  }

  // approve & next on the other run: it is approved, and the skipped run does not open
  await page.goto(`/runs/${other}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Ticket #${TICKET}`);
  await page.locator('html[data-shortcuts~="approveNext"]').waitFor({ state: "attached" });
  await page.keyboard.press("Shift+A");
  await expect(page).not.toHaveURL(new RegExp(`/runs/${other}$`));
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  expect(page.url()).not.toContain(skipped);
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
  expect(((await (await page.request.get(`/api/runs/${other}`)).json()).run as { status: string }).status).toBe("approved");

  // someone else edits the skipped run: it is back in this person's next, unmarked in the queue
  const operator = await browser.newContext({ storageState: STORAGE.operator });
  const view = (await (await operator.request.get(`/api/runs/${skipped}`)).json()).run as { planVersion: number; steps: { id: string; tool: string; args: Record<string, unknown> }[] };
  const steps = view.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, body: "We are checking this with the carrier; you will hear from us today." } }));
  const edited = await operator.request.post(`/api/runs/${skipped}/edits`, { headers: { origin: baseURL! }, data: { baseVersion: view.planVersion, steps } });
  expect(edited.status(), await edited.text()).toBe(201);
  await operator.close();
  expect(await nextAfter(page, other)).toBe(skipped);
  await page.goto("/runs");
  await expect(page.locator(`a[href="/runs/${skipped}"]`).first()).toBeVisible();
  await expect(page.getByRole("row").filter({ has: page.locator(`a[href="/runs/${skipped}"]`) }).getByTestId("parked-badge")).toHaveCount(0);
});
