/**
 * Security headers and the CSP on every page. Each page of app/**\/page.tsx is opened
 * as a role that may see it: the answer carries the strict CSP (a nonce for scripts, no
 * 'unsafe-inline' for them, frame-ancestors 'none'), nosniff, Referrer-Policy and
 * Permissions-Policy (no HSTS over http); no CSP violation is reported; and the page is hydrated
 * — a click on the header's Plandesk link navigates on the client (the window survives). Then
 * hostile path and query values for every page: never a 5xx.
 */
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

test("every page of app/ has a case here", () => {
  expect(PAGES.map((p) => p.route).sort()).toEqual(pageRoutes().sort());
});

function expectSecurityHeaders(res: Pick<Response, "headers"> | null, kind: "page" | "api") {
  expect(res).not.toBeNull();
  const h = res!.headers();
  const csp = h["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  if (kind === "page") {
    const script = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src")) ?? "";
    expect(script).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(script).not.toContain("'unsafe-inline'");
    expect(script).not.toContain("'unsafe-eval'");
  } else {
    expect(csp).toContain("default-src 'none'");
  }
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(h["permissions-policy"]).toContain("camera=()");
  expect(h["strict-transport-security"]).toBeUndefined(); // served over http here
}

for (const c of PAGES) {
  test.describe(`${c.route} as ${c.who}`, () => {
    test.use({ storageState: c.who === "signed_out" ? { cookies: [], origins: [] } : STORAGE[c.who] });

    test("security headers, no CSP violation, hydrated", async ({ page }) => {
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
      expectSecurityHeaders(res, "page");
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
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

test.describe("API and static answers", () => {
  test.use({ storageState: STORAGE.supervisor });

  test("API answers (success and refusal) and static files carry the headers", async ({ page, request }) => {
    expectSecurityHeaders(await request.get("/api/openapi.json"), "api");
    expectSecurityHeaders(await request.get("/api/v1/tasks"), "api"); // 401 without a key
    await page.goto("/runs");
    const src = await page.locator("script[src]").first().getAttribute("src");
    const asset = await request.get(src!);
    expect(asset.status()).toBe(200);
    expect(asset.headers()["x-content-type-options"]).toBe("nosniff");
  });

  test("an unknown API path or method answers the API's error shape, never the HTML 404 page or an empty 405", async ({ request, baseURL }) => {
    for (const url of ["/api/nope", "/api/v1/nope", "/api/runs/run_1/nope"]) {
      const res = await request.get(url);
      expect(res.status(), url).toBe(404);
      expect(res.headers()["content-type"], url).toContain("application/json");
      expect((await res.json()).error, url).toMatchObject({ code: "not_found", message: expect.any(String) });
    }
    const wrong = await request.delete("/api/runs", { headers: { origin: baseURL! } });
    expect(wrong.status()).toBe(405);
    expect(wrong.headers()["allow"]).toContain("GET");
    expect((await wrong.json()).error).toMatchObject({ code: "method_not_allowed", message: expect.any(String) });
  });
});

test.describe("hostile page paths and queries", () => {
  const HOSTILE = ["__proto__", "constructor", "%00", "..%2F..%2Fetc%2Fpasswd", "x".repeat(5000), "%C3%BC%F0%9F%99%82", "%E0%A4%A", "-1", "99999999999999999999999", "%20", "%3Cscript%3E"];
  const QUERIES = ["?__proto__=1&constructor=2", "?status=a&status=b", "?status=__proto__", "?before=-1", "?before=99999999999999999999", "?next=%2F%2Fevil.example", `?q=${"x".repeat(5000)}`, "?%00=%00", "?cursor=%E0%A4%A"];

  for (const who of ["supervisor", "admin"] as const) {
    test.describe(`as ${who}`, () => {
      test.use({ storageState: STORAGE[who] });
      test("never a 5xx", async ({ request }) => {
        const failures: string[] = [];
        const check = async (url: string) => {
          const res = await request.get(url, { maxRedirects: 0 });
          if (res.status() >= 500) failures.push(`${res.status()} ${url.slice(0, 120)}`);
        };
        for (const route of pageRoutes()) {
          const dynamic = route.includes("[");
          if (dynamic) for (const v of HOSTILE) await check(route.replace(/\[\w+\]/g, v));
          for (const q of QUERIES) await check(`${route.replace(/\[\w+\]/g, "run_nope")}${q}`);
        }
        for (const v of HOSTILE) await check(`/${v}`);
        expect(failures).toEqual([]);
      });
    });
  }
});
