import { importMcpUpstreamToolsEndpoint } from "@/lib/api/endpoints/mcp-upstream-api";
import { route } from "@/lib/server/route/route";
import { importMcpUpstreamTools } from "@/lib/server/tools/mcp-upstreams";

/** `POST /api/admin/desks/{deskId}/mcp-servers/{upstreamId}/import` → 201 `{catalogVersion, created, added, changed, unchanged, problems}` (lib/api/endpoints/mcp-upstream-api.ts `importMcpUpstreamToolsEndpoint`). */
export const POST = route(importMcpUpstreamToolsEndpoint, async ({ caller, params, body }) => ({ body: await importMcpUpstreamTools(caller, params.deskId, params.upstreamId, body.bindings) }));
