import { recordPresenceEndpoint } from "@/lib/api/endpoints";
import { recordPresence } from "@/lib/server/live/presence";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/presence` → {presence} (lib/api/endpoints/live-api.ts `recordPresenceEndpoint`). */
export const POST = route(recordPresenceEndpoint, async ({ caller, params, body }) => ({
  body: { presence: await recordPresence(caller, params.runId, body.mode) },
}));
