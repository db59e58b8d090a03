import { CLIENT_IP_HEADER } from "../../net/client-address.mjs";
import { admitSignIn, refundSignIn } from "./sign-in-limits";

/**
 * Wraps better-auth's POST handler with the sign-in limits. For
 * `POST …/sign-in/email`: counts the attempt (lib/server/auth/sign-in-limits.ts) by the email in the
 * body and the client address in `x-plandesk-client-ip`; when a limit is reached answers 429
 * `{error: {code: "rate_limited", message, retryAfterSeconds}, code: "RATE_LIMITED", message}`
 * with `Retry-After: <seconds>` — without checking the password, so even the right one is refused
 * while the limit holds. Otherwise calls `next`, and hands the account's attempt back when the
 * sign-in succeeded (2xx). Other paths go straight to `next`.
 */
export async function guardSignIn(req: Request, next: (req: Request) => Promise<Response>): Promise<Response> {
  if (!isEmailSignIn(req)) return next(req);
  const admission = await admitSignIn({ email: await emailOf(req), address: req.headers.get(CLIENT_IP_HEADER) });
  if (!admission.allowed) {
    const message = `Too many sign-in attempts. Try again in ${waitText(admission.retryAfterSeconds)}.`;
    return new Response(JSON.stringify({ error: { code: "rate_limited", message, retryAfterSeconds: admission.retryAfterSeconds }, code: "RATE_LIMITED", message }), {
      status: 429,
      headers: { "content-type": "application/json", "retry-after": String(admission.retryAfterSeconds), "cache-control": "no-store" },
    });
  }
  const res = await next(req);
  if (res.status >= 200 && res.status < 300) await refundSignIn(admission);
  return res;
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
