import { diffVersionsEndpoint } from "@/lib/api/endpoints";
import { diffVersions } from "@/lib/server/edits/diff-versions";
import { route } from "@/lib/server/route/route";

/** `GET /api/runs/{runId}/diff?from=1&to=3` → `{diff, reapproval, from, to}` (lib/api/endpoints.ts `diffVersionsEndpoint`). */
export const GET = route(diffVersionsEndpoint, async ({ caller, params, query }) => ({ body: await diffVersions(caller, params.runId, query.from, query.to) }));
