import { acceptSuggestionEndpoint } from "@/lib/api/endpoints";
import { acceptSuggestion } from "@/lib/server/ownership/suggest-step";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/suggestions/{suggestionId}/accept` (body `{reasons?}`) → 201 `{suggestion, edit}` (`acceptSuggestionEndpoint`). */
export const POST = route(acceptSuggestionEndpoint, async ({ caller, params, body }) => ({ body: await acceptSuggestion(caller, params.runId, params.suggestionId, new Date(), body.reasons ?? {}) }));
