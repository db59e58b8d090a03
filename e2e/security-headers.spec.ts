/**
 * Security headers on API answers and static files, the API's error shape for unknown paths and
 * methods, and hostile path and query values for every page of app/: never a 5xx. Each page's own
 * headers, CSP and hydration are checked by e2e/every-page.spec.ts, on the same visit as its axe checks.
 */
import { expect, test, type Response } from "@playwright/test";
import { STORAGE } from "./helpers";
import { pageRoutes } from "./pages";

/** An API answer's headers: a CSP that allows nothing, nosniff, Referrer-Policy, Permissions-Policy, no HSTS over http. */
function expectSecurityHeaders(res: Pick<Response, "headers"> | null) {
  expect(res).not.toBeNull();
  const h = res!.headers();
  const csp = h["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("default-src 'none'");
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(h["permissions-policy"]).toContain("camera=()");
  expect(h["strict-transport-security"]).toBeUndefined(); // served over http here
}

test.describe("API and static answers", () => {
  test.use({ storageState: STORAGE.supervisor });

  test("API answers (success and refusal) and static files carry the headers", async ({ page, request }) => {
    expectSecurityHeaders(await request.get("/api/openapi.json"));
    expectSecurityHeaders(await request.get("/api/v1/tasks")); // 401 without a key
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
        // a few hundred page requests one after another: over a minute on a busy two-core machine
        test.setTimeout(240_000);
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
