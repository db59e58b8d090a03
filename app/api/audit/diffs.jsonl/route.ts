import { diffCorpusEndpoint } from "@/lib/api/endpoints";
import { diffCorpusStream } from "@/lib/server/audit/diff-corpus";
import { route } from "@/lib/server/route/route";

export const dynamic = "force-dynamic";

/** `GET /api/audit/diffs.jsonl` → the diff corpus as streamed NDJSON, supervisors only (lib/api/endpoints.ts `diffCorpusEndpoint`). */
export const GET = route(diffCorpusEndpoint, async ({ caller, query }) => {
  const stream = await diffCorpusStream(caller, new Date(), { label: query.label, signal: query.signal, includeDiscarded: query.discarded === "include" });
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
