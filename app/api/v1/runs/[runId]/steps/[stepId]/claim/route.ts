import { claimStepEndpoint } from "@/lib/api/endpoints";
import { claimStep } from "@/lib/server/claims/claim-step";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/runs/{runId}/steps/{stepId}/claim` → `{claim}` (lib/api/endpoints.ts `claimStepEndpoint`). */
export const POST = route(claimStepEndpoint, async ({ caller, params, body, idempotencyKey }) => {
  const { claim, replayed } = await claimStep(caller, params.runId, params.stepId, body, idempotencyKey);
  return { body: { claim }, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
