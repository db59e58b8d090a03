import { runOutcomeEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { getRunOutcome } from "@/lib/server/outcomes/run-outcomes";

/** `GET /api/runs/{runId}/outcome` → 200 `{outcome}` (lib/api/endpoints/outcomes-api.ts `runOutcomeEndpoint`). */
export const GET = route(runOutcomeEndpoint, async ({ caller, params }) => ({ body: { outcome: await getRunOutcome(caller, params.runId) } }));
