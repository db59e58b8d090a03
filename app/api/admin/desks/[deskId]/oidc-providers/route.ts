import { listOidcProvidersEndpoint, registerOidcProviderEndpoint } from "@/lib/api/endpoints/oidc-provider-api";
import { route } from "@/lib/server/route/route";
import { listOidcProviders, registerOidcProvider } from "@/lib/server/sso/oidc-providers";

/** `GET /api/admin/desks/{deskId}/oidc-providers` → `{providers}` (lib/api/endpoints/oidc-provider-api.ts `listOidcProvidersEndpoint`). */
export const GET = route(listOidcProvidersEndpoint, async ({ caller, params }) => ({ body: await listOidcProviders(caller, params.deskId) }));

/** `POST /api/admin/desks/{deskId}/oidc-providers` → 201 `{provider}` (lib/api/endpoints/oidc-provider-api.ts `registerOidcProviderEndpoint`). */
export const POST = route(registerOidcProviderEndpoint, async ({ caller, params, body }) => ({ body: { provider: await registerOidcProvider(caller, params.deskId, body) } }));
