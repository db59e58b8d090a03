import { NextResponse } from "next/server";
import { DomainError } from "@/lib/errors";
import { diffVersions } from "@/lib/server/edits/diff-versions";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/** `GET /api/runs/{runId}/diff?from=1&to=3` → `{diff, reapproval, from, to}` (extension of API.md). */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req);
  const { runId } = await ctx.params;
  const q = new URL(req.url).searchParams;
  const from = Number(q.get("from"));
  const to = Number(q.get("to"));
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < 1 || from > 2_147_483_647 || to > 2_147_483_647) {
    throw new DomainError("bad_request", "Give two plan versions: ?from=1&to=2.");
  }
  return NextResponse.json(await diffVersions(viewer, runId, from, to));
});
