import { NextResponse } from "next/server";
import { DomainError } from "@/lib/errors";
import { sweepDeadlinesSoon } from "@/lib/server/deadlines/sweep-deadlines";
import { handle } from "@/lib/server/http";
import { listQueue } from "@/lib/server/runs/list-queue";
import { RUN_STATUSES, type RunStatus } from "@/lib/run-state";
import { deskScope, requireViewer } from "@/lib/server/session";

/** `GET /api/runs?status=pending_review` — the queue (API.md operator API). */
export const GET = handle(async (req: Request) => {
  const viewer = await requireViewer(req);
  const status = new URL(req.url).searchParams.get("status");
  if (status && !RUN_STATUSES.includes(status as RunStatus)) {
    throw new DomainError("bad_request", `Unknown status "${status}". Use one of: ${RUN_STATUSES.join(", ")}.`);
  }
  await sweepDeadlinesSoon(); // opportunistic (throttled); decisions re-check deadlines anyway
  const runs = await listQueue({ status: (status as RunStatus) || undefined, scope: deskScope(viewer) });
  return NextResponse.json({ runs });
});
