import { test, expect, request as playwrightRequest, type Browser } from "@playwright/test";
import { STORAGE } from "./helpers";

/** Signs in a person created during the test, in a fresh browser context. */
async function signInFresh(browser: Browser, email: string, password: string) {
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return { ctx, page };
}

test.describe("admin: people and grants", () => {
  test.use({ storageState: STORAGE.admin });

  test("an admin creates a user and a refund grant; the user signs in; disabling signs them out at once", async ({ page, browser }) => {
    const stamp = Date.now();
    const email = `erin.${stamp}@example.com`;
    const person = `Erin ${stamp}`;
    const password = "erin-initial-pass";
    await page.goto("/runs");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await expect(page.getByRole("heading", { name: "Admin", level: 1 })).toBeVisible();

    // A too-short password is refused on its field; nothing is created.
    const form = page.getByRole("region", { name: "Create a user" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Name").fill(person);
    await form.getByLabel("Role").selectOption("operator");
    await form.getByLabel("Initial password").fill("short");
    await form.getByRole("button", { name: "Create user" }).click();
    await expect(form.getByText("At least 10 characters")).toBeVisible();
    await form.getByLabel("Initial password").fill(password);
    await form.getByRole("button", { name: "Create user" }).click();
    await expect(page.getByRole("link", { name: person, exact: true })).toBeVisible();

    await page.getByRole("link", { name: person, exact: true }).click();
    await expect(page.getByRole("heading", { name: `Grants of ${person}` })).toBeVisible();
    await page.getByLabel("May approve Issue refund").check();
    await page.getByLabel("Approval ceiling for Issue refund", { exact: true }).fill("250.00");
    await page.getByRole("button", { name: "Save Issue refund grant" }).click();
    await expect(page.getByTestId("grant-summary-issue_refund")).toHaveText("approves up to $250.00; may not author");
    await page.reload();
    await expect(page.getByTestId("grant-summary-issue_refund")).toHaveText("approves up to $250.00; may not author");

    const erin = await signInFresh(browser, email, password);
    await expect(erin.page.getByRole("heading", { name: "Queue" })).toBeVisible();
    await expect(erin.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);

    await page.goto("/admin/users");
    await page.getByRole("button", { name: `Disable ${person}` }).click();
    await page.getByRole("group", { name: `Confirm disabling ${person}` }).getByRole("button", { name: "Confirm disable" }).click();
    await expect(page.getByRole("button", { name: `Enable ${person}` })).toBeVisible();

    await erin.page.goto("/runs");
    await expect(erin.page).toHaveURL(/\/sign-in/);
    await erin.ctx.close();
  });

  test("an agent's new API key is shown once, then only its prefix", async ({ page }) => {
    const name = `E2E bot ${Date.now()}`;
    await page.goto("/admin/agents");
    const form = page.getByRole("region", { name: "Create an agent" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel(/Add ticket note/).check();
    await form.getByRole("button", { name: "Create agent" }).click();
    const card = page.getByRole("region", { name, exact: true });
    await card.getByRole("button", { name: `Create API key for ${name}` }).click();
    const shown = card.getByLabel("New API key");
    await expect(shown).toHaveValue(/^pd_/);
    const key = await shown.inputValue();
    await page.reload();
    await expect(page.getByRole("region", { name, exact: true })).toBeVisible();
    await expect(page.getByText(key)).toHaveCount(0);
    await expect(page.getByRole("region", { name, exact: true }).getByRole("button", { name: `Revoke key ${key.slice(0, 10)}` })).toBeVisible();
  });
});

test.describe("admin pages for other roles", () => {
  test.use({ storageState: STORAGE.operator });

  test("an operator gets no Admin link and a refusal on the admin pages", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
    for (const path of ["/admin/users", "/admin/agents", "/denials"]) {
      await page.goto(path);
      await expect(page.getByTestId("forbidden")).toContainText(/needs/);
    }
  });
});

test.describe("denials", () => {
  test.use({ storageState: STORAGE.supervisor });

  test("a supervisor sees refused authorisations with who, what and what was missing", async ({ page, request }) => {
    // An agent key on the operator API: refused and recorded.
    const res = await request.get("/api/runs", { headers: { authorization: "Bearer pd_demo_agent_key" } });
    expect(res.status()).toBe(401);
    await page.goto("/denials");
    await expect(page.getByRole("heading", { name: "Denials" })).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: "GET /api/runs" }).first();
    await expect(row).toContainText("agent Freight desk agent");
    await expect(row).toContainText("a person's session");
  });

  test("signed-out refusals are counted per address, route and minute, with the Origin bounded", async ({ page, baseURL }) => {
    const anonymous = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const origin = `https://${"z".repeat(4000)}.example`;
    for (let i = 0; i < 5; i++) {
      const res = await anonymous.post("/api/notifications/read", { headers: { origin }, data: { ids: [] } });
      expect(res.status()).toBe(403);
    }
    await anonymous.dispose();
    await page.goto("/denials");
    const counted = page.getByRole("region", { name: "Counted refusals (scrolls sideways)" });
    const rows = counted.getByTestId("refusal-count").filter({ hasText: "POST /api/notifications/read" }).filter({ hasText: "zzzz" });
    const row = rows.first();
    await expect(row).toContainText("cross_origin");
    // counted per minute: the five may straddle a minute boundary, so every minute's row is summed
    const counts = await rows.evaluateAll((trs) => trs.map((tr) => Number((tr.querySelector("td:last-child")?.textContent ?? "0").replace(/,/g, ""))));
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    expect((await row.innerText()).length).toBeLessThan(400); // the 4,000-character Origin is not shown whole
  });
});
