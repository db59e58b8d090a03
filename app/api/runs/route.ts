import { listQueueEndpoint } from "@/lib/api/endpoints";
import { sweepDeadlinesSoon } from "@/lib/server/deadlines/sweep-deadlines";
import { route } from "@/lib/server/route/route";
import { listQueue } from "@/lib/server/runs/list-queue";
import { deskScope } from "@/lib/server/auth/session";

/** `GET /api/runs?status=pending_review&cursor=…` → `{runs, nextCursor}` (lib/api/endpoints.ts `listQueueEndpoint`). */
export const GET = route(listQueueEndpoint, async ({ caller, query }) => {
  await sweepDeadlinesSoon(); // opportunistic (throttled); decisions re-check deadlines anyway
  const { status, cursor, limit, ...ownership } = query;
  return { body: await listQueue({ status, scope: deskScope(caller), cursor, limit, viewer: caller, ...ownership }) };
});
