import { NextResponse } from "next/server";
import { handle } from "@/lib/server/http";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/runs/load-run";
import { toRunView } from "@/lib/server/runs/run-view";
import { requireAgent } from "@/lib/server/session";

/** `GET /api/v1/runs/{runId}` → `{run}` of the calling agent; 404 for another agent's run. */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const agent = await requireAgent(req);
  const { runId } = await ctx.params;
  await loadRun(runId, { agentId: agent.id });
  await expireIfDue(runId);
  return NextResponse.json({ run: toRunView(await loadRun(runId, { agentId: agent.id })) });
});
