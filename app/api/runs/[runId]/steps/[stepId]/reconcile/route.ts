import { reconcileStepEndpoint } from "@/lib/api/endpoints";
import { reconcileStep } from "@/lib/server/claims/reconcile-step";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/steps/{stepId}/reconcile` → 201 `{step, run}`, 200 when already recorded (lib/api/endpoints.ts `reconcileStepEndpoint`). */
export const POST = route(reconcileStepEndpoint, async ({ caller, params, body }) => {
  const { step, run, replayed } = await reconcileStep(caller, params.runId, params.stepId, body);
  return { status: replayed ? 200 : 201, body: { step, run } };
});
