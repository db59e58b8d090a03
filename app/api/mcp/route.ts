import { mcpGatewayEndpoint } from "@/lib/api/endpoints";
import { handleMcpRequest } from "@/lib/server/gateway/mcp-gateway-server";
import { boundedRequest } from "@/lib/server/http/http";
import { route } from "@/lib/server/route/route";

/** `POST /api/mcp` — Plandesk's MCP endpoint for agents (lib/api/endpoints/mcp-gateway-api.ts `mcpGatewayEndpoint`). */
export const POST = route(mcpGatewayEndpoint, async ({ caller, req }) => handleMcpRequest(caller, await boundedRequest(req)));
