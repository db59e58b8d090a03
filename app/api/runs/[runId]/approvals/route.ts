import { NextResponse } from "next/server";
import { approveBodySchema } from "@/lib/api/bodies";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { handle, readJson } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/** `POST /api/runs/{runId}/approvals` → 201 `{approvals, run}`; the same idempotency key returns the same body. */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { runId } = await ctx.params;
  const body = await readJson(req, approveBodySchema);
  return NextResponse.json(await approveSteps(viewer, runId, body), { status: 201 });
});
