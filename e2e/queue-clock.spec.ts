import { test, expect } from "@playwright/test";
import { STORAGE } from "./helpers";

// The queue words deadlines and ages on the server's clock: each queue page carries the server's
// `serverNow`, and the browser reads the server's time as its own clock plus the offset measured
// from it. The browser's clock here runs three hours behind the server's; Playwright's clock moves
// it past the queue's 30 s tick (and its refetches) instead of waiting. Ticket 75001 is used by no
// other spec.

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

test.describe("the queue on the server's clock", () => {
  test.use({ storageState: STORAGE.senior });

  test("a browser three hours behind still shows the server's 'expires in' and age, in the table and on phone cards", async ({ page, baseURL }) => {
    const task = await (await page.request.get("/api/v1/tasks/task_75001", { headers: AGENT })).json();
    const res = await page.request.post("/api/v1/tasks/task_75001/runs", {
      headers: AGENT,
      data: { taskRevision: task.task.revision, expiresInSeconds: 7200, steps: [{ id: "note", tool: "add_ticket_note", args: { ticketId: "75001", note: "Queue clock check." } }] },
    });
    expect(res.status(), await res.text()).toBe(201);
    const run = (await res.json()).run as { id: string };
    const listed = await (await page.request.get("/api/runs")).json();
    expect(typeof listed.serverNow).toBe("string"); // the server's clock comes with the page
    expect(Math.abs(new Date(listed.serverNow).getTime() - Date.now())).toBeLessThan(60_000);

    await page.clock.install({ time: Date.now() - 3 * 3_600_000 });
    await page.goto("/runs?status=all");
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const row = page.getByRole("row").filter({ has: page.locator(`a[href="/runs/${run.id}"]`) });
    await expect(row).toContainText(/in (1 h 5\d min|2 h 0 min)/);
    // past the 30 s tick and several refetches, on the browser's (wrong) clock
    await page.clock.runFor(31_000);
    await expect(row).toContainText(/in (1 h 5\d min|2 h 0 min)/);
    await expect(row).not.toContainText(/in [45] h/); // what the browser's own clock would say
    await expect(row).toContainText(/(?<!\d)[01] min ago/);
    await expect(row).not.toContainText(/[23] h \d+ min ago/);

    // the phone cards word it the same way
    await page.setViewportSize({ width: 390, height: 844 });
    const card = page.getByRole("list", { name: "Runs" }).getByRole("listitem").filter({ has: page.locator(`a[href="/runs/${run.id}"]`) });
    await expect(card).toContainText(/expires in (1 h 5\d min|2 h 0 min)/);
    await page.clock.runFor(31_000);
    await expect(card).toContainText(/expires in (1 h 5\d min|2 h 0 min)/);
    await expect(card).not.toContainText(/expires in [45] h/);

    // leave nothing waiting on the desk for other specs' views
    const rejected = await page.request.post(`/api/runs/${run.id}/rejections`, { data: { planVersion: 1, reason: "Queue clock check done." }, headers: { origin: baseURL! } });
    expect(rejected.status(), await rejected.text()).toBe(201);
  });
});
