import { getAgentRunEndpoint } from "@/lib/api/endpoints";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView, type RunView, type RunWithRelations } from "@/lib/server/plans/run-view";
import { hasDeadline } from "@/lib/lifecycle/run-state";
import { waitForRun } from "@/lib/server/runs/wait-for-run";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";

/**
 * `GET /api/v1/runs/{runId}[?wait=N]` → `{run}` of the calling agent (lib/api/endpoints.ts
 * `getAgentRunEndpoint`); a passed deadline is persisted first (without one, the run is read
 * once). With `wait`, a run still waiting for a person (pending review, or needing a new
 * decision) is held until it changes or N seconds pass (long poll on the live fan-out).
 */
export const GET = route(getAgentRunEndpoint, async ({ req, caller, params, query }) => {
  const scope = { agentId: caller.id, desk: agentDesk(caller) };
  // The first reading (404 outside the caller's scope) is the answer when no deadline has passed
  // in it: only a waiting run past `expiresAt` is expired (persisted) and read again.
  const first = await loadRun(params.runId, scope);
  const read = async (reading?: RunWithRelations): Promise<RunView> => {
    if (reading && !(hasDeadline(reading.status) && reading.expiresAt.getTime() <= Date.now())) return toRunView(reading);
    await expireIfDue(params.runId);
    return toRunView(await loadRun(params.runId, scope));
  };
  let last: RunView | null = null;
  const run = (query.wait ?? 0) > 0
    ? await waitForRun(params.runId, query.wait ?? 0, async () => {
        last = await read();
        return last.status === "pending_review" || last.status === "needs_decision" ? null : last;
      }, req.signal)
    : null;
  return { body: { run: run ?? last ?? (await read(first)) } };
});
