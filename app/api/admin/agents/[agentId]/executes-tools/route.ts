import { setExecutesToolsEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { setAgentExecutesTools } from "@/lib/server/tools/imported-tools";

/** `PUT /api/admin/agents/{agentId}/executes-tools` → `{agent: {id, executesTools, effectiveExecutesTools}}` (lib/api/endpoints/tool-import-api.ts `setExecutesToolsEndpoint`). */
export const PUT = route(setExecutesToolsEndpoint, async ({ caller, params, body }) => ({ body: { agent: await setAgentExecutesTools(caller, params.agentId, body.executesTools) } }));
