import { importToolsEndpoint } from "@/lib/api/endpoints/tool-import-api";
import { route } from "@/lib/server/route/route";
import { importToolsAsAdmin } from "@/lib/server/tools/imported-tools";

/** `POST /api/admin/tools/import` → 201 `{catalogVersion, created, added, changed, unchanged, problems}` (lib/api/endpoints/tool-import-api.ts `importToolsEndpoint`). */
export const POST = route(importToolsEndpoint, async ({ caller, body }) => ({ body: await importToolsAsAdmin(caller, body) }));
