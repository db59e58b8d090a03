import { NextResponse } from "next/server";
import type { ZodType } from "zod";
import { DomainError } from "../errors";

/**
 * JSON error body of API.md: `{error: {code, message, ...details}}` with the code's status.
 * `details.retryAfterSeconds` adds `Retry-After`; `details.replayed: true` (a refusal answered
 * from an idempotency key's saved answer) adds `Idempotent-Replayed: true`.
 */
export function errorResponse(err: DomainError): NextResponse {
  const headers: Record<string, string> = {};
  if (typeof err.details.retryAfterSeconds === "number") headers["Retry-After"] = String(err.details.retryAfterSeconds);
  if (err.details.replayed === true) headers["Idempotent-Replayed"] = "true";
  return NextResponse.json({ error: { code: err.code, message: err.message, ...err.details } }, { status: err.status, headers });
}

/** Largest JSON body accepted: 1 MiB (the largest valid plan is about a quarter of that). */
export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new DomainError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, { limitBytes: MAX_BODY_BYTES });

/**
 * The path (e.g. "steps.0.args.reason") of the first string or object key in `value` that holds a
 * NUL character (U+0000), or null. PostgreSQL cannot store NUL in text or JSON, so such input is
 * refused up front on every database rather than failing differently on each.
 */
export function nulPath(value: unknown): string | null {
  // Iterative (a JSON body may nest thousands of levels deep; recursion would overflow the stack).
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\u0000")) return at.join(".") || "(body)";
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...at, i]]);
    } else if (v && typeof v === "object") {
      const entries = Object.entries(v);
      for (const [k] of entries) if (k.includes("\u0000")) return [...at, k.replace(/\u0000/g, "\\u0000")].join(".");
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], [...at, entries[i][0]]]);
    }
  }
  return null;
}

/** The typed refusal of text with a NUL character at `where` (422 `validation_failed`). */
export function nulRefusal(where: string): DomainError {
  return new DomainError("validation_failed", `Text may not contain NUL characters (U+0000); found one at ${where}.`, {
    issues: [{ path: where, message: "Text may not contain NUL characters (U+0000)" }],
  });
}

/**
 * Reads and parses a JSON body with `schema`. Errors: `payload_too_large` (413) above
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    // Only numbers above their maximum (e.g. a grant ceiling beyond what a money column holds): 422.
    if (parsed.error.issues.every((i) => i.code === "too_big" && (i as { origin?: string }).origin === "number")) {
      throw new DomainError("validation_failed", issues.map((i) => `${i.path}: ${i.message}`).join("; "), { issues });
    }
    // One message per problem in plain words (issue 14): the schema's own message when there is
    // one problem ("Give the agent a reason (at least 3 characters)"), else the first and a count.
    const first = issues[0];
    const plain = first && !/^(Invalid input|Too (big|small)|Expected|Unrecognized)/i.test(first.message) ? first.message : null;
    const message = plain ? (issues.length === 1 ? `${plain}.`.replace(/\.\.$/, ".") : `${plain} (and ${issues.length - 1} more problem${issues.length === 2 ? "" : "s"} in the request).`) : "The request body has the wrong shape.";
    throw new DomainError("bad_request", message, { issues });
 */
export async function readJson<T>(req: Request, schema: ZodType<T>): Promise<T> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  let raw: unknown;
  let text: string;
  try {
    text = await req.text();
  } catch {
    throw new DomainError("invalid_json", "The request body could not be read.");
  }
  if (Buffer.byteLength(text, "utf8") > MAX_BODY_BYTES) throw tooLarge();
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new DomainError("invalid_json", "The request body is not valid JSON.");
  }
  const nul = nulPath(raw);
  if (nul !== null) throw nulRefusal(nul);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    // Only numbers above their maximum (e.g. a grant ceiling beyond what a money column holds): 422.
    if (parsed.error.issues.every((i) => i.code === "too_big" && (i as { origin?: string }).origin === "number")) {
      throw new DomainError("validation_failed", issues.map((i) => `${i.path}: ${i.message}`).join("; "), { issues });
    }
    // One message per problem in plain words (issue 14): the schema's own message when there is
    // one problem ("Give the agent a reason (at least 3 characters)"), else the first and a count.
    const first = issues[0];
    const plain = first && !/^(Invalid input|Too (big|small)|Expected|Unrecognized)/i.test(first.message) ? first.message : null;
    const message = plain ? (issues.length === 1 ? `${plain}.`.replace(/\.\.$/, ".") : `${plain} (and ${issues.length - 1} more problem${issues.length === 2 ? "" : "s"} in the request).`) : "The request body has the wrong shape.";
    throw new DomainError("bad_request", message, { issues });
  }
  return parsed.data;
}
