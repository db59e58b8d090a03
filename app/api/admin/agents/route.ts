import { createAgentEndpoint, listAgentsEndpoint } from "@/lib/api/endpoints";
import { createAgent, listAgents } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route";

/** `GET /api/admin/agents` → `{agents}` (lib/api/endpoints.ts `listAgentsEndpoint`). */
export const GET = route(listAgentsEndpoint, async ({ caller }) => ({ body: { agents: await listAgents(caller) } }));

/** `POST /api/admin/agents` → 201 `{agent}` (lib/api/endpoints.ts `createAgentEndpoint`). */
export const POST = route(createAgentEndpoint, async ({ caller, body }) => ({ body: { agent: await createAgent(caller, body) } }));
