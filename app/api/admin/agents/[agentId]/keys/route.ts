import { createApiKeyEndpoint } from "@/lib/api/endpoints";
import { createApiKey } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `POST /api/admin/agents/{agentId}/keys` → 201 `{apiKey, key}`; the key is shown this once (lib/api/endpoints.ts `createApiKeyEndpoint`). */
export const POST = route(createApiKeyEndpoint, async ({ caller, params, body }) => ({
  body: await createApiKey(caller, params.agentId, body),
  headers: { "cache-control": "no-store" },
}));
