import { assignRunEndpoint } from "@/lib/api/endpoints";
import { assignRun } from "@/lib/server/ownership/assign-run";
import { route } from "@/lib/server/route/route";

/** `PUT /api/runs/{runId}/assignee` → 200 `{assignment}` (supervisors; `assignRunEndpoint`). */
export const PUT = route(assignRunEndpoint, async ({ caller, params, body }) => ({ body: { assignment: await assignRun(caller, params.runId, body.assigneeId) } }));
