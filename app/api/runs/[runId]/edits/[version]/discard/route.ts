import { discardEditEndpoint } from "@/lib/api/endpoints";
import { discardEdit } from "@/lib/server/edits/discard-edit";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/edits/{version}/discard` → 201 `{planVersion}` (lib/api/endpoints.ts `discardEditEndpoint`). */
export const POST = route(discardEditEndpoint, async ({ caller, params }) => ({ body: await discardEdit(caller, params.runId, params.version) }));
