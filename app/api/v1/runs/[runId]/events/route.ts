import { NextResponse } from "next/server";
import { agentRunEventsEndpoint } from "@/lib/api/endpoints";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView, type RunView } from "@/lib/server/plans/run-view";
import { runEventStream } from "@/lib/server/runs/run-events";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/runs/{runId}/events` → the calling agent's run as server-sent events until it ends
 * (lib/server/runs/run-events.ts), or `{run}` without `Accept: text/event-stream`
 * (lib/api/endpoints/agent-api.ts `agentRunEventsEndpoint`). Another agent's or desk's run: 404.
 */
export const GET = route(agentRunEventsEndpoint, async ({ req, caller, params }) => {
  const scope = { agentId: caller.id, desk: agentDesk(caller) };
  await loadRun(params.runId, scope);
  const read = async (): Promise<RunView> => {
    await expireIfDue(params.runId);
    return toRunView(await loadRun(params.runId, scope));
  };
  if (!(req.headers.get("accept") ?? "").includes("text/event-stream")) {
    return NextResponse.json({ run: await read() }, { headers: { "cache-control": "no-store" } });
  }
  return new Response(runEventStream(params.runId, read, req.signal, { lastEventId: req.headers.get("last-event-id") }), {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
});
