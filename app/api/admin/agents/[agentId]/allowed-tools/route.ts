import { setAllowedToolsEndpoint } from "@/lib/api/endpoints/tool-import-api";
import { route } from "@/lib/server/route/route";
import { setAgentAllowedTools } from "@/lib/server/tools/imported-tools";

/** `PUT /api/admin/agents/{agentId}/allowed-tools` → `{agent: {id, allowedTools}}` (lib/api/endpoints/tool-import-api.ts `setAllowedToolsEndpoint`). */
export const PUT = route(setAllowedToolsEndpoint, async ({ caller, params, body }) => ({ body: { agent: await setAgentAllowedTools(caller, params.agentId, body.allowedTools) } }));
