import { NextResponse } from "next/server";
import { DomainError } from "@/lib/errors";
import { getEditDetail } from "@/lib/server/audit/run-audit";
import { handle } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";

const PARTS = ["before", "after", "diff"] as const;

/**
 * `GET /api/runs/{runId}/edits/{toVersion}` → 200 `{before, after, diff, editorId, createdAt, runId,
 * fromVersion, toVersion, editorName}`: the stored edit that produced plan version `toVersion`.
 * `?part=before|after|diff` answers only that part; `&download=1` makes it a JSON file download
 * (`<runId>-v<from>-v<to>-<part>.json`). Operators and supervisors; 403 admins; 404 when that
 * version was not made by an edit.
 */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ runId: string; version: string }> }) => {
  const viewer = await requireViewer(req);
  const { runId, version } = await ctx.params;
  const v = Number(version);
  if (!Number.isInteger(v) || v < 1 || v > 2_147_483_647) throw new DomainError("bad_request", "The version must be a positive integer.");
  const url = new URL(req.url);
  const part = url.searchParams.get("part");
  if (part !== null && !PARTS.includes(part as (typeof PARTS)[number])) {
    throw new DomainError("bad_request", `Unknown part "${part}". Use one of: ${PARTS.join(", ")}.`);
  }
  const edit = await getEditDetail(viewer, runId, v);
  const body = part ? edit[part as (typeof PARTS)[number]] : edit;
  const headers: Record<string, string> = {};
  if (url.searchParams.get("download") === "1") {
    headers["content-disposition"] = `attachment; filename="${runId}-v${edit.fromVersion}-v${edit.toVersion}-${part ?? "edit"}.json"`;
  }
  return new NextResponse(JSON.stringify(body, null, 2), { status: 200, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
});
