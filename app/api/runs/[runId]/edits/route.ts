import { NextResponse } from "next/server";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { submitEditBodySchema } from "@/lib/api/bodies";
import { handle, readJson } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/**
 * `POST /api/runs/{runId}/edits` `{baseVersion, steps}` → 201 `{planVersion, diff, validation}`
 * (200 with `unchanged: true` when nothing changed); 409 `stale_plan_version`; 422; 403.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { runId } = await ctx.params;
  const body = await readJson(req, submitEditBodySchema);
  const result = await submitEdit(viewer, runId, body);
  return NextResponse.json(result, { status: result.unchanged ? 200 : 201 });
});
