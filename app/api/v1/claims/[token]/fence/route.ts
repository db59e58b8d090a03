import { fenceClaimEndpoint } from "@/lib/api/endpoints";
import { fenceClaim } from "@/lib/server/claims/fence-claim";
import { route } from "@/lib/server/route/route";

/** `POST /api/v1/claims/{token}/fence` {targetVersions?} → `{fence}` or 409 `claim_fenced` / `target_changed` (lib/api/endpoints.ts `fenceClaimEndpoint`). */
export const POST = route(fenceClaimEndpoint, async ({ caller, params, body }) => ({ body: { fence: await fenceClaim(caller, params.token, body) } }));
