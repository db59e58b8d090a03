import { listToolCatalogEndpoint } from "@/lib/api/endpoints/tool-import-api";
import { route } from "@/lib/server/route/route";
import { listCatalogForAdmin } from "@/lib/server/tools/imported-tools";

/** `GET /api/admin/tools` → `{catalogVersion, imported, builtIn}` (lib/api/endpoints/tool-import-api.ts `listToolCatalogEndpoint`). */
export const GET = route(listToolCatalogEndpoint, async ({ caller }) => ({ body: await listCatalogForAdmin(caller) }));
