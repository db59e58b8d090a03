import { requestApprovalEndpoint } from "@/lib/api/endpoints";
import { requestApproval } from "@/lib/server/ownership/request-approval";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/approval-requests` → 201 `{request}` (`requestApprovalEndpoint`). */
export const POST = route(requestApprovalEndpoint, async ({ caller, params, body }) => ({ body: { request: await requestApproval(caller, params.runId, body) } }));
