import { createAgentEndpoint, listAgentsEndpoint } from "@/lib/api/endpoints";
import { createAgent, listAgents } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/agents?cursor&limit` → `{agents, nextCursor}` (lib/api/endpoints.ts `listAgentsEndpoint`). */
export const GET = route(listAgentsEndpoint, async ({ caller, query }) => ({ body: await listAgents(caller, query) }));

/** `POST /api/admin/agents` → 201 `{agent}` (lib/api/endpoints.ts `createAgentEndpoint`). */
export const POST = route(createAgentEndpoint, async ({ caller, body }) => ({ body: { agent: await createAgent(caller, body) } }));
