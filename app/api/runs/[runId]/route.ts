import { NextResponse } from "next/server";
import { handle } from "@/lib/server/http";
import { getRunDetails } from "@/lib/server/runs/get-run-details";
import { requireViewer } from "@/lib/server/session";

/** `GET /api/runs/{runId}` — `{run, planVersions, validation, accountContext, task, ticket}`. */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req);
  const { runId } = await ctx.params;
  const { desk: _desk, ...details } = await getRunDetails(runId, viewer);
  return NextResponse.json(details);
});
