import { undoWrittenStepsEndpoint } from "@/lib/api/endpoints";
import { undoWrittenSteps } from "@/lib/server/gateway/undo-written-steps";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/undo` → 201 `{run}` (200 when proposed before; `undoWrittenStepsEndpoint`). */
export const POST = route(undoWrittenStepsEndpoint, async ({ caller, params }) => {
  const { run, replayed } = await undoWrittenSteps(caller, params.runId);
  return { status: replayed ? 200 : 201, body: { run } };
});
