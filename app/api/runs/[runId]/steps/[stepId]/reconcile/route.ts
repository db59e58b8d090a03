import { NextResponse } from "next/server";
import { reconcileBodySchema } from "@/lib/reconcile-schema";
import { reconcileStep } from "@/lib/server/claims/reconcile-step";
import { handle, readJson } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/**
 * `POST /api/runs/{runId}/steps/{stepId}/reconcile` `{resolution: "succeeded" | "failed", note}`
 * — a supervisor records what happened to a step whose outcome is unknown (DESIGN.md §9).
 * 201 `{step, run: {id, status}}` (200 when the same resolution was already recorded);
 * 401; 403 `forbidden` (not a supervisor), `cross_origin`; 404; 409 `nothing_to_reconcile`.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string; stepId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { runId, stepId } = await ctx.params;
  const body = await readJson(req, reconcileBodySchema);
  const { step, run, replayed } = await reconcileStep(viewer, runId, stepId, body);
  return NextResponse.json({ step, run }, { status: replayed ? 200 : 201 });
});
