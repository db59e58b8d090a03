import { NextResponse } from "next/server";
import { DomainError } from "@/lib/errors";
import { discardEdit } from "@/lib/server/edits/discard-edit";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/** `POST /api/runs/{runId}/edits/{version}/discard` → 201 `{planVersion}` (the pre-edit plan, as a new version). */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string; version: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { runId, version } = await ctx.params;
  const v = Number(version);
  if (!Number.isInteger(v) || v < 1 || v > 2_147_483_647) throw new DomainError("bad_request", "The version must be a positive integer.");
  return NextResponse.json(await discardEdit(viewer, runId, v), { status: 201 });
});
