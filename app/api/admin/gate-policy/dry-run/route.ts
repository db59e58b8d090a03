import { dryRunGatePolicyEndpoint } from "@/lib/api/gate-policy-endpoints";
import { dryRunGatePolicy } from "@/lib/server/plan-check/dry-run-gate-policy";
import { route } from "@/lib/server/route/route";

/** `POST /api/admin/gate-policy/dry-run` → what a draft would gate differently. */
export const POST = route(dryRunGatePolicyEndpoint, async ({ caller, body }) => ({ body: await dryRunGatePolicy(caller, body) }));
