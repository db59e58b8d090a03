import { NextResponse } from "next/server";
import { liveFeedEndpoint } from "@/lib/api/endpoints";
import { liveStream } from "@/lib/server/live/live-stream";
import { presenceFor } from "@/lib/server/live/presence";
import { route } from "@/lib/server/route/route";
import { getViewer } from "@/lib/server/auth/session";

export const dynamic = "force-dynamic";

/** `GET /api/live` → the viewer's server-sent events (desk-scoped), or a JSON snapshot without `Accept: text/event-stream` (lib/api/endpoints/live-api.ts). */
export const GET = route(liveFeedEndpoint, async ({ req, caller }) => {
  if (!(req.headers.get("accept") ?? "").includes("text/event-stream")) {
    return NextResponse.json({ you: caller.id, presence: await presenceFor(caller) }, { headers: { "cache-control": "no-store" } });
  }
  const headers = new Headers(req.headers);
  return new Response(await liveStream(caller, req.signal, { recheck: () => getViewer(headers) }), {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
});
