import { oidcBackchannelLogoutEndpoint } from "@/lib/api/endpoints/oidc-provider-api";
import { route } from "@/lib/server/route/route";
import { backchannelLogout } from "@/lib/server/sso/backchannel-logout";

/**
 * `POST /api/auth/oidc/backchannel-logout/{providerId}` → 200 `{sessionsEnded}` (lib/api/endpoints/oidc-provider-api.ts
 * `oidcBackchannelLogoutEndpoint`). Called by the identity provider: the logout token is the
 * credential. Never cached (OpenID Connect Back-Channel Logout 1.0 §2.8).
 */
export const POST = route(oidcBackchannelLogoutEndpoint, async ({ params, body }) => ({ body: await backchannelLogout(params.providerId, body.logout_token) }));
