import { revokeApiKeyEndpoint } from "@/lib/api/endpoints";
import { revokeApiKey } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `POST /api/admin/agents/{agentId}/keys/{keyId}/revoke` → `{apiKey}` (lib/api/endpoints.ts `revokeApiKeyEndpoint`). */
export const POST = route(revokeApiKeyEndpoint, async ({ caller, params }) => ({ body: { apiKey: await revokeApiKey(caller, params.agentId, params.keyId) } }));
