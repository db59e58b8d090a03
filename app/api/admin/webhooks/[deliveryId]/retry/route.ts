import { retryWebhookEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { retryWebhookDelivery } from "@/lib/server/admin/admin-webhooks";

/** `POST /api/admin/webhooks/{deliveryId}/retry` → `{delivery}` (lib/api/endpoints/live-api.ts `retryWebhookEndpoint`). */
export const POST = route(retryWebhookEndpoint, async ({ caller, params }) => ({ body: await retryWebhookDelivery(caller, params.deliveryId) }));
