import { submitEditEndpoint } from "@/lib/api/endpoints";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/edits` → 201 `{planVersion, diff, validation, reapproval}`, 200 when unchanged (lib/api/endpoints.ts `submitEditEndpoint`). */
export const POST = route(submitEditEndpoint, async ({ caller, params, body }) => {
  const result = await submitEdit(caller, params.runId, body);
  return { status: result.unchanged ? 200 : 201, body: result };
});
