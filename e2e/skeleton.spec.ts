import { test, expect } from "@playwright/test";
import { createRun } from "./factory";
import AxeBuilder from "@axe-core/playwright";
import { signInAs, STORAGE } from "./helpers";

test.describe("signed out", () => {
  test("a signed-out visitor is sent to the sign-in page", async ({ page }) => {
    await page.goto("/runs");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fruns/);
    await expect(page.getByRole("heading", { name: "Sign in to Plandesk" })).toBeVisible();
  });

  test("a wrong password gets one clear message that does not say which part was wrong", async ({ page }) => {
    await signInAs(page, "operator", "not-the-password");
    await expect(page.locator("form").getByRole("alert")).toHaveText("Email or password is incorrect.");
    await expect(page).toHaveURL(/\/sign-in/);
  });
});

test.describe("operator", () => {
  test.use({ storageState: STORAGE.operator });

  test("opens the queue and the reference run of ticket #74991 with its three steps", async ({ page }) => {
    // the reference case as the agent proposes it (supersedes whatever run the task had before)
    const runId = await createRun(page.request, "ref-74991");
    await page.goto("/runs");
    const link = page.locator(`a[href="/runs/${runId}"]`);
    const row = page.getByRole("row").filter({ has: link });
    await expect(row).toContainText("Nordkapp Logistics");
    await expect(row.getByRole("cell").nth(4)).toHaveText("3"); // after Ticket, Account, Agent, At stake
    await link.click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ticket #74991");
    const steps = page.getByRole("list", { name: "Plan steps" }).getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3 }) });
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText("add_ticket_note");
    await expect(steps.nth(1)).toContainText("reschedule_delivery");
    await expect(steps.nth(1)).toContainText("Needs approval");
    await expect(steps.nth(2)).toContainText("send_reply");
    await expect(page.getByRole("heading", { name: "Nordkapp Logistics" })).toBeVisible();
  });

  test("the queue filters by status and sorts by column", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByRole("link", { name: "#74996" })).toBeVisible();
    await page.getByLabel("Status").selectOption("expired");
    // while the new status loads, the previous rows stay (never "0 runs"); then the empty state of this view
    const empty = page.getByTestId("queue-empty");
    await expect(empty).toHaveText(/No run is expired\./);
    await empty.getByRole("button", { name: "Clear filters" }).click();
    await expect(page.getByLabel("Status")).toHaveValue("pending_review");
    await expect(page.getByRole("link", { name: "#74996" })).toBeVisible();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.getByRole("button", { name: /Ticket/ }).click();
    const first = page.getByRole("row").nth(1).getByRole("link");
    await expect(first).toHaveText(/#7499\d/);
  });

  test("on a slow network the queue keeps its rows while another status loads, and a first load shows a skeleton, not \"0 runs\"", async ({ page }) => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await page.goto("/runs");
    await expect(page.getByRole("link", { name: "#74996" })).toBeVisible();
    await page.route("**/api/runs?*", async (route) => {
      await gate;
      await route.continue();
    });
    await page.getByLabel("Status").selectOption("approved");
    await expect(page.getByTestId("queue-count")).toContainText("Refreshing");
    await expect(page.getByRole("link", { name: "#74996" })).toBeVisible(); // the previous rows stay
    await expect(page.getByText(/^0 runs/)).toHaveCount(0);
    release();
    await expect(page.getByTestId("queue-count")).not.toContainText("Refreshing");
    await page.unroute("**/api/runs?*");
  });

  test("an unknown run id shows a not-found page", async ({ page }) => {
    const res = await page.goto("/runs/run_does_not_exist");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Run not found" })).toBeVisible();
    // inside the app frame: the header and its navigation are there
    await expect(page.getByRole("banner").getByRole("link", { name: "Plandesk" })).toBeVisible();
  });
});
