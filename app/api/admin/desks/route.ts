import { createDeskEndpoint, listDesksEndpoint } from "@/lib/api/endpoints";
import { createDesk, listDesks } from "@/lib/server/admin/desks";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/desks?cursor&limit` → `{desks, nextCursor}` (lib/api/desk-endpoints.ts `listDesksEndpoint`). */
export const GET = route(listDesksEndpoint, async ({ caller, query }) => ({ body: await listDesks(caller, query) }));

/** `POST /api/admin/desks` → 201 `{desk}` (lib/api/desk-endpoints.ts `createDeskEndpoint`). */
export const POST = route(createDeskEndpoint, async ({ caller, body }) => ({ body: { desk: await createDesk(caller, body) } }));
