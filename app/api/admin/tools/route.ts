import { listToolCatalogEndpoint } from "@/lib/api/tool-catalog-endpoints";
import { route } from "@/lib/server/route";
import { listCatalogForAdmin } from "@/lib/server/tool-catalog";

/** `GET /api/admin/tools` → `{catalogVersion, imported, builtIn}` (lib/api/tool-catalog-endpoints.ts `listToolCatalogEndpoint`). */
export const GET = route(listToolCatalogEndpoint, async ({ caller }) => ({ body: await listCatalogForAdmin(caller) }));
