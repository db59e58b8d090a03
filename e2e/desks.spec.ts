import { test, expect, type Browser } from "@playwright/test";
import { fillWhy, STORAGE } from "./helpers";

/** Signs in a person in a fresh browser context (demo password unless given). */
async function signInFresh(browser: Browser, email: string, password = "plandesk-demo") {
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  return { ctx, page };
}

test.describe("desks: a boundary, not a filter", () => {
  test.use({ storageState: STORAGE.admin });

  test("an admin creates a desk and assigns a new person to it; the person's queue is that desk's (empty)", async ({ page, browser }) => {
    const stamp = Date.now().toString(36);
    const deskId = `e2e-${stamp}`;
    await page.goto("/admin/users");
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Desks" }).click();
    await expect(page).toHaveURL(/\/admin\/desks$/);
    const form = page.getByRole("region", { name: "Create a desk" });
    await form.getByLabel("Desk id").fill("Not A Slug");
    await form.getByLabel("Name").fill(`Desk ${stamp}`);
    await form.getByRole("button", { name: "Create desk" }).click();
    await expect(form.getByText("2–32 lower-case letters, digits or hyphens, starting with a letter")).toBeVisible();
    await form.getByLabel("Desk id").fill(deskId);
    await form.getByRole("button", { name: "Create desk" }).click();
    const desks = page.getByRole("region", { name: /^Desks/ });
    await expect(desks.getByRole("cell", { name: `Desk ${stamp} ${deskId}` })).toBeVisible();

    const email = `desk.${stamp}@example.com`;
    const person = `Dana ${stamp}`;
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users and grants" }).click();
    const create = page.getByRole("region", { name: "Create a user" });
    await create.getByLabel("Email").fill(email);
    await create.getByLabel("Name").fill(person);
    await create.getByLabel("Role").selectOption("operator");
    await create.getByLabel("Desk").selectOption(deskId);
    await create.getByLabel("Initial password").fill("dana-initial-pass");
    await create.getByRole("button", { name: "Create user" }).click();
    const row = page.getByRole("row", { name: new RegExp(person) });
    await expect(row.getByRole("cell", { name: deskId, exact: true })).toBeVisible();

    const dana = await signInFresh(browser, email, "dana-initial-pass");
    await expect(dana.page.getByText(/No run is waiting for review|No run is/).first()).toBeVisible();
    await expect(dana.page.getByRole("link", { name: "#74991" })).toHaveCount(0);

    // Moved to the retail desk on their page: their queue is retail's at once.
    await page.getByRole("link", { name: person, exact: true }).click();
    // Chosen again until the form has hydrated (a choice made in the server-rendered page is reset by hydration).
    await expect(async () => {
      await page.getByLabel("Desk", { exact: true }).selectOption("retail");
      await expect(page.getByRole("button", { name: "Save desk" })).toBeEnabled({ timeout: 1000 });
    }).toPass();
    await page.getByRole("button", { name: "Save desk" }).click();
    await expect(page.getByText(`${person} now works the Retail desk.`)).toBeVisible();
    await dana.page.reload();
    await expect(dana.page.getByRole("link", { name: "#81001" }).first()).toBeVisible();
    await dana.ctx.close();
  });

  test("the retail operator sees only retail runs and cannot reach freight records", async ({ browser }) => {
    const { ctx, page } = await signInFresh(browser, "retail@plandesk.test");
    await expect(page.getByRole("link", { name: "#81001" }).first()).toBeVisible();
    await expect(page.getByRole("link", { name: "#81002" }).first()).toBeVisible();
    await expect(page.getByRole("link", { name: /^#7\d{4}$/ })).toHaveCount(0);

    // A freight run's page is not found; freight records are not found by search.
    const agent = { authorization: "Bearer pd_demo_agent_key" };
    const freightTasks = await (await page.request.get("/api/v1/tasks?ticketId=74991", { headers: agent })).json();
    expect(freightTasks.tasks.length).toBeGreaterThan(0);
    const queue = await (await ctx.request.get("/api/runs?limit=200")).json();
    expect(queue.runs.every((r: { ticketId: string }) => r.ticketId.startsWith("81"))).toBe(true);
    for (const [kind, q] of [["shipment", "sh_55"], ["invoice", "in_74"], ["ticket", "749"], ["account", "acc_h"]]) {
      const found = await (await ctx.request.get(`/api/account-data/${kind}?q=${q}`)).json();
      expect(found.records).toEqual([]);
    }
    const own = await (await ctx.request.get("/api/account-data/shipment?q=sh_81")).json();
    expect(own.records.map((r: { id: string }) => r.id)).toEqual(["sh_8101", "sh_8102"]);

    // In the edit form, naming freight ticket 74991 is refused as not found on this desk.
    await page.getByRole("link", { name: "#81002" }).first().click();
    await page.getByRole("button", { name: "Edit plan" }).click();
    const ticketField = page.locator('[id="steps.1.args.ticketId"]');
    await ticketField.fill("74991");
    await page.getByRole("button", { name: "Save edit" }).click();
    await expect(page.getByText(/Ticket "74991" is not found on this desk/).first()).toBeVisible();
    await expect(page.getByText("Nordkapp Logistics")).toHaveCount(0);
    await ctx.close();
  });

  // Hardening case 2 on the page: a retail edit that adds a reschedule of freight shipment sh_5521
  // and a refund on freight invoice in_74119 learns only "not found on this desk" — no window,
  // owner, address or balance, in the suggestions, the messages or the run page. Nothing is saved.
  test("a retail edit naming freight records discloses nothing of them: not in suggestions, messages or the preview", async ({ browser }) => {
    const { ctx, page } = await signInFresh(browser, "retail@plandesk.test");
    await page.getByRole("link", { name: "#81002" }).first().click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("#81002");
    const main = page.locator("main");
    await page.getByRole("button", { name: "Edit plan" }).click();

    await page.getByLabel("Add step").selectOption("reschedule_delivery");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    const shipment = page.locator('[id="steps.2.args.shipmentId"]');
    // the suggestions for "sh_55" come from the retail desk only: none
    const searched = page.waitForResponse((r) => r.url().includes("/api/account-data/shipment?q=sh_55"));
    await shipment.fill("sh_55");
    expect(await (await searched).json()).toEqual({ records: [] });
    await expect(page.locator(`datalist:has(option) option[value^="sh_55"]`)).toHaveCount(0);
    await shipment.fill("sh_5521");
    const when = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    await page.locator('[id="steps.2.args.window.from"]').fill(when);
    await page.locator('[id="steps.2.args.window.to"]').fill(when);
    await page.locator('[id="steps.2.args.reason"]').fill("Customer asked for a later date");

    await page.getByLabel("Add step").selectOption("issue_refund");
    await page.getByRole("button", { name: "Add step", exact: true }).click();
    await page.locator('[id="steps.3.args.invoiceId"]').fill("in_74119");
    await page.locator('[id="steps.3.args.amount"]').fill("100.00");
    await page.locator('[id="steps.3.args.reason"]').fill("Goodwill");
    await fillWhy(page, 3);

    const saved = page.waitForResponse((r) => r.url().endsWith("/edits") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Save edit" }).click();
    const answer = await saved;
    expect(answer.status()).toBeGreaterThanOrEqual(400);
    const refusal = await answer.text();
    await expect(page.getByText(/Shipment "sh_5521" is not found on this desk/).first()).toBeVisible();
    await expect(page.getByText(/Invoice "in_74119" is not found on this desk/).first()).toBeVisible();
    const secrets = ["Halvorsen", "Nordkapp", "Kongsveien", "NO-OSL", "Oslo", "2,120.00", "DETENTION"];
    for (const text of [refusal, await main.innerText()]) for (const secret of secrets) expect(text, `leaked ${secret}`).not.toContain(secret);

    // nothing was saved, and the run page (its effects preview included) shows none of it either
    await page.reload();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("#81002");
    await expect(page.getByRole("list", { name: "Plan steps" }).getByRole("listitem").filter({ hasText: /^Step \d/ })).toHaveCount(2);
    const shown = await main.innerText();
    for (const secret of [...secrets, "sh_5521", "in_74119"]) expect(shown, `shown ${secret}`).not.toContain(secret);
    await ctx.close();
  });
});
