import { test, expect, type Page } from "@playwright/test";
import { STORAGE } from "./helpers";

// Passkey sign-in in real Chromium with a virtual authenticator (Chrome DevTools Protocol), for a
// person of its own (created by the admin through the API, so no other spec's stored session is
// signed out or locked): they sign in with their password, register a passkey from the account
// menu's page, sign out, and sign in with the passkey alone. Then their password path is locked —
// wrong passwords from this browser until the sign-in answers 429, after which even the
// right password is refused — and the passkey still signs them in: the lockout applies to the
// password path only (docs/security.md "Limits and what exceeding them answers").

const PASSWORD = "passkey-person-password-1";

/** Signs out with the header's button and waits for the sign-in page. */
async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("button", { name: "Use a passkey" })).toBeVisible();
}

/**
 * One password sign-in from the page itself (same origin, the browser's own client address, as the
 * sign-in form sends it); its HTTP status.
 */
async function passwordAttempt(page: Page, email: string, password: string): Promise<number> {
  return page.evaluate(
    async (b) => (await fetch("/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) })).status,
    { email, password },
  );
}

/** Signs in with "Use a passkey" on the sign-in page (no email, no password) and waits for the queue. */
async function signInWithPasskey(page: Page) {
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
}

test("a passkey signs a person in without a password, and still does while their password is locked out", async ({ browser, baseURL }, testInfo) => {
  const origin = baseURL!;
  const stamp = `${testInfo.workerIndex}-${Date.now()}`;
  const email = `pia.passkey.${stamp}@plandesk.test`;
  const name = `Pia Passkey ${stamp}`;
  const admin = await browser.newContext({ storageState: STORAGE.admin });
  const created = await admin.request.post("/api/admin/users", { data: { email, name, role: "operator", password: PASSWORD }, headers: { origin } });
  expect(created.status(), await created.text()).toBe(201);
  await admin.close();

  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  try {
    // 1. Password sign-in, then a passkey from the account menu's page.
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
    await page.goto("/account/passkeys");
    await page.getByLabel("Name (optional)").fill("e2e passkey sign-in");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByText("Passkey registered.")).toBeVisible();
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0].isResidentCredential).toBe(true);

    // 2. Signed out, then in again with the passkey alone: no email, no password typed.
    await signOut(page);
    expect((await ctx.cookies()).some((c) => c.name.includes("session_token"))).toBe(false);
    await signInWithPasskey(page);
    const session = await (await page.request.get("/api/auth/get-session")).json();
    expect(session?.user?.email).toBe(email);
    expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials[0].signCount).toBeGreaterThan(0);

    // 3. The password path locked: wrong passwords from this browser (its own address: the lockout
    // counts per account and client address) until 429; then the right one is refused too.
    await signOut(page);
    let status = 0;
    let failed = 0;
    for (let i = 0; i < 30 && status !== 429; i++) {
      status = await passwordAttempt(page, email, `wrong-password-${i}`);
      if (status === 401) failed++;
    }
    expect(status, `after ${failed} wrong passwords`).toBe(429);
    expect(failed).toBeGreaterThan(0);
    expect(await passwordAttempt(page, email, PASSWORD)).toBe(429);
    // ... and the sign-in page says so for the password
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Too many sign-in attempts" })).toBeVisible();

    // 4. The passkey still signs them in.
    await signInWithPasskey(page);
    expect((await (await page.request.get("/api/auth/get-session")).json())?.user?.email).toBe(email);
    await page.screenshot({ path: testInfo.outputPath("passkey-sign-in-while-locked.png") });
  } finally {
    await ctx.close();
  }
});
