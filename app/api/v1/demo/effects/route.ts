import { demoEffectEndpoint } from "@/lib/api/endpoints";
import { applyDemoEffect } from "@/lib/server/demo/demo-effects";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/demo/effects` → `{effect}`, or `{staged}` with `stage: true`; demo mode only (lib/api/endpoints.ts `demoEffectEndpoint`). */
export const POST = route(demoEffectEndpoint, async ({ caller, body }) => {
  const { replayed, ...answer } = await applyDemoEffect(caller, body);
  return { body: answer, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
