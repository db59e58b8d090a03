import { suggestStepEndpoint } from "@/lib/api/endpoints";
import { suggestStep } from "@/lib/server/ownership/suggest-step";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/suggestions` → 201 `{suggestion}` (`suggestStepEndpoint`). */
export const POST = route(suggestStepEndpoint, async ({ caller, params, body }) => ({ body: { suggestion: await suggestStep(caller, params.runId, body) } }));
