import { getAgentRunEndpoint } from "@/lib/api/endpoints";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView, type RunView } from "@/lib/server/plans/run-view";
import { waitForRun } from "@/lib/server/runs/wait-for-run";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";

/**
 * `GET /api/v1/runs/{runId}[?wait=N]` → `{run}` of the calling agent (lib/api/endpoints.ts
 * `getAgentRunEndpoint`); a passed deadline is persisted first. With `wait`, a run still
 * waiting for a person (pending review, or needing a new decision) is held until it changes or N
 * seconds pass (long poll on the live fan-out).
 */
export const GET = route(getAgentRunEndpoint, async ({ req, caller, params, query }) => {
  const scope = { agentId: caller.id, desk: agentDesk(caller) };
  await loadRun(params.runId, scope);
  const read = async (): Promise<RunView> => {
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
  return { body: { run: run ?? last ?? (await read()) } };
});
