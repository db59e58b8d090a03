import { takeRunEndpoint } from "@/lib/api/endpoints";
import { takeRun } from "@/lib/server/ownership/assign-run";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/take` → 200 `{assignment}` (`takeRunEndpoint`). */
export const POST = route(takeRunEndpoint, async ({ caller, params }) => ({ body: { assignment: await takeRun(caller, params.runId) } }));
