import { NextResponse } from "next/server";
import type { ZodType } from "zod";
import { DomainError, isDomainError } from "../errors";

/** JSON error body of API.md: `{error: {code, message, ...details}}` with the code's status. */
export function errorResponse(err: DomainError): NextResponse {
  return NextResponse.json({ error: { code: err.code, message: err.message, ...err.details } }, { status: err.status });
}

/**
 * Wraps a route handler: DomainErrors become their typed JSON refusal; anything unexpected is
 * logged and answered as a generic 500 without internals (never an HTML page or stack trace).
 */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>) {
  return async (...args: A): Promise<Response> => {
    try {
      return await fn(...args);
    } catch (e) {
      if (isDomainError(e)) return errorResponse(e);
      console.error("plandesk: unexpected error", e);
      return NextResponse.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
    }
  };
}

/**
 * Reads and parses a JSON body with `schema`. Errors: `invalid_json` (400) for a body that is
 * not JSON; `bad_request` (400) with `issues` for a body of the wrong shape.
 */
export async function readJson<T>(req: Request, schema: ZodType<T>): Promise<T> {
  let raw: unknown;
  try {
    const text = await req.text();
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new DomainError("invalid_json", "The request body is not valid JSON.");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new DomainError("bad_request", "The request body has the wrong shape.", {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}
