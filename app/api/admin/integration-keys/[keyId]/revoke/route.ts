import { revokeIntegrationKeyEndpoint } from "@/lib/api/endpoints";
import { revokeIntegrationKey } from "@/lib/server/admin/integration-keys";
import { route } from "@/lib/server/route/route";

/** `POST /api/admin/integration-keys/{keyId}/revoke` → `{integrationKey}` (lib/api/endpoints.ts `revokeIntegrationKeyEndpoint`). */
export const POST = route(revokeIntegrationKeyEndpoint, async ({ caller, params }) => ({ body: { integrationKey: await revokeIntegrationKey(caller, params.keyId) } }));
