import { getUserEndpoint, updateUserEndpoint } from "@/lib/api/endpoints";
import { getUserDetail, updateUser } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/users/{userId}` → `{user, grants}` (lib/api/endpoints.ts `getUserEndpoint`). */
export const GET = route(getUserEndpoint, async ({ caller, params }) => ({ body: await getUserDetail(caller, params.userId) }));

/** `PATCH /api/admin/users/{userId}` → `{user}`; disabling ends the person's sessions (lib/api/endpoints.ts `updateUserEndpoint`). */
export const PATCH = route(updateUserEndpoint, async ({ caller, params, body }) => ({ body: { user: await updateUser(caller, params.userId, body) } }));
