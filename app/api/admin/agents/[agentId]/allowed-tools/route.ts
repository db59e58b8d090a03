import { setAllowedToolsEndpoint } from "@/lib/api/tool-catalog-endpoints";
import { route } from "@/lib/server/route";
import { setAgentAllowedTools } from "@/lib/server/tool-catalog";

/** `PUT /api/admin/agents/{agentId}/allowed-tools` → `{agent: {id, allowedTools}}` (lib/api/tool-catalog-endpoints.ts `setAllowedToolsEndpoint`). */
export const PUT = route(setAllowedToolsEndpoint, async ({ caller, params, body }) => ({ body: { agent: await setAgentAllowedTools(caller, params.agentId, body.allowedTools) } }));
