import { NextResponse } from "next/server";
import type { ZodType } from "zod";
import { DomainError, isDomainError } from "../errors";
import { appendAudit } from "./audit";
import { prisma } from "./db";
import { currentRequest, runWithRequestContext } from "./request-context";

/** JSON error body of API.md: `{error: {code, message, ...details}}` with the code's status. */
export function errorResponse(err: DomainError): NextResponse {
  return NextResponse.json({ error: { code: err.code, message: err.message, ...err.details } }, { status: err.status });
}

/**
 * Wraps a route handler: DomainErrors become their typed JSON refusal; anything unexpected is
 * logged and answered as a generic 500 without internals (never an HTML page or stack trace).
 * Denials are data (DESIGN.md §11): a 401/403 refusal that nothing recorded on its way out
 * (requireViewer, requireAgent, requireRole and the grant checks record their own) is audited
 * here as `denied` with the endpoint, the caller if known, and the refusal's code and message.
 */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>) {
  return async (...args: A): Promise<Response> => {
    const req = args[0] instanceof Request ? args[0] : null;
    const params = await routeParams(args[1]);
    const run = async (): Promise<Response> => {
      try {
        return await fn(...args);
      } catch (e) {
        if (isDomainError(e)) {
          await auditUnrecordedDenial(e);
          return errorResponse(e);
        }
        console.error("plandesk: unexpected error", e);
        return NextResponse.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
      }
    };
    return req ? runWithRequestContext(req, params, run) : run();
  };
}

/** The route's params (`ctx.params`, a promise in Next 16), as strings; `{}` when absent. */
async function routeParams(ctx: unknown): Promise<Record<string, string>> {
  try {
    const p = await (ctx as { params?: Promise<Record<string, unknown>> } | undefined)?.params;
    return Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => typeof v === "string")) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Audits a 401/403 refusal of the current request unless it is already on the record. */
async function auditUnrecordedDenial(err: DomainError): Promise<void> {
  const ctx = currentRequest();
  if (!ctx || ctx.denialHandled || (err.status !== 401 && err.status !== 403)) return;
  try {
    const runId = ctx.params.runId && (await prisma.run.count({ where: { id: ctx.params.runId } })) ? ctx.params.runId : null;
    await appendAudit(prisma, {
      runId,
      type: "denied",
      actor: ctx.actor ?? { kind: "anonymous" },
      data: { action: `${ctx.method} ${ctx.path}`, code: err.code, reason: err.message, ...(ctx.params.stepId ? { stepId: ctx.params.stepId } : {}) },
    });
  } catch (e) {
    console.error("plandesk: could not audit a denial", e);
  }
}

/** Largest JSON body accepted: 1 MiB (the largest valid plan is about a quarter of that). */
export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new DomainError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, { limitBytes: MAX_BODY_BYTES });

/**
 * Reads and parses a JSON body with `schema`. Errors: `payload_too_large` (413) above
 * MAX_BODY_BYTES; `invalid_json` (400) for a body that is not JSON; `bad_request` (400) with `issues` for a body of the wrong shape.
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
    throw new DomainError("bad_request", "The request body has the wrong shape.", {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}
