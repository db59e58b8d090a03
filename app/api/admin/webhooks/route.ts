import { listWebhookFailuresEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { listWebhookFailures } from "@/lib/server/admin/admin-webhooks";

/** `GET /api/admin/webhooks?cursor&limit` → `{deliveries, nextCursor}` (lib/api/endpoints/live-api.ts `listWebhookFailuresEndpoint`). */
export const GET = route(listWebhookFailuresEndpoint, async ({ caller, query }) => ({ body: await listWebhookFailures(caller, query) }));
