import { test, expect, type Page } from "@playwright/test";
import { TestIdentityProvider } from "../testing/oidc-test-provider";
import { STORAGE } from "./helpers";

/*
 * A desk's identity providers administered through the page (/admin/desks/{deskId}/sign-in), in
 * real Chromium against a real OpenID Connect provider started for this file: the admin finds the
 * page from the desks list, a rejected input (client-side, then one the server refuses) stays on
 * the form with the field's error and focus on that field (also in the grants table: claim value,
 * tool, may approve/author, ceiling in dollars sent as cents); the admin adds the provider, the list
 * shows it, its grants and no secret; a person then signs in with "Continue with <label>" and has
 * the role and the grant (issue_refund, approves up to $500.00) the table mapped their groups to,
 * as their admin page shows; the provider's back-channel logout signs them out; the admin disables the provider. Screenshots at 1366 and
 * 390 px; no sideways scroll at 360 or 390 px.
 */

test.describe.configure({ mode: "serial" });
test.use({ storageState: STORAGE.admin });

let idp: TestIdentityProvider;
const stamp = Date.now();
const label = `Retail IdP ${stamp}`;
const SECRET = `e2e-page-secret-${stamp}`;
const CLIENT_ID = `plandesk-page-${stamp}`;
let providerId = "";

test.beforeAll(async () => {
  idp = await TestIdentityProvider.start();
});
test.afterAll(async () => {
  await idp?.stop();
});

/** Fails when the page scrolls sideways at `width`. */
async function expectNoOverflow(page: Page, width: number) {
  await page.setViewportSize({ width, height: 844 });
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const { scrollWidth, vw } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, vw: document.documentElement.clientWidth }));
  expect(scrollWidth, `${page.url()} at ${width} px`).toBeLessThanOrEqual(vw);
}

