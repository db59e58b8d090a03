import { rejectRunEndpoint } from "@/lib/api/endpoints";
import { rejectRun } from "@/lib/server/approvals/reject-run";
import { route } from "@/lib/server/route/route";

/** `POST /api/runs/{runId}/rejections` → 201 `{run}` (lib/api/endpoints.ts `rejectRunEndpoint`). */
export const POST = route(rejectRunEndpoint, async ({ caller, params, body }) => ({ body: { run: await rejectRun(caller, params.runId, body) } }));
