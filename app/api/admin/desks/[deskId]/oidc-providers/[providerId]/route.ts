import { disableOidcProviderEndpoint } from "@/lib/api/endpoints/oidc-provider-api";
import { route } from "@/lib/server/route/route";
import { disableOidcProvider } from "@/lib/server/sso/oidc-providers";

/** `DELETE /api/admin/desks/{deskId}/oidc-providers/{providerId}` → 200 `{provider}` (lib/api/endpoints/oidc-provider-api.ts `disableOidcProviderEndpoint`). */
export const DELETE = route(disableOidcProviderEndpoint, async ({ caller, params }) => ({ body: { provider: await disableOidcProvider(caller, params.deskId, params.providerId) } }));
