import { NextResponse } from "next/server";
import { rejectBodySchema } from "@/lib/api/bodies";
import { rejectRun } from "@/lib/server/approvals/reject-run";
import { handle, readJson } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/** `POST /api/runs/{runId}/rejections` `{planVersion, reason}` → 201 `{run}`. */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { runId } = await ctx.params;
  const body = await readJson(req, rejectBodySchema);
  return NextResponse.json({ run: await rejectRun(viewer, runId, body) }, { status: 201 });
});
