import { importToolsEndpoint } from "@/lib/api/tool-catalog-endpoints";
import { route } from "@/lib/server/route";
import { importToolsAsAdmin } from "@/lib/server/tool-catalog";

/** `POST /api/admin/tools/import` → 201 `{catalogVersion, created, added, changed, unchanged, problems}` (lib/api/tool-catalog-endpoints.ts `importToolsEndpoint`). */
export const POST = route(importToolsEndpoint, async ({ caller, body }) => ({ body: await importToolsAsAdmin(caller, body) }));
