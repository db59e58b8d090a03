import { listNotificationsEndpoint } from "@/lib/api/endpoints";
import { listNotifications } from "@/lib/server/ownership/notifications";
import { route } from "@/lib/server/route/route";

/** `GET /api/notifications` → 200 `{notifications, unread, nextCursor}` (`listNotificationsEndpoint`). */
export const GET = route(listNotificationsEndpoint, async ({ caller, query }) => ({ body: await listNotifications(caller, { cursor: query.cursor, limit: query.limit, unreadOnly: query.unread === "1" }) }));
