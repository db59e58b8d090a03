import { approveStepsEndpoint } from "@/lib/api/endpoints";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { route } from "@/lib/server/route/route";

/**
 * `POST /api/runs/{runId}/approvals` → 201 `{approvals, run, alreadyApproved, added}`; 200 when
 * nothing was added (every listed step was already approved) (lib/api/endpoints.ts `approveStepsEndpoint`).
 */
export const POST = route(approveStepsEndpoint, async ({ caller, params, body }) => {
  const result = await approveSteps(caller, params.runId, body);
  return { status: result.added === 0 ? 200 : 201, body: result };
});
