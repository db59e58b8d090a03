import { createUserEndpoint, listUsersEndpoint } from "@/lib/api/endpoints";
import { createUser, listUsers } from "@/lib/server/admin/admin";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/users` → `{users, nextCursor}` (lib/api/endpoints.ts `listUsersEndpoint`). */
export const GET = route(listUsersEndpoint, async ({ caller, query }) => ({ body: await listUsers(caller, query) }));

/** `POST /api/admin/users` → 201 `{user}` (lib/api/endpoints.ts `createUserEndpoint`). */
export const POST = route(createUserEndpoint, async ({ caller, body }) => ({ body: { user: await createUser(caller, body) } }));
