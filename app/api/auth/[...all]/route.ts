import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/server/auth/auth";
import { toApiAuthError } from "@/lib/server/auth/auth-errors";
import { guardSignIn } from "@/lib/server/auth/sign-in-guard";
import { DomainError } from "@/lib/errors/domain-error";
import { boundedRequest, databaseUnavailable, errorResponse } from "@/lib/server/http/http";

const handlers = toNextJsHandler(auth);

/**
 * better-auth's own endpoints (sign-in, sign-out, session), with refusals in the API's error shape
 * (lib/server/auth/auth-errors.ts); email sign-in is limited per address and per account first
 * (lib/server/auth/sign-in-guard.ts: 429 with Retry-After). A POST body is bounded first like every
 * endpoint's (lib/server/http/http.ts `boundedRequest`: 413 above 1 MiB or 64 levels, 400 for bytes that
 * are not UTF-8), before better-auth reads it. A lost database answers 503 `database_unavailable`
 * with Retry-After, as on every endpoint.
 */
export const GET = (req: Request) => orUnavailable(async () => toApiAuthError(await handlers.GET(req)));
export const POST = (req: Request) => orUnavailable(() => signInOrAuth(req));

/** The answer of `answer`, or 503 `database_unavailable` when it threw because the database is unavailable. */
async function orUnavailable(answer: () => Promise<Response>): Promise<Response> {
  try {
    return await answer();
  } catch (e) {
    const unavailable = databaseUnavailable(e);
    if (!unavailable) throw e;
    console.error("plandesk: database unavailable in /api/auth", e instanceof Error ? e.message : e);
    return errorResponse(unavailable);
  }
}

async function signInOrAuth(req: Request): Promise<Response> {
  let bounded: Request;
  try {
    bounded = await boundedRequest(req); // the same body bounds as every declared endpoint
  } catch (e) {
    if (e instanceof DomainError) return errorResponse(e);
    throw e;
  }
  return guardSignIn(bounded, async (r) => toApiAuthError(await handlers.POST(r)));
}
