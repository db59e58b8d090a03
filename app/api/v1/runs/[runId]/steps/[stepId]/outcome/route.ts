import { reportOutcomeEndpoint } from "@/lib/api/endpoints";
import { reportOutcome } from "@/lib/server/claims/report-outcome";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/runs/{runId}/steps/{stepId}/outcome` → `{step, run}` (lib/api/endpoints.ts `reportOutcomeEndpoint`). */
export const POST = route(reportOutcomeEndpoint, async ({ caller, params, body }) => {
  const { step, run, replayed } = await reportOutcome(caller, params.runId, params.stepId, body);
  return { body: { step, run }, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
