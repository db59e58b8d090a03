import { getRunDetailsEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { getRunDetails } from "@/lib/server/runs/get-run-details";

/** `GET /api/runs/{runId}` → `{run, planVersions, validation, accountContext, …}` (lib/api/endpoints.ts `getRunDetailsEndpoint`). */
export const GET = route(getRunDetailsEndpoint, async ({ caller, params }) => {
  const { desk: _desk, ...details } = await getRunDetails(params.runId, caller);
  return { body: details };
});
