import { markNotificationsReadEndpoint } from "@/lib/api/endpoints";
import { markNotificationsRead } from "@/lib/server/ownership/notifications";
import { route } from "@/lib/server/route/route";

/** `POST /api/notifications/read` → 200 `{marked, unread}` (`markNotificationsReadEndpoint`). */
export const POST = route(markNotificationsReadEndpoint, async ({ caller, body }) => ({ body: await markNotificationsRead(caller, body.ids) }));
