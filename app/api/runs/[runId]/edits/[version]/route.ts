import { getEditEndpoint } from "@/lib/api/endpoints";
import { getEditDetail } from "@/lib/server/audit/run-audit";
import { route } from "@/lib/server/route/route";

/**
 * `GET /api/runs/{runId}/edits/{version}?part=before|after|diff&download=1` → the stored edit that
 * produced plan version `version`, or only `part`; `download=1` makes it a JSON file download
 * (`<runId>-v<from>-v<to>-<part>.json`). (lib/api/endpoints.ts `getEditEndpoint`.)
 */
export const GET = route(getEditEndpoint, async ({ caller, params, query }) => {
  const edit = await getEditDetail(caller, params.runId, params.version);
  const headers: Record<string, string> = {};
  if (query.download === "1") {
    headers["content-disposition"] = `attachment; filename="${params.runId}-v${edit.fromVersion}-v${edit.toVersion}-${query.part ?? "edit"}.json"`;
  }
  return { body: query.part ? edit[query.part] : edit, headers };
});
