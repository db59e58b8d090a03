import { NextResponse } from "next/server";
import { getRunAudit } from "@/lib/server/audit/run-audit";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

/**
 * `GET /api/runs/{runId}/audit` → 200 `{events: [{seq, type, actor: {kind, id, name?}, at, data}], run,
 * planVersions, edits}`: the run's audit trail in order. Operators and supervisors (one desk, so
 * operators see every run of it); 403 for admins; 404 for an unknown run.
 */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ runId: string }> }) => {
  const viewer = await requireViewer(req);
  const { runId } = await ctx.params;
  const { desk: _desk, users: _users, ...audit } = await getRunAudit(viewer, runId);
  return NextResponse.json({ events: audit.events, run: audit.run, planVersions: audit.planVersions, edits: audit.edits });
});
