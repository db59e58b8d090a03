import { auth } from "../lib/server/auth/auth";
import { DEMO_PASSWORD } from "../lib/server/demo/seed";

/**
 * Test helpers for route-handler tests: real better-auth sessions and requests as a browser or
 * an agent sends them. The origin is PLANDESK_URL as vitest.setup.ts sets it.
 */
export const TEST_ORIGIN = "http://localhost:3999";
export const FOREIGN_ORIGIN = "https://evil.example";

/**
 * Signs in through better-auth's own handler (`POST /api/auth/sign-in/email`) and returns the
 * `Cookie` header value carrying the new session. Throws when sign-in is refused.
 */
export async function signInCookie(email: string, password = DEMO_PASSWORD): Promise<string> {
  const res = await auth.handler(
    new Request(`${TEST_ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    }),
  );
  if (res.status !== 200) throw new Error(`sign-in of ${email} refused: ${res.status} ${await res.text()}`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  if (!cookies.some((c) => c.includes("session_token"))) throw new Error(`sign-in of ${email} set no session cookie`);
  return cookies.join("; ");
}

/** What a request carries: a session cookie, an agent key, an Origin (null = none), a JSON body. */
export interface Credentials {
  cookie?: string;
  key?: string;
  origin?: string | null;
}

/** A Request for `method path` with `creds` and an optional JSON body. Origin defaults to none. */
export function apiRequest(method: string, path: string, creds: Credentials = {}, body?: unknown): Request {
  const headers: Record<string, string> = { accept: "application/json" };
  if (creds.cookie) headers.cookie = creds.cookie;
  if (creds.key) headers.authorization = `Bearer ${creds.key}`;
  if (creds.origin) headers.origin = creds.origin;
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${TEST_ORIGIN}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A Next.js route context for `params`. */
export const routeCtx = <P extends Record<string, string>>(params: P) => ({ params: Promise.resolve(params) });
