import { updateAgentEndpoint } from "@/lib/api/endpoints";
import { updateAgent } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `PATCH /api/admin/agents/{agentId}` → `{agent}`: assigns the agent to a desk (lib/api/desk-endpoints.ts `updateAgentEndpoint`). */
export const PATCH = route(updateAgentEndpoint, async ({ caller, params, body }) => ({ body: { agent: await updateAgent(caller, params.agentId, body) } }));
