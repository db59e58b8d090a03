import { getAgentRunEndpoint } from "@/lib/api/endpoints";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/runs/load-run";
import { toRunView } from "@/lib/server/runs/run-view";
import { route } from "@/lib/server/route";
import { agentDesk } from "@/lib/server/session";

/** `GET /api/v1/runs/{runId}` → `{run}` of the calling agent (lib/api/endpoints.ts `getAgentRunEndpoint`); a passed deadline is persisted first. */
export const GET = route(getAgentRunEndpoint, async ({ caller, params }) => {
  await loadRun(params.runId, { agentId: caller.id, desk: agentDesk(caller) });
  await expireIfDue(params.runId);
  return { body: { run: toRunView(await loadRun(params.runId, { agentId: caller.id, desk: agentDesk(caller) })) } };
});
