import { spawn } from "node:child_process";
import { test, expect } from "@playwright/test";
import { STORAGE } from "./helpers";

// The simulator plays agent and executor against the production build while a person approves in
// the browser: plans arrive, the refund waits for the person, then executes step by step; every
// injected fault ends in its typed refusal and nothing runs twice (the simulator's own checks).
test.describe("agent simulator against the console", () => {
  test.use({ storageState: STORAGE.senior });
  test.setTimeout(240_000);

  test("one pass with every fault passes, with the refund approved in the browser", async ({ page, baseURL, browser }) => {
    const output: string[] = [];
    const sim = spawn("npx", ["tsx", "scripts/simulate.ts", "--url", baseURL!, "--once", "--fault", "all", "--wait-seconds", "120"], {
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    sim.stdout.on("data", (d) => output.push(String(d)));
    sim.stderr.on("data", (d) => output.push(String(d)));
    const exited = new Promise<number>((resolve) => sim.on("exit", (code) => resolve(code ?? 1)));

    // The refund for ticket #75018 (no other spec submits on it: a new plan would supersede this one)
    // arrives in the queue and waits for a person.
    await page.goto("/runs");
    await expect(page.getByRole("link", { name: "#75018" })).toBeVisible({ timeout: 90_000 });
    await page.getByRole("link", { name: "#75018" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #75018");
    await expect(page.getByTestId("approve-all")).toHaveText(/^Approve /);
    await page.getByTestId("approve-all").click();
    await expect(page.getByTestId("run-status")).toHaveText(/Approved|Executing|Completed/);

    const code = await exited;
    expect(code, output.join("")).toBe(0);
    await page.reload();
    await expect(page.getByTestId("run-status")).toHaveText("Completed");
    await expect(page.getByText("executor: succeeded").first()).toBeVisible();

    // The lost outcome waits for a supervisor; the supervisor records what happened.
    const sup = await browser.newContext({ storageState: STORAGE.supervisor });
    const sp = await sup.newPage();
    await sp.goto("/reconciliation");
    const row = sp.getByRole("row").filter({ hasText: "Outcome unknown" }).first();
    await expect(row).toBeVisible();
    await row.getByRole("link").click();
    const panel = sp.getByRole("region", { name: "Needs reconciliation" });
    await panel.getByLabel("It was written").check();
    await panel.getByLabel("How you found out").fill("Checked the carrier portal: the note is there.");
    await panel.getByRole("button", { name: "Record resolution" }).click();
    await expect(sp.getByRole("region", { name: "Needs reconciliation" })).toHaveCount(0);
    await sup.close();
  });
});
