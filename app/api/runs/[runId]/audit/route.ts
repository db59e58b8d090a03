import { runAuditEndpoint } from "@/lib/api/endpoints";
import { getRunAudit } from "@/lib/server/audit/run-audit";
import { route } from "@/lib/server/route/route";

/** `GET /api/runs/{runId}/audit` → `{events, run, planVersions, edits}` (lib/api/endpoints.ts `runAuditEndpoint`). */
export const GET = route(runAuditEndpoint, async ({ caller, params }) => {
  const audit = await getRunAudit(caller, params.runId);
  return { body: { events: audit.events, run: audit.run, planVersions: audit.planVersions, edits: audit.edits, effectComparisons: audit.effectComparisons } };
});
