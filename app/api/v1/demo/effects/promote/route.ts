import { demoPromoteEndpoint } from "@/lib/api/endpoints";
import { promoteStagedEffects } from "@/lib/server/demo/staged-effects";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/demo/effects/promote` → `{promotion}`, demo mode only (lib/api/endpoints.ts `demoPromoteEndpoint`). */
export const POST = route(demoPromoteEndpoint, async ({ caller, body }) => {
  const { promotion, replayed } = await promoteStagedEffects(caller, body);
  return { body: { promotion }, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
