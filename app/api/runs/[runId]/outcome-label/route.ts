import { labelOutcomeEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { labelRunOutcome } from "@/lib/server/outcomes/run-outcomes";

/** `PUT /api/runs/{runId}/outcome-label` → 200 `{outcome}`, supervisors only (lib/api/endpoints/outcomes-api.ts `labelOutcomeEndpoint`). */
export const PUT = route(labelOutcomeEndpoint, async ({ caller, params, body }) => ({ body: { outcome: await labelRunOutcome(caller, params.runId, body) } }));
