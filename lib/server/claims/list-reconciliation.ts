import { prisma } from "../db/db";
import { decodeCursor, nextCursorOf, pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { storedSteps } from "../plans/stored-plan";
import type { Db } from "../db/transaction";
import { STALE_CLAIM_SECONDS, toStepExecutionView, type ReconciliationItem } from "./execution-view";

/** One page of steps waiting for a person, and the cursor (a claim time, ISO UTC) of the next page. */
export interface ReconciliationPage {
  items: ReconciliationItem[];
  nextCursor: string | null;
}

/**
 * Steps waiting for a supervisor, oldest claim first: outcomes reported `unknown`, claims whose
 * lease ended with no report (UTC `now`; STALE_CLAIM_SECONDS for a claim stored without a lease),
 * and reports flagged because the run had stopped —
 * none reconciled yet. One indexed page in SQL
 * (`limit` 1–200, default 100; `cursor` = the previous page's `nextCursor`).
 * Errors: 403 `forbidden` unless supervisor (audited `denied`).
 */
export async function listNeedsReconciliation(
  viewer: Pick<Viewer, "id" | "role">,
  opts: { now?: Date; cursor?: string | null; limit?: number } = {},
  db: Db = prisma,
): Promise<ReconciliationPage> {
  await requireRole(viewer, ["supervisor"], "view reconciliation");
  const now = opts.now ?? new Date();
  const limit = pageSize(opts.limit, 100);
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_SECONDS * 1000);
  const after = opts.cursor ? decodeCursor(opts.cursor, "date") : null;
  const rows = await db.stepExecution.findMany({
    where: {
      reconciledAt: null,
      OR: [
        { status: "unknown" },
        // a claim whose lease ended with no report (see claimAwaitsReconciliation)
        { status: "claimed", leaseExpiresAt: { lte: now } },
        { status: "claimed", leaseExpiresAt: null, claimedAt: { lte: staleBefore } },
        { flag: { not: null } },
      ],
      ...(after ? { AND: [{ OR: [{ claimedAt: { gt: after.key } }, { claimedAt: after.key, id: { gt: after.id } }] }] } : {}),
    },
    include: { run: { select: { ticketId: true, status: true, planVersions: { select: { version: true, steps: true } } } } },
    orderBy: [{ claimedAt: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  return {
    items: rows.slice(0, limit).map((e) => ({
      ...toStepExecutionView(e),
      reason: e.flag ? "flagged_report" : e.status === "unknown" ? "unknown_outcome" : "no_report",
      ticketId: e.run.ticketId,
      tool: storedSteps(e.run.planVersions.find((p) => p.version === e.planVersion)?.steps).find((s) => s.id === e.stepId)?.tool ?? "unknown",
      runStatus: e.run.status,
    })),
    nextCursor: nextCursorOf(rows, limit, (r) => r.claimedAt),
  };
}
