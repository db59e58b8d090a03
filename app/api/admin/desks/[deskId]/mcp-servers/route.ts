import { listMcpUpstreamsEndpoint, registerMcpUpstreamEndpoint } from "@/lib/api/endpoints/mcp-upstream-api";
import { route } from "@/lib/server/route/route";
import { listMcpUpstreams, registerMcpUpstream } from "@/lib/server/tools/mcp-upstreams";

/** `GET /api/admin/desks/{deskId}/mcp-servers?cursor&limit` → `{servers, nextCursor}` (lib/api/endpoints/mcp-upstream-api.ts `listMcpUpstreamsEndpoint`). */
export const GET = route(listMcpUpstreamsEndpoint, async ({ caller, params, query }) => ({ body: await listMcpUpstreams(caller, params.deskId, query) }));

/** `POST /api/admin/desks/{deskId}/mcp-servers` → 201 `{server}` (lib/api/endpoints/mcp-upstream-api.ts `registerMcpUpstreamEndpoint`). */
export const POST = route(registerMcpUpstreamEndpoint, async ({ caller, params, body }) => ({ body: { server: await registerMcpUpstream(caller, params.deskId, body) } }));
