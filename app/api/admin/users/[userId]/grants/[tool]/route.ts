import { setGrantEndpoint } from "@/lib/api/endpoints";
import { setGrant } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `PUT /api/admin/users/{userId}/grants/{tool}` → `{grant}` (lib/api/endpoints.ts `setGrantEndpoint`). */
export const PUT = route(setGrantEndpoint, async ({ caller, params, body }) => ({ body: { grant: await setGrant(caller, params.userId, params.tool, body) } }));
