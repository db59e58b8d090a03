import { demoEffectEndpoint } from "@/lib/api/endpoints";
import { applyDemoEffect } from "@/lib/server/demo/demo-effects";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/demo/effects` → `{effect}`, demo mode only (lib/api/endpoints.ts `demoEffectEndpoint`). */
export const POST = route(demoEffectEndpoint, async ({ caller, body }) => {
  const { effect, replayed } = await applyDemoEffect(caller, body);
  return { body: { effect }, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
