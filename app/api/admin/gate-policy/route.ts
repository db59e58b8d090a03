import { getGatePolicyEndpoint, saveGatePolicyEndpoint } from "@/lib/api/gate-policy-endpoints";
import { getGatePolicyForAdmin } from "@/lib/server/gate-policy/list-gate-policy";
import { saveGatePolicy } from "@/lib/server/gate-policy/save-gate-policy";
import { route } from "@/lib/server/route/route";

/** `GET /api/admin/gate-policy` → `{live, versions}` (lib/api/gate-policy-endpoints.ts). */
export const GET = route(getGatePolicyEndpoint, async ({ caller }) => ({ body: await getGatePolicyForAdmin(caller) }));

/** `PUT /api/admin/gate-policy` → `{policy}`: the draft saved as the next version. */
export const PUT = route(saveGatePolicyEndpoint, async ({ caller, body }) => ({ body: { policy: await saveGatePolicy(caller, body) } }));
