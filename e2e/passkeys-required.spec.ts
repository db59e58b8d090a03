import { test, expect } from "@playwright/test";
import { signInAs } from "./helpers";

/*
 * Admin → Users, "Passkeys required", for real (no answer faked): the admin ticks Supervisors, the
 * box and the count of supervisors without a passkey say what happens to them, and a supervisor
 * without a passkey who signs in is sent to register one before any other page opens; unticking
 * lets them in again. A role-wide requirement would send every supervisor of the shared server to
 * that page, so this file runs alone, after every other spec (the "alone-after-all" project in
 * playwright.config.ts), and puts the setting back even when it fails.
 */

const stamp = Date.now();
const email = `sol.supervisor.${stamp}@plandesk.test`;
const PASSWORD = "sol-supervisor-password-1";

test("an admin requires a passkey for supervisors: one without a passkey is sent to register it; unticking lets them in", async ({ browser, baseURL }, testInfo) => {
  const adminCtx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const admin = await adminCtx.newPage();
  await signInAs(admin, "admin");
  await expect(admin.getByRole("heading", { name: "Queue" })).toBeVisible({ timeout: 50_000 });
  // a supervisor who has no passkey (new here, so no other spec gave them one)
  const created = await admin.request.post("/api/admin/users", { headers: { origin: baseURL! }, data: { email, name: `Sol ${stamp}`, role: "supervisor", password: PASSWORD } });
  expect(created.status(), await created.text()).toBe(201);

  const put = (required: boolean) => admin.request.put("/api/admin/passkey-requirements", { headers: { origin: baseURL! }, data: { role: "supervisor", required } });
  const person = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    await admin.goto("/admin/users");
    await admin.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const section = admin.getByRole("region", { name: "Passkeys required" });
    const box = section.getByRole("checkbox", { name: "Supervisors must have a passkey" });
    await expect(box).not.toBeChecked();
    // not required yet: the count says who would be asked
    await expect(box).toHaveAccessibleDescription(/supervisors? (has|have) no passkey yet and would be asked to register one/);

    await box.check();
    await expect(section.getByRole("status")).toHaveText("Supervisors must now have a passkey.");
    await expect(box).toHaveAccessibleDescription(/supervisors? (has|have) no passkey yet: their next page asks them to register one/);
    await section.scrollIntoViewIfNeeded();
    await admin.screenshot({ path: testInfo.outputPath("passkeys-required-checked-1366.png") });

    // the supervisor signs in and is sent to register a passkey; no other page opens
    const page = await person.newPage();
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/account\/passkeys\?required=1/);
    await expect(page.getByText("People with the supervisor role must have a passkey. Register one to continue.")).toBeVisible();
    await page.goto("/runs");
    await expect(page).toHaveURL(/\/account\/passkeys\?required=1/);

    // unticked: the same session opens the queue
    await box.uncheck();
    await expect(section.getByRole("status")).toHaveText("Supervisors no longer need a passkey.");
    await admin.reload();
    await expect(admin.getByRole("region", { name: "Passkeys required" }).getByRole("checkbox", { name: "Supervisors must have a passkey" })).not.toBeChecked();
    await page.goto("/runs");
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  } finally {
    // never leave supervisors locked out of the shared server
    expect((await put(false)).status()).toBe(200);
    await person.close();
    await adminCtx.close();
  }
});
