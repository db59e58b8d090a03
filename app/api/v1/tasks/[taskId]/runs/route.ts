import { submitRunEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { submitRun } from "@/lib/server/runs/submit-run";

/** `POST /api/v1/tasks/{taskId}/runs` → 201 `{run}` (lib/api/endpoints.ts `submitRunEndpoint`). */
export const POST = route(submitRunEndpoint, async ({ caller, params, body, idempotencyKey }) => {
  const { run, replayed } = await submitRun(caller, params.taskId, body, idempotencyKey);
  return { body: { run }, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
