import { NextResponse, type NextRequest } from "next/server";
import { getSessionCookie } from "better-auth/cookies";
import { serverConfig } from "@/lib/server/config/config";
import { matchApiRoute } from "@/lib/api/route-table";
import { isApiPath, newNonce, securityHeaders } from "@/lib/net/security-headers";
import { PAGE_PATH_HEADER, pagePathOf } from "@/lib/net/page-path";

/** Pages anyone may open without a session (no redirect to /sign-in). */
const PUBLIC_PAGES = /^\/(sign-in(\/.*)?|favicon\.ico|robots\.txt|icon\.svg|_next\/.*)$/;

/**
 * Runs before every page and API request (static files excepted: next.config.mjs gives them the
 * base headers):
 * - security headers on every answer (lib/net/security-headers.ts): a page gets a CSP with a fresh
 *   nonce, also passed on to the render as the request's `content-security-policy` and `x-nonce`
 *   headers so Next.js puts it on its scripts; HSTS when PLANDESK_URL is https;
 * - an API path no route has answers 404 `not_found`, and a method its route does not answer 405
 *   `method_not_allowed` with `Allow`, both in the API's error shape (`{error: {code, message}}`)
 *   rather than Next.js's HTML page or empty body (lib/api/route-table.ts);
 * - a convenience redirect of signed-out page requests to /sign-in — only a convenience: every
 *   page, route handler and action checks the session itself.
 */
export function proxy(req: NextRequest) {
  const { pathname } = req.nextUrl;
  const api = isApiPath(pathname);
  const nonce = api ? null : newNonce();
  const headers = securityHeaders(pathname, { nonce, dev: process.env.NODE_ENV === "development", https: serverConfig().https });

  let res: NextResponse;
  const match = api && decodable(pathname) ? matchApiRoute(pathname, req.method) : null;
  if (match && match.kind !== "found") {
    res =
      match.kind === "not_found"
        ? NextResponse.json({ error: { code: "not_found", message: `Nothing exists at ${pathname.slice(0, 200)}.` } }, { status: 404 })
        : NextResponse.json(
            { error: { code: "method_not_allowed", message: `${pathname.slice(0, 200)} does not answer ${req.method}; it answers ${match.allow.join(", ")}.`, allow: match.allow } },
            { status: 405, headers: { Allow: match.allow.join(", ") } },
          );
  } else if (!decodable(pathname)) {
    // A path Next.js cannot decode (e.g. "%E0%A4%A") names nothing: 404, not a render error.
    res = new NextResponse(api ? JSON.stringify({ error: { code: "not_found", message: "Nothing exists at this address." } }) : "Not found", {
      status: 404,
      headers: { "content-type": api ? "application/json" : "text/plain; charset=utf-8" },
    });
  } else if (!api && !PUBLIC_PAGES.test(pathname) && !getSessionCookie(req)) {
    const url = req.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = `?next=${encodeURIComponent(pathname + req.nextUrl.search)}`;
    res = NextResponse.redirect(url);
  } else {
    const requestHeaders = new Headers(req.headers);
    if (nonce) {
      requestHeaders.set("x-nonce", nonce);
      requestHeaders.set("content-security-policy", headers["Content-Security-Policy"]);
      // layouts are not told their URL; the sign-in redirect of a layout's check needs it as `next`
      requestHeaders.set(PAGE_PATH_HEADER, pagePathOf(pathname, req.nextUrl.search));
    }
    res = NextResponse.next({ request: { headers: requestHeaders } });
  }
  for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
  return res;
}

/** Whether every percent-escape of `pathname` decodes (decodeURIComponent does not throw). */
function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every path but static files and the streamed records import (POST /api/v1/records/batch): for a
 * request with a body the proxy makes Next.js copy the body into memory and END it at
 * `proxyClientMaxBodySize` (10 MiB) — a 50 MB NDJSON import would reach its handler truncated.
 * That path is left to the custom server, which limits its body, gives it these security headers
 * and answers other methods 405 (lib/net/body-limit.mjs, whose comment says what Next.js 16 does).
 */
export const config = {
  matcher: ["/((?!_next/static|_next/image|api/v1/records/batch/?$).*)"],
};
