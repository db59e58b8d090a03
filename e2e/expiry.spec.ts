import { test, expect } from "@playwright/test";
import { STORAGE } from "./helpers";

// Hardening round two, case 18 in the browser: expiry is exact. At `expiresAt`, on the server's
// clock, the decision buttons disable at once (no wait for a refetch or the sweep) and the header
// says "expired just now", never "expires expired 0 min ago". The browser's clock is set an hour
// behind the server's, so only the offset measured from the page gets it right; Playwright's clock
// moves the browser's time forward instead of waiting. Ticket 75020 is used by no other spec.

const AGENT = { authorization: "Bearer pd_demo_agent_key" };

test.describe("expiry in the browser (hardening case 18)", () => {
  test.use({ storageState: STORAGE.senior });

  test("at expiresAt the decision buttons disable at once, on the server's clock, with the right words", async ({ page, baseURL }) => {
    const t = "75020";
    const task = await (await page.request.get(`/api/v1/tasks/task_${t}`, { headers: AGENT })).json();
    const res = await page.request.post(`/api/v1/tasks/task_${t}/runs`, {
      headers: AGENT,
      data: { taskRevision: task.task.revision, expiresInSeconds: 60, steps: [{ id: "r1", tool: "send_reply", args: { ticketId: t, body: "The cold chain of sh_5631 is confirmed." } }] },
    });
    expect(res.status(), await res.text()).toBe(201);
    const run = (await res.json()).run as { id: string; expiresAt: string };

    // the browser's clock runs an hour behind the server's
    await page.clock.install({ time: Date.now() - 3_600_000 });
    await page.goto(`/runs/${run.id}`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const approve = page.getByTestId("approve-all");
    const reject = page.getByRole("button", { name: "Reject…" });
    const words = page.getByTestId("run-expiry");
    await expect(words).toHaveText("expires in under a minute");
    await expect(approve).toBeEnabled();
    await expect(reject).toBeEnabled();

    // Two seconds before expiresAt on the server's clock (browser time plus the hour measured at
    // hydration), with the browser's time stopped there: still open. Then, the time running again,
    // a few seconds past expiresAt: closed at once, by the browser's clock alone — the server,
    // whose clock is real, still has the run pending for most of a minute. (The offset, measured
    // from the rendered page, errs late by the page's own latency, never early.)
    const expiresAtMs = new Date(run.expiresAt).getTime();
    await page.clock.pauseAt(expiresAtMs - 3_600_000 - 2_000);
    await expect(approve).toBeEnabled();
    await expect(reject).toBeEnabled();
    await expect(words).toHaveText("expires in under a minute");
    await page.clock.resume();
    await page.clock.fastForward(5_000);
    await expect(approve).toBeDisabled();
    await expect(reject).toBeDisabled();
    await expect(words).toHaveText("expired just now");
    await expect(page.getByRole("note").filter({ hasText: "This run expired just now; it can no longer be approved." })).toBeVisible();
    await expect(page.getByTestId("deadline-badge").first()).toHaveText("expired");
    await expect(page.locator("main")).not.toContainText("expires expired");

    // and the words keep up with the time
    await page.clock.fastForward("03:00");
    await expect(words).toHaveText("expired 3 min ago");
    await expect(approve).toBeDisabled();

    // On the server the run is still within its 60 s: reject it, so the desk keeps no expired run
    // (the queue's "expired" view is expected empty by e2e/skeleton.spec.ts).
    const rejected = await page.request.post(`/api/runs/${run.id}/rejections`, { data: { planVersion: 1, reason: "Expiry check done; not needed." }, headers: { origin: baseURL! } });
    expect(rejected.status(), await rejected.text()).toBe(201);
  });
});
