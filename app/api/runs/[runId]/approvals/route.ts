import { approveStepsEndpoint } from "@/lib/api/endpoints";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { route } from "@/lib/server/route";

/** `POST /api/runs/{runId}/approvals` → 201 `{approvals, run}` (lib/api/endpoints.ts `approveStepsEndpoint`). */
export const POST = route(approveStepsEndpoint, async ({ caller, params, body }) => ({ body: await approveSteps(caller, params.runId, body) }));
