import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/server/auth";
import { toApiAuthError } from "@/lib/server/auth-errors";

const handlers = toNextJsHandler(auth);

/** better-auth's own endpoints (sign-in, sign-out, session), with refusals in the API's error shape (lib/server/auth-errors.ts). */
export const GET = async (req: Request) => toApiAuthError(await handlers.GET(req));
export const POST = async (req: Request) => toApiAuthError(await handlers.POST(req));
