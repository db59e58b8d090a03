import { CLIENT_IP_HEADER } from "../../net/client-address.mjs";
import { serverConfig } from "../config/config";
import { admitSignIn, settleSignIn } from "./sign-in-limits";

/**
 * Wraps better-auth's POST handler with the sign-in limits (lib/server/auth/sign-in-limits.ts).
 * For `POST …/sign-in/email`: admits the attempt by the email in the body, the client address in
 * `x-plandesk-client-ip` and whether the `Origin` header is PLANDESK_URL's origin; when a limit is
 * reached answers 429 `{error: {code: "rate_limited", message, retryAfterSeconds}, code:
 * "RATE_LIMITED", message}` with `Retry-After: <seconds>` — without checking the password, so even
 * the right one is refused while the limit holds. A request whose `Origin` header is missing or
 * foreign is then refused 403 `{error: {code: "cross_origin", …}}` like the console's same-origin
 * check (better-auth checks the password of a cookie-less request whatever its Origin), counted
 * against the address only. Otherwise calls `next`, and settles the attempt: only better-auth's
 * invalid-credentials answer (401 INVALID_EMAIL_OR_PASSWORD after lib/server/auth/auth-errors.ts)
 * counts against the account.
 * Other paths go straight to `next`.
 */
export async function guardSignIn(req: Request, next: (req: Request) => Promise<Response>): Promise<Response> {
  if (!isEmailSignIn(req)) return next(req);
  const origin = req.headers.get("origin");
  const sameOrigin = origin !== null && origin === serverConfig().origin;
  const admission = await admitSignIn({ email: await emailOf(req), address: req.headers.get(CLIENT_IP_HEADER), sameOrigin });
  if (!admission.allowed) {
    const message = `Too many sign-in attempts. Try again in ${waitText(admission.retryAfterSeconds)}.`;
    return refusal(429, "rate_limited", message, { retryAfterSeconds: admission.retryAfterSeconds }, { "retry-after": String(admission.retryAfterSeconds) });
  }
  if (!sameOrigin) return refusal(403, "cross_origin", "Sign-in must come from the Plandesk console itself.", {});
  let outcome: "failed" | "succeeded" | "other" = "other";
  try {
    const res = await next(req);
    outcome = res.status === 401 && (await codeOf(res)) === "INVALID_EMAIL_OR_PASSWORD" ? "failed" : res.status >= 200 && res.status < 300 ? "succeeded" : "other";
    return res;
  } finally {
    await settleSignIn(admission, outcome);
  }
}

/** A refusal in the API's shape plus better-auth's top-level `code`/`message` (its browser client reads those). */
function refusal(status: number, code: string, message: string, extra: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message, ...extra }, code: code.toUpperCase(), message }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

/** The top-level `code` of a JSON answer, or null. */
async function codeOf(res: Response): Promise<string | null> {
  try {
    const body: unknown = await res.clone().json();
    const code = body && typeof body === "object" ? (body as { code?: unknown }).code : undefined;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}

function isEmailSignIn(req: Request): boolean {
  try {
    return req.method === "POST" && new URL(req.url).pathname.endsWith("/sign-in/email");
  } catch {
    return false;
  }
}

/** The `email` of a JSON body, or null (better-auth refuses such a body itself). */
async function emailOf(req: Request): Promise<string | null> {
  try {
    const body: unknown = await req.clone().json();
    const email = body && typeof body === "object" ? (body as { email?: unknown }).email : undefined;
    return typeof email === "string" && email.trim() ? email : null;
  } catch {
    return null;
  }
}

/** "45 seconds", "1 minute", "12 minutes". */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}
