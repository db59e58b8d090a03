import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/server/auth";
import { toApiAuthError } from "@/lib/server/auth-errors";
import { guardSignIn } from "@/lib/server/sign-in-guard";

const handlers = toNextJsHandler(auth);

/**
 * better-auth's own endpoints (sign-in, sign-out, session), with refusals in the API's error shape
 * (lib/server/auth-errors.ts); email sign-in is limited per address and per account first
 * (lib/server/sign-in-guard.ts: 429 with Retry-After).
 */
export const GET = async (req: Request) => toApiAuthError(await handlers.GET(req));
export const POST = async (req: Request) => guardSignIn(req, async (r) => toApiAuthError(await handlers.POST(r)));
