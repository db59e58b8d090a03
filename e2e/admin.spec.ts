import { test, expect, request as playwrightRequest, type Browser } from "@playwright/test";
import { format } from "date-fns";
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
    // two people's sessions (one a fresh sign-in) and a dozen page loads: 45–60 s on a busy two-core machine
    test.setTimeout(120_000);
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

  test("an agent's new API key is named, may expire, is shown once, then only its prefix, name, last use and expiry", async ({ page }) => {
    const name = `E2E bot ${Date.now()}`;
    await page.goto("/admin/agents");
    const form = page.getByRole("region", { name: "Create an agent" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel(/Add ticket note/).check();
    await form.getByRole("button", { name: "Create agent" }).click();
    const card = page.getByRole("region", { name, exact: true });
    // a key needs a name: refused at its field, focus there, nothing made
    await card.getByRole("button", { name: `Create API key for ${name}` }).click();
    const keyName = card.getByLabel(/Key name/);
    await expect(keyName).toHaveAttribute("aria-invalid", "true");
    await expect(keyName).toBeFocused();
    await expect(card.getByText("Enter a name")).toBeVisible();
    await keyName.fill("prod executor");
    await card.getByLabel("Expires").selectOption({ label: "In 30 days" });
    await card.getByRole("button", { name: `Create API key for ${name}` }).click();
    const shown = card.getByLabel("New API key", { exact: true });
    await expect(shown).toHaveValue(/^pd_/);
    await expect(card.getByRole("status").filter({ hasText: "New API key" })).toContainText("“prod executor”");
    const key = await shown.inputValue();
    await page.reload();
    const again = page.getByRole("region", { name, exact: true });
    await expect(again).toBeVisible();
    await expect(page.getByText(key)).toHaveCount(0);
    await expect(again.getByRole("button", { name: `Revoke key ${key.slice(0, 10)}` })).toBeVisible();
    const row = again.getByRole("row").filter({ hasText: "prod executor" });
    await expect(row).toContainText("never"); // not used yet
    await expect(row).toContainText("active");
    // the expiry is shown as its day, 30 days out (UTC)
    const in30 = new Date(Date.now() + 30 * 86_400_000);
    await expect(row).toContainText(format(new Date(in30.getUTCFullYear(), in30.getUTCMonth(), in30.getUTCDate()), "d MMM yyyy"));
  });
});

test.describe("admin: passkeys required per role", () => {
  test.use({ storageState: STORAGE.admin });

  // Every role signs in somewhere else in the suite at the same time, so no real role may start
  // requiring a passkey on the shared server: the PUT is answered here (its body checked), and the
  // reload shows that nothing reached the server.
  test("an admin ticks a role: the PUT is sent, the box shows it at once, a refusal puts it back with its message", async ({ page }) => {
    await page.goto("/admin/users");
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const section = page.getByRole("region", { name: "Passkeys required" });
    await expect(section).toContainText("must register one");
    const box = section.getByRole("checkbox", { name: "Supervisors must have a passkey" });
    await expect(box).not.toBeChecked();
    // under each box: how many people of the role have no passkey yet, and what would happen to them
    await expect(box).toHaveAccessibleDescription(/Every supervisor has a passkey\.|supervisors? (has|have) no passkey yet and would be asked to register one\./);
    const before = await section.getByRole("checkbox").evaluateAll((els) => els.filter((e) => (e as HTMLInputElement).checked).map((e) => (e as HTMLInputElement).value));

    const sent: unknown[] = [];
    let answer: "ok" | "refuse" = "ok";
    // Each PUT is held until the test has seen the page's optimistic state, then answered.
    let answerNow = () => {};
    let held = Promise.resolve();
    const hold = () => (held = new Promise<void>((r) => (answerNow = r)));
    await page.route("**/api/admin/passkey-requirements", async (route) => {
      // the counts under the boxes are read again after each save: those reads reach the server
      if (route.request().method() === "GET") return route.fallback();
      expect(route.request().method()).toBe("PUT");
      const body = route.request().postDataJSON() as { role: string; required: boolean };
      sent.push(body);
      await held;
      if (answer === "refuse") {
        await route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ error: { code: "forbidden", message: "This needs the admin role." } }) });
      } else {
        const roles = ["operator", "supervisor", "admin"].filter((r) => (r === body.role ? body.required : before.includes(r)));
        await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ roles }) });
      }
    });

    hold();
    await box.click();
    await expect(box).toBeChecked(); // at once, before the server answered
    await expect.poll(() => sent.length).toBe(1);
    answerNow();
    await expect(section.getByRole("status")).toHaveText("Supervisors must now have a passkey.");
    await expect(box).toHaveAccessibleDescription(/Every supervisor has a passkey\.|supervisors? (has|have) no passkey yet: their next page asks them to register one\./);
    expect(sent).toEqual([{ role: "supervisor", required: true }]);

    answer = "refuse";
    hold();
    await box.click();
    await expect(box).not.toBeChecked(); // at once, before the refusal came
    await expect.poll(() => sent.length).toBe(2);
    answerNow();
    await expect(section.getByRole("alert")).toHaveText("Could not stop requiring a passkey for supervisors: This needs the admin role. The setting is back to what it was.");
    await expect(box).toBeChecked();
    await expect(box).toBeFocused();
    await expect(box).toHaveAttribute("aria-describedby", /error/);
    expect(sent).toEqual([{ role: "supervisor", required: true }, { role: "supervisor", required: false }]);

    await page.setViewportSize({ width: 1366, height: 900 });
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/passkeys-required-1366.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const { scrollWidth, vw } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, vw: document.documentElement.clientWidth }));
    expect(scrollWidth).toBeLessThanOrEqual(vw);
    await page.screenshot({ path: "test-results/passkeys-required-390.png", fullPage: true });

    // nothing reached the server: after a reload the page shows the server's own state again
    await page.unroute("**/api/admin/passkey-requirements");
    await page.reload();
    const after = await page
      .getByRole("region", { name: "Passkeys required" })
      .getByRole("checkbox")
      .evaluateAll((els) => els.filter((e) => (e as HTMLInputElement).checked).map((e) => (e as HTMLInputElement).value));
    expect(after).toEqual(before);
  });
});

test.describe("admin: the change log", () => {
  test.use({ storageState: STORAGE.admin });

  test("an admin reads who changed what: a person created a moment ago is on the log with each field, never the password", async ({ page, request, baseURL }) => {
    const stamp = Date.now();
    const email = `log.${stamp}@example.com`;
    const password = `pass-${stamp}-never-shown`;
    const created = await request.post("/api/admin/users", { headers: { origin: baseURL! }, data: { email, name: `Logan ${stamp}`, role: "operator", password } });
    expect(created.status(), await created.text()).toBe(201);
    const userId = ((await created.json()) as { user: { id: string } }).user.id;

    await page.goto("/admin/users");
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Changes" }).click();
    await expect(page).toHaveURL(/\/admin\/changes$/);
    const entry = page.getByTestId("admin-change").filter({ hasText: `user ${userId}` });
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText("Person created");
    await expect(entry).toContainText("by Adam Admin <admin@plandesk.test>");
    await expect(entry).toContainText(email);
    await expect(page.locator("main")).not.toContainText(password);

    for (const [width, height] of [[1366, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      const { scrollWidth, vw } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, vw: document.documentElement.clientWidth }));
      expect(scrollWidth, `overflow at ${width}`).toBeLessThanOrEqual(vw);
      await page.screenshot({ path: `test-results/admin-changes-${width}.png` });
    }
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
