import { declineSuggestionEndpoint } from "@/lib/api/endpoints";
import { declineSuggestion } from "@/lib/server/ownership/suggest-step";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/suggestions/{suggestionId}/decline` → 201 `{suggestion}` (`declineSuggestionEndpoint`). */
export const POST = route(declineSuggestionEndpoint, async ({ caller, params, body }) => ({ body: { suggestion: await declineSuggestion(caller, params.runId, params.suggestionId, body.reason) } }));
