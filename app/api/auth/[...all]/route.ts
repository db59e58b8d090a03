import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/server/auth/auth";
import { toApiAuthError } from "@/lib/server/auth/auth-errors";
import { guardSignIn } from "@/lib/server/auth/sign-in-guard";
import { DomainError } from "@/lib/errors/domain-error";
import { boundedRequest, errorResponse } from "@/lib/server/http/http";

const handlers = toNextJsHandler(auth);

/**
 * better-auth's own endpoints (sign-in, sign-out, session), with refusals in the API's error shape
 * (lib/server/auth/auth-errors.ts); email sign-in is limited per address and per account first
 * (lib/server/auth/sign-in-guard.ts: 429 with Retry-After). A POST body is bounded first like every
 * endpoint's (lib/server/http/http.ts `boundedRequest`: 413 above 1 MiB or 64 levels, 400 for bytes that
 * are not UTF-8), before better-auth reads it.
 */
export const GET = async (req: Request) => toApiAuthError(await handlers.GET(req));
export const POST = async (req: Request) => {
  let bounded: Request;
  try {
    bounded = await boundedRequest(req); // the same body bounds as every declared endpoint
  } catch (e) {
    if (e instanceof DomainError) return errorResponse(e);
    throw e;
  }
  return guardSignIn(bounded, async (r) => toApiAuthError(await handlers.POST(r)));
};
