import { test, expect, request as playwrightRequest, type APIRequestContext, type Browser } from "@playwright/test";
import { TestIdentityProvider } from "../testing/oidc-test-provider";
import { STORAGE } from "./helpers";

/*
 * Single sign-on in real Chromium against a real OpenID Connect provider started once for this
 * file (testing/oidc-test-provider.ts), on the retail desk — not the demo's: an admin registers
 * the provider through the API; a new person signs in with "Continue with <provider>" at /sign-in
 * and lands in the console with the mapped role and desk; claims that map to no role are refused on
 * the sign-in page; a person removed at the provider is signed out at their next page once their
 * provider token is due for a refresh; a person whose password path is locked (wrong passwords until
 * the sign-in answers 429) still signs in through the provider.
 */

test.describe.configure({ mode: "serial" });

let idp: TestIdentityProvider;
let admin: APIRequestContext;
let providerId: string;
const stamp = Date.now();
const label = `Retail SSO ${stamp}`;

test.beforeAll(async ({ baseURL }) => {
  idp = await TestIdentityProvider.start();
  admin = await playwrightRequest.newContext({ baseURL, storageState: STORAGE.admin, extraHTTPHeaders: { origin: baseURL! } });
  const res = await admin.post("/api/admin/desks/retail/oidc-providers", {
    data: {
      label,
      issuer: idp.issuer,
      clientId: "plandesk-e2e",
      clientSecret: "e2e-client-secret-0123456789",
      mapping: { roleClaim: "groups", roles: { "retail-supervisors": "supervisor", "retail-operators": "operator" }, defaultRole: null },
    },
  });
  expect(res.status()).toBe(201);
  providerId = (await res.json()).provider.id;
});

test.afterAll(async () => {
  // disabled, so other specs' sign-in pages show no provider of this file
  await admin?.delete(`/api/admin/desks/retail/oidc-providers/${providerId}`);
  await admin?.dispose();
  await idp?.stop();
});

/** A fresh browser context at /sign-in, signing in through the provider as `claims`. */
async function continueWithProvider(browser: Browser, claims: Record<string, unknown>, opts: { accessTokenSeconds?: number } = {}) {
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  idp.signInNext(claims, opts);
  await page.getByRole("button", { name: `Continue with ${label}` }).click();
  return { ctx, page };
}

test("a new person signs in through the desk's identity provider and is created with the mapped role and desk", async ({ browser }) => {
  const email = `rosa.${stamp}@retail.example`;
  const { ctx, page } = await continueWithProvider(browser, { sub: `rosa-${stamp}`, email, name: `Rosa ${stamp}`, groups: ["retail-supervisors"] });
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  const users = await (await admin.get(`/api/admin/users?limit=200`)).json();
  const created = (users.users as Array<Record<string, unknown>>).find((u) => u.email === email);
  expect(created).toMatchObject({ name: `Rosa ${stamp}`, role: "supervisor", desk: "retail", disabled: false });
  await ctx.close();
});

test("claims that give no role are refused on the sign-in page, and nobody is created", async ({ browser }) => {
  const email = `nobody.${stamp}@retail.example`;
  const { ctx, page } = await continueWithProvider(browser, { sub: `nobody-${stamp}`, email, name: "No Body", groups: ["elsewhere"] });
  await expect(page.getByRole("alert").filter({ hasText: "gives you no role or desk in Plandesk" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in/);
  const users = await (await admin.get(`/api/admin/users?limit=200`)).json();
  expect((users.users as Array<Record<string, unknown>>).some((u) => u.email === email)).toBe(false);
  await ctx.close();
});

test("a person removed at the provider is signed out once their provider token is due for a refresh", async ({ browser }) => {
  const sub = `gone-${stamp}`;
  const { ctx, page } = await continueWithProvider(browser, { sub, email: `gone.${stamp}@retail.example`, name: `Gil ${stamp}`, groups: ["retail-operators"] }, { accessTokenSeconds: 2 });
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  idp.remove(sub);
  // the next page after the token expires asks the provider, which refuses: back to sign-in
  await expect(async () => {
    await page.goto("/runs");
    await expect(page).toHaveURL(/\/sign-in/, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  expect(idp.refreshes).toContainEqual([sub, 400]);
  await ctx.close();
});

test("a person locked out of the password path still signs in through the provider", async ({ browser }) => {
  const email = `lena.${stamp}@retail.example`;
  const claims = { sub: `lena-${stamp}`, email, name: `Lena ${stamp}`, groups: ["retail-operators"] };
  // created at the first sign-in through the provider
  const first = await continueWithProvider(browser, claims);
  await expect(first.page.getByRole("heading", { name: "Queue" })).toBeVisible();
  await first.ctx.close();

  // the password path locked: wrong passwords from this browser (the lockout counts per account and
  // client address) until 429; then any password is refused before it is checked (an SSO person
  // has none)
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  const attempt = (password: string) =>
    page.evaluate(async (b) => {
      const res = await fetch("/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) });
      return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code ?? null };
    }, { email, password });
  let last = { status: 0, code: null as string | null };
  for (let i = 0; i < 30 && last.status !== 429; i++) last = await attempt(`wrong-password-${i}`);
  expect(last).toEqual({ status: 429, code: "rate_limited" });
  expect((await attempt("any-password")).status).toBe(429);

  // the provider still signs them in, from the same browser, as the same person
  idp.signInNext(claims);
  await page.getByRole("button", { name: `Continue with ${label}` }).click();
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  expect((await (await page.request.get("/api/auth/get-session")).json())?.user?.email).toBe(email);
  const users = await (await admin.get(`/api/admin/users?limit=200`)).json();
  expect((users.users as Array<Record<string, unknown>>).filter((u) => u.email === email)).toHaveLength(1);
  await ctx.close();
});
