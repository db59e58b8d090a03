import { getIntentCatalogEndpoint, saveIntentCatalogEndpoint } from "@/lib/api/endpoints";
import { getIntentCatalogForAdmin, saveIntentCatalog } from "@/lib/server/tasks/intent-catalog-admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/desks/{deskId}/intents` → `{desk, intents, digest, tools}` (lib/api/desk-endpoints.ts `getIntentCatalogEndpoint`). */
export const GET = route(getIntentCatalogEndpoint, async ({ caller, params }) => ({ body: await getIntentCatalogForAdmin(caller, params.deskId) }));

/** `PUT /api/admin/desks/{deskId}/intents` → 200 `{desk, intents, digest, tools}` (lib/api/desk-endpoints.ts `saveIntentCatalogEndpoint`). */
export const PUT = route(saveIntentCatalogEndpoint, async ({ caller, params, body }) => ({ body: await saveIntentCatalog(caller, params.deskId, body) }));
