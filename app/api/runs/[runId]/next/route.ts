import { nextRunEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { findNextRun } from "@/lib/server/runs/next-run";
import { deskScope } from "@/lib/server/auth/session";

/** `GET /api/runs/{runId}/next` → `{next: {id, ticketId, expiresAt} | null}` (lib/api/endpoints.ts `nextRunEndpoint`); the caller's parked runs are left out. */
export const GET = route(nextRunEndpoint, async ({ caller, params }) => {
  return { body: { next: await findNextRun(params.runId, deskScope(caller), new Date(), caller.id) } };
});
