/**
 * better-auth answers its own refusals as `{message, code}` (e.g. `INVALID_EMAIL_OR_PASSWORD`).
 * The API's refusal shape is `{error: {code, message}}` (docs/api.md), so every error answer of
 * `/api/auth/*` is rewritten to carry it — keeping better-auth's top-level `message` and `code`
 * for its own browser client. A disabled account's correct password (better-auth:
 * `FAILED_TO_CREATE_SESSION`, because our session hook refuses it) answers exactly like a wrong
 * password, so a sign-in never confirms a disabled account's password.
 */
export async function toApiAuthError(res: Response): Promise<Response> {
  if (res.status < 400 || !(res.headers.get("content-type") ?? "").includes("application/json")) return res;
  let parsed: unknown;
  try {
    parsed = await res.clone().json();
  } catch {
    return res;
  }
  if (!parsed || typeof parsed !== "object" || "error" in parsed) return res;
  const body = parsed as { message?: unknown; code?: unknown };
  let status = res.status;
  let code = typeof body.code === "string" ? body.code : `http_${res.status}`;
  let message = typeof body.message === "string" ? body.message : "The request was refused.";
  if (code === "FAILED_TO_CREATE_SESSION" || code === "INVALID_EMAIL_OR_PASSWORD") {
    status = 401;
    code = "INVALID_EMAIL_OR_PASSWORD";
    message = "Invalid email or password";
  }
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ error: { code: code.toLowerCase(), message }, code, message }), { status, headers });
}
