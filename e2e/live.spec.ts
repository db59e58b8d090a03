import { test, expect } from "@playwright/test";
import { createRun } from "./factory";
import { STORAGE } from "./helpers";

// live updates by server push and presence. Two people (two browser contexts) on one run.
test.describe("live console", () => {
  test.use({ storageState: STORAGE.operator });

  test("two people on one run page see each other within 2 s, and one's edit reaches the other's page within 2 s without reload", async ({ browser, page }) => {
    test.setTimeout(180_000);
    const id = await createRun(page.request, "address-74994");
    const other = await browser.newContext({ storageState: STORAGE.supervisor });
    const sofia = await other.newPage();
    await page.goto(`/runs/${id}`);
    await expect(page.getByRole("heading", { name: /Plan · version 1/ })).toBeVisible();
    await sofia.goto(`/runs/${id}`);
    await expect(sofia.getByRole("heading", { name: /Plan · version 1/ })).toBeVisible();

    await expect(page.getByTestId("presence")).toContainText("Sofia Supervisor is viewing", { timeout: 2_000 });
    await expect(sofia.getByTestId("presence")).toContainText("Olivia Operator is viewing", { timeout: 2_000 });

    await sofia.getByRole("button", { name: "Edit plan" }).click();
    await expect(page.getByTestId("presence")).toContainText("Sofia Supervisor is editing", { timeout: 2_000 });

    await sofia.locator('[id="steps.0.args.note"]').fill("Sofia's live note");
    await sofia.getByRole("button", { name: "Save edit" }).click();
    await expect(sofia.getByRole("heading", { name: /Your edit changed 1 thing/ })).toBeVisible();
    // Olivia's page, untouched, shows the new version (pushed, not a reload or the slow poll)
    await expect(page.getByRole("heading", { name: /Plan · version 2/ })).toBeVisible({ timeout: 2_000 });
    await expect(page.getByText("Sofia's live note").first()).toBeVisible({ timeout: 2_000 });

    // Sofia leaves: her presence goes from Olivia's page
    await other.close();
    // Her page says "left" as it closes when the browser lets it; otherwise her presence lapses
    // 30 s after her last heartbeat and the next refresh of Olivia's page drops it.
    await expect(page.getByTestId("presence")).not.toContainText("Sofia Supervisor", { timeout: 45_000 });
  });

  test("a run submitted through the agent API appears in the open queue, marked New and counted in the tab title", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
    await expect(page).toHaveTitle(/^Queue · Plandesk$/);
    const id = await createRun(page.request, "customs-74995");
    const row = page.locator("tr", { has: page.locator(`a[href="/runs/${id}"]`) });
    await expect(row).toBeVisible({ timeout: 2_000 });
    await expect(row.getByText("New", { exact: true })).toBeVisible();
    await expect(page).toHaveTitle(/^\(\d+ new\) Queue · Plandesk$/);
    // listed first: the new runs come before the rest
    await expect(page.locator("tbody tr").first()).toHaveAttribute("data-new", "true");
    await page.getByRole("button", { name: "Mark as seen" }).click();
    await expect(row.getByText("New", { exact: true })).toHaveCount(0);
    await expect(page).toHaveTitle(/^Queue · Plandesk$/);
  });
});
