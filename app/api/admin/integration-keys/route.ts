import { createIntegrationKeyEndpoint, listIntegrationKeysEndpoint } from "@/lib/api/endpoints";
import { createIntegrationKey, listIntegrationKeys } from "@/lib/server/admin/integration-keys";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/integration-keys?cursor&limit` → `{integrationKeys, nextCursor}` (lib/api/endpoints.ts `listIntegrationKeysEndpoint`). */
export const GET = route(listIntegrationKeysEndpoint, async ({ caller, query }) => ({ body: await listIntegrationKeys(caller, query) }));

/** `POST /api/admin/integration-keys` → 201 `{integrationKey, key}`; the key is shown this once (`createIntegrationKeyEndpoint`). */
export const POST = route(createIntegrationKeyEndpoint, async ({ caller, body }) => ({
  status: 201,
  body: await createIntegrationKey(caller, body),
  headers: { "cache-control": "no-store" },
}));
