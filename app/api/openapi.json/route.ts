import { openApiEndpoint } from "@/lib/api/endpoints";
import { buildOpenApi } from "@/lib/api/openapi";
import { route } from "@/lib/server/route/route";

/** `GET /api/openapi.json` — the whole API as OpenAPI 3.1, generated from the endpoint declarations. Public. */
export const GET = route(openApiEndpoint, async () => ({ body: buildOpenApi() as unknown as Record<string, unknown> }));
