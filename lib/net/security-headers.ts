/**
 * Security headers of every response, built here and set by proxy.ts (pages and API)
 * and next.config.mjs (static files). Pure: no framework imports.
 *
 * Pages get a strict Content-Security-Policy with a per-request nonce: Next.js puts the nonce
 * on its own inline and chunk scripts when it finds it in the request's CSP header (the page must
 * render dynamically — the root layout reads the headers). `'strict-dynamic'` lets those scripts
 * load the chunks they import; nothing else runs. Styles allow `'unsafe-inline'` (React `style`
 * attributes, Recharts' SVG styles) — never scripts. API answers are JSON: `default-src 'none'`.
 */

/** Headers every response carries, static files included. */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** HSTS for two years, sent only when the console is served over https (PLANDESK_URL). */
export const HSTS = "max-age=63072000; includeSubDomains";

/** The CSP of API answers: nothing may be loaded or framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The CSP of a page rendered with `nonce` (base64). `dev` (next dev) also allows 'unsafe-eval',
 * which React's development build needs; `https` adds upgrade-insecure-requests.
 */
export function pageCsp(nonce: string, opts: { dev?: boolean; https?: boolean } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** A fresh nonce: 16 random bytes, base64 (uses the Web Crypto API; call once per request). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Every security header of a response to `pathname`: the base headers, the CSP (API or page with
 * `nonce`), and HSTS when `https`. Pages need `nonce`; API paths (`/api/…`) ignore it.
 */
export function securityHeaders(pathname: string, opts: { nonce: string | null; dev?: boolean; https?: boolean }): Record<string, string> {
  const api = isApiPath(pathname);
  return {
    ...BASE_SECURITY_HEADERS,
    "Content-Security-Policy": api || !opts.nonce ? API_CSP : pageCsp(opts.nonce, opts),
    ...(opts.https ? { "Strict-Transport-Security": HSTS } : {}),
  };
}

/** Whether `pathname` is the HTTP API (JSON answers) rather than a page. */
export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}
