import { NextResponse } from "next/server";
import type { ZodType } from "zod";
import { DomainError } from "../errors";

/** JSON error body of API.md: `{error: {code, message, ...details}}` with the code's status. */
export function errorResponse(err: DomainError): NextResponse {
  return NextResponse.json({ error: { code: err.code, message: err.message, ...err.details } }, { status: err.status });
}

/** Largest JSON body accepted: 1 MiB (the largest valid plan is about a quarter of that). */
export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new DomainError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, { limitBytes: MAX_BODY_BYTES });

/**
 * Reads and parses a JSON body with `schema`. Errors: `payload_too_large` (413) above
 * MAX_BODY_BYTES; `invalid_json` (400) for a body that is not JSON; `bad_request` (400) with `issues` for a body of the wrong shape
 * (its message is the schema's own words for the first problem when the schema has words for it).
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
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // One message per problem in plain words (issue 14): the schema's own message when there is
    // one problem ("Give the agent a reason (at least 3 characters)"), else the first and a count.
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    const first = issues[0];
    const plain = first && !/^(Invalid input|Too (big|small)|Expected|Unrecognized)/i.test(first.message) ? first.message : null;
    const message = plain ? (issues.length === 1 ? `${plain}.`.replace(/\.\.$/, ".") : `${plain} (and ${issues.length - 1} more problem${issues.length === 2 ? "" : "s"} in the request).`) : "The request body has the wrong shape.";
    throw new DomainError("bad_request", message, { issues });
  }
  return parsed.data;
}