test("the admin adds a provider through the desk's sign-in page; the list shows it and no secret", async ({ page }) => {
  await page.goto("/admin/desks");
  await page.locator('a[href="/admin/desks/retail/sign-in"]').click();
  await expect(page).toHaveURL(/\/admin\/desks\/retail\/sign-in$/);
  await expect(page.getByRole("heading", { name: "Add an identity provider" })).toBeVisible();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });

  // refused in the browser: an http issuer that is not local; focus goes to it, nothing else is lost
  await page.getByLabel("Label", { exact: true }).fill(label);
  await page.getByLabel("Issuer URL").fill("http://idp.example.com");
  await page.getByLabel("Client id", { exact: true }).fill(CLIENT_ID);
  await page.getByLabel("Client secret", { exact: true }).fill(SECRET);
  await page.getByLabel("Role claim (empty: none)").fill("groups");
  await page.getByRole("button", { name: "Add a value" }).click();
  await page.getByLabel("Claim value 1", { exact: true }).fill("retail-supervisors");
  await page.getByLabel("Role for claim value 1").selectOption("supervisor");
  await page.getByLabel("Everyone else").selectOption("refuse");
  await page.getByRole("button", { name: "Add identity provider" }).click();
  await expect(page.getByLabel("Issuer URL")).toBeFocused();
  await expect(page.getByText("an https:// issuer URL (http:// only for localhost)")).toBeVisible();
  await expect(page.getByLabel("Label", { exact: true })).toHaveValue(label);

  // the grants table: a row whose claim value is missing is refused on that cell, focused
  await page.getByLabel("Issuer URL").fill(idp.issuer);
  await page.getByLabel("Grants claim (empty: no grants)").fill("groups");
  await page.getByRole("button", { name: "Add a grant" }).click();
  await expect(page.getByLabel("Claim value of grant row 1")).toBeFocused();
  await page.getByLabel("Tool of grant row 1").selectOption("issue_refund");
  await page.getByLabel("Approval ceiling of grant row 1, in USD").fill("500.00");
  await page.getByRole("button", { name: "Add a grant" }).click();
  await page.getByLabel("Claim value of grant row 2").fill("note-writers");
  await page.getByLabel("Tool of grant row 2").selectOption("add_ticket_note");
  await page.getByLabel("May approve (grant row 2)").uncheck();
  await page.getByLabel("May author (grant row 2)").check();
  await page.getByRole("button", { name: "Add identity provider" }).click();
  await expect(page.getByLabel("Claim value of grant row 1")).toBeFocused();
  await expect(page.getByLabel("Claim value of grant row 1")).toHaveAccessibleDescription("Enter the claim value (e.g. a group name)");
  await page.getByLabel("Claim value of grant row 1").fill("refund-approvers");

  // refused by the server: a tool the catalog no longer has (as when it left the catalog after the
  // page was loaded) — 422 on that row's tool, focused; everything typed stays
  await page.getByLabel("Tool of grant row 2").evaluate((el) => (el as HTMLSelectElement).append(new Option("A tool removed meanwhile", "no_such_tool")));
  await page.getByLabel("Tool of grant row 2").selectOption("no_such_tool");
  await page.getByRole("button", { name: "Add identity provider" }).click();
  await expect(page.getByText('Unknown tool "no_such_tool".')).toBeVisible();
  await expect(page.getByLabel("Tool of grant row 2")).toBeFocused();
  await expect(page.getByLabel("Issuer URL")).toHaveValue(idp.issuer);
  await expect(page.getByLabel("Approval ceiling of grant row 1, in USD")).toHaveValue("500.00");

  // a row removed: focus goes to the row above; the rest is sent, the ceiling in minor units
  await page.getByRole("button", { name: "Remove grant row 2" }).click();
  await expect(page.getByLabel("Claim value of grant row 1")).toBeFocused();
  await expect(page.getByLabel("Tool of grant row 2")).toHaveCount(0);
  // the filled table fits: a table at 1366 px, one block per row at 390 px, nothing scrolls sideways
  await page.getByRole("button", { name: "Add a grant" }).click();
  await page.getByLabel("Claim value of grant row 2").fill("note-writers");
  await page.getByLabel("Tool of grant row 2").selectOption("add_ticket_note");
  await page.getByRole("group", { name: "Claim value → grants" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/sso-admin-grants-1366.png" });
  await expectNoOverflow(page, 390);
  await page.getByRole("group", { name: "Claim value → grants" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/sso-admin-grants-390.png" });
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.getByRole("button", { name: "Remove grant row 2" }).click();
  await expect(page.getByLabel("Claim value of grant row 1")).toBeFocused();
  const posted = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/api/admin/desks/retail/oidc-providers"));
  await page.getByRole("button", { name: "Add identity provider" }).click();
  expect((await posted).postDataJSON().mapping).toMatchObject({
    grantsClaim: "groups",
    grants: { "refund-approvers": [{ tool: "issue_refund", canApprove: true, approveLimit: { minor: 50_000, currency: "USD" }, canAuthor: false, authorLimit: null }] },
  });
  await expect(page.getByRole("status").filter({ hasText: `${label} was added` })).toBeVisible();
  const card = page.locator("li[data-provider]").filter({ hasText: label });
  await expect(card).toBeVisible();
  providerId = (await card.getAttribute("data-provider"))!;
  await expect(card).toContainText(idp.issuer);
  await expect(card).toContainText(CLIENT_ID);
  await expect(card).toContainText("Role from claim groups: retail-supervisors → supervisor");
  await expect(card).toContainText("Anyone else: refused");
  await expect(card).toContainText("Grants from claim groups: refund-approvers → issue_refund (approves up to $500.00; may not author)");
  await expect(card).toContainText(`/api/auth/callback/${providerId}`);
  await expect(card).toContainText(`/api/auth/oidc/backchannel-logout/${providerId}`);
  // no secret anywhere on the page (its last 4 characters at most)
  expect(await page.content()).not.toContain(SECRET);
  await expect(page.getByLabel("Client secret", { exact: true })).toHaveValue("");

  await page.setViewportSize({ width: 1366, height: 900 });
  await page.screenshot({ path: "test-results/sso-admin-1366.png", fullPage: true });
  await expectNoOverflow(page, 390);
  await page.screenshot({ path: "test-results/sso-admin-390.png", fullPage: true });
  await expectNoOverflow(page, 360);
  await page.goto("/admin/desks");
  await expectNoOverflow(page, 360);
});

test("a person signs in through the provider the page added with the grant the table mapped, and the provider's back-channel logout signs them out", async ({ browser, page: adminPage, request, baseURL }) => {
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await ctx.newPage();
  await page.goto("/sign-in");
  const sub = `page-${stamp}`;
  const email = `page.${stamp}@retail.example`;
  idp.signInNext({ sub, email, name: `Pat ${stamp}`, groups: ["retail-supervisors", "refund-approvers"] });
  await page.getByRole("button", { name: `Continue with ${label}` }).click();
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();

  // created with the role of the role rows and the grant of the grants table's row, as the admin sees it
  let created: { id: string; role: string } | undefined;
  for (let cursor: string | null | undefined = undefined; !created; ) {
    const res = await request.get(`/api/admin/users?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const body = (await res.json()) as { users: { id: string; email: string; role: string }[]; nextCursor?: string | null };
    created = body.users.find((u) => u.email === email);
    cursor = body.nextCursor;
    if (!created && !cursor) break;
  }
  expect(created, `${email} among the people`).toMatchObject({ role: "supervisor" });
  await adminPage.goto(`/admin/users/${created!.id}`);
  await expect(adminPage.getByTestId("grant-summary-issue_refund")).toHaveText("approves up to $500.00; may not author");

  const token = await idp.logoutToken({ sub, aud: CLIENT_ID });
  const res = await request.post(`${baseURL}/api/auth/oidc/backchannel-logout/${providerId}`, { form: { logout_token: token } });
  expect(res.status(), await res.text()).toBe(200);
  expect(await res.json()).toEqual({ sessionsEnded: 1 });
  await page.goto("/runs");
  await expect(page).toHaveURL(/\/sign-in/);
  await ctx.close();
});

test("the admin disables the provider; the sign-in page no longer offers it", async ({ page, browser }) => {
  await page.goto("/admin/desks/retail/sign-in");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: `Disable ${label}` }).click();
  await expect(page.locator(`li[data-provider="${providerId}"]`)).toContainText("Disabled");
  await expect(page.locator(`li[data-provider="${providerId}"]`)).toContainText("Client secret");
  await expect(page.locator(`li[data-provider="${providerId}"]`)).toContainText("erased");
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const signIn = await ctx.newPage();
  await signIn.goto("/sign-in");
  await expect(signIn.getByRole("button", { name: "Sign in" })).toBeVisible();
  await expect(signIn.getByRole("button", { name: `Continue with ${label}` })).toHaveCount(0);
  await ctx.close();
});
