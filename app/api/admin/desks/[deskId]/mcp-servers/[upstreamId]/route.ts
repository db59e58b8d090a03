import { disableMcpUpstreamEndpoint } from "@/lib/api/endpoints/mcp-upstream-api";
import { route } from "@/lib/server/route/route";
import { disableMcpUpstream } from "@/lib/server/tools/mcp-upstreams";

/** `DELETE /api/admin/desks/{deskId}/mcp-servers/{upstreamId}` → 200 `{server}` (lib/api/endpoints/mcp-upstream-api.ts `disableMcpUpstreamEndpoint`). */
export const DELETE = route(disableMcpUpstreamEndpoint, async ({ caller, params }) => ({ body: { server: await disableMcpUpstream(caller, params.deskId, params.upstreamId) } }));
