/**
 * Every page of app/ (the list is e2e/pages.ts, checked against app/), opened once as a role that
 * may see it:
 * - the answer carries the strict CSP (a nonce for scripts, no 'unsafe-inline' for them,
 *   frame-ancestors 'none'), nosniff, Referrer-Policy and Permissions-Policy (no HSTS over http), and
 *   no CSP violation or unknown Permissions-Policy feature is reported;
 * - it is axe-clean in light mode, and again in dark mode — dark mode follows the system setting
 *   (prefers-color-scheme, CSS only), so the page is switched in place and the rules that read
 *   colours are run again on the same DOM (the structural rules cannot change with the scheme);
 * - it is hydrated: a click on the header's Plandesk link navigates on the client (the window survives).
 * One visit per page for all three keeps the walk affordable; the states only a click or a key
 * reaches are in e2e/themes.spec.ts, the API answers and hostile paths in e2e/security-headers.spec.ts.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page, type Response } from "@playwright/test";
import { STORAGE } from "./helpers";
import { PAGES, pageRoutes } from "./pages";

/** Proves hydration with a click on these pages; elsewhere the header link navigates on the client. */
const CLICKS: Record<string, (page: Page) => Promise<void>> = {
  "/sign-in": async (page) => {
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true"); // client-side validation ran
  },
  "/admin/integrations": async (page) => {
    await page.getByRole("button", { name: "Create integration key" }).click();
    await expect(page.getByText("Enter a name")).toBeVisible(); // client-side validation ran
  },
};

/** The axe rules whose outcome depends on colours: the ones a change of scheme can fail. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

test("every page of app/ has a case here", () => {
  expect(PAGES.map((p) => p.route).sort()).toEqual(pageRoutes().sort());
});

/** The page's headers: the strict CSP with a nonce, nosniff, Referrer-Policy, Permissions-Policy, no HSTS over http. */
function expectPageSecurityHeaders(res: Pick<Response, "headers"> | null) {
  expect(res).not.toBeNull();
  const h = res!.headers();
  const csp = h["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  const script = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src")) ?? "";
  expect(script).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
  expect(script).not.toContain("'unsafe-inline'");
  expect(script).not.toContain("'unsafe-eval'");
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(h["permissions-policy"]).toContain("camera=()");
  expect(h["strict-transport-security"]).toBeUndefined(); // served over http here
}

/** Fails with axe's violations (every rule, or only `rules`). */
async function expectAxeClean(page: Page, rules?: string[]) {
  const builder = new AxeBuilder({ page });
  const { violations } = await (rules ? builder.withRules(rules) : builder).analyze();
  expect(violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`) }))).toEqual([]);
}

/** The page background's lightness (0–255), once every colour transition the change of scheme started has ended. */
async function backgroundLightness(page: Page): Promise<number> {
  return page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => undefined)));
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return (r + g + b) / 3;
  });
}

for (const c of PAGES) {
  test.describe(`${c.route} as ${c.who}`, () => {
    test.use({ storageState: c.who === "signed_out" ? { cookies: [], origins: [] } : STORAGE[c.who], colorScheme: "light" });

    test("security headers, no CSP violation, axe-clean in light and dark, hydrated", async ({ page }, testInfo) => {
      const violations: string[] = [];
      page.on("console", (m) => {
        // a CSP violation, or a Permissions-Policy feature the browser does not know (it warns on every page)
        if (/Content[- ]Security[- ]Policy|Permissions[- ]Policy|Unrecognized feature/i.test(m.text())) violations.push(m.text());
      });
      page.on("pageerror", (e) => violations.push(`page error: ${e.message}`));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => {
          const w = window as unknown as { __csp?: string[] };
          (w.__csp ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
        });
      });
      const res = await page.goto(await c.url(page));
      expect(res?.status()).toBeLessThan(400);
      expectPageSecurityHeaders(res);
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      const shoot = c.route === "/runs" || c.route === "/runs/[id]";

      // light: the system's scheme is followed, and every axe rule passes
      expect(await backgroundLightness(page)).toBeGreaterThan(200);
      if (shoot) await page.screenshot({ path: testInfo.outputPath("light.png"), fullPage: true });
      await expectAxeClean(page);

      // dark: the same page follows the system's change, and its colours still pass
      await page.emulateMedia({ colorScheme: "dark" });
      expect(await backgroundLightness(page)).toBeLessThan(60);
      if (shoot) await page.screenshot({ path: testInfo.outputPath("dark.png"), fullPage: true });
      await expectAxeClean(page, COLOUR_RULES);

      // hydrated: a click does what only the client can do
      const click = CLICKS[c.route];
      if (click) {
        await click(page);
      } else {
        await page.evaluate(() => ((window as unknown as { __alive?: number }).__alive = 1));
        await page.locator("header").getByRole("link", { name: "Plandesk" }).click();
        await expect(page).toHaveURL(/\/runs$/);
        await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
        expect(await page.evaluate(() => (window as unknown as { __alive?: number }).__alive)).toBe(1); // a client-side navigation
      }
      const reported = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
      expect([...violations, ...reported]).toEqual([]);
    });
  });
}
