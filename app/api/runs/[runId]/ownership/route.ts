import { runOwnershipEndpoint } from "@/lib/api/endpoints";
import { getRunOwnership } from "@/lib/server/ownership/get-run-ownership";
import { route } from "@/lib/server/route/route";

/** `GET /api/runs/{runId}/ownership` → 200 (`runOwnershipEndpoint`). */
export const GET = route(runOwnershipEndpoint, async ({ caller, params }) => ({ body: await getRunOwnership(caller, params.runId) }));
