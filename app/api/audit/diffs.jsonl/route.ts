import { handle } from "@/lib/server/http";
import { diffCorpusStream } from "@/lib/server/audit/diff-corpus";
import { requireViewer } from "@/lib/server/session";

export const dynamic = "force-dynamic";

/**
 * `GET /api/audit/diffs.jsonl` — the diff corpus as NDJSON (`application/x-ndjson`), one line per
 * operator edit: `{runId, fromVersion, toVersion, editorId, before, after, diff, outcome}`,
 * streamed. Supervisors only (403 `forbidden` for operators and admins, audited `denied`).
 */
export const GET = handle(async (req: Request) => {
  const viewer = await requireViewer(req);
  const stream = await diffCorpusStream(viewer);
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="plandesk-diffs-${stamp}.jsonl"`,
      "cache-control": "no-store",
    },
  });
});
