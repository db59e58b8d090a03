import type { Prisma } from "../../generated/prisma/client";
import { effectiveStatus, type RunStatus } from "../../run-state";
import { prisma } from "../db";
import { decodeCursor, nextCursorOf, pageSize } from "../pagination";
import { queueFilterWhere, queueRowOwnership, type QueueFilters, type QueueRowOwnership, type QueueViewer } from "../ownership/queue-filters";

/** Queue row for `/runs` and `GET /api/runs`. Times are ISO-8601 UTC. */
export interface QueueRow extends Partial<QueueRowOwnership> {
  id: string;
  status: RunStatus;
  ticketId: string;
  ticketSubject: string;
  accountId: string;
  accountName: string;
  agentName: string;
  stepCount: number;
  gatedCount: number;
  warningCount: number;
  planVersion: number;
  createdAt: string;
  expiresAt: string;
  escalateAt: string;
}

/** One page of the queue and the cursor of the next page (null on the last page). */
export interface QueuePage {
  runs: QueueRow[];
  nextCursor: string | null;
}

/** Rows per page unless the caller asks for fewer (1–200). */
export const QUEUE_PAGE_SIZE = 50;

/**
 * The SQL condition for runs whose EFFECTIVE status at `now` (UTC) is `status`: a waiting run
 * past its deadline counts as `expired` (lib/run-state.ts `effectiveStatus`), so the filter and
 * the shown status agree.
 */
export function whereEffectiveStatus(status: RunStatus, now: Date): Prisma.RunWhereInput {
  if (status === "pending_review" || status === "approved") return { status, expiresAt: { gt: now } };
  if (status === "expired") return { OR: [{ status: "expired" }, { status: { in: ["pending_review", "approved"] }, expiresAt: { lte: now } }] };
  return { status };
}

/**
 * One page of the queue, newest first, filtered by effective status and scoped by `scope` (the
 * viewer's desk, from `deskScope`), all in SQL: an indexed keyset page (`cursor` from the
 * previous page's `nextCursor`), never a whole table (issue #11). `limit` is clamped to 1–200.
 * Errors: 400 `bad_request` for a malformed cursor.
 */
export async function listQueue(
  filter: { status?: RunStatus; scope?: Prisma.RunWhereInput; cursor?: string | null; limit?: number; viewer?: QueueViewer } & QueueFilters = {},
  now = new Date(),
): Promise<QueuePage> {
  const limit = pageSize(filter.limit, QUEUE_PAGE_SIZE);
  const after = filter.cursor ? decodeCursor(filter.cursor, "date") : null;
  const where: Prisma.RunWhereInput = {
    AND: [
      filter.scope ?? {},
      filter.status ? whereEffectiveStatus(filter.status, now) : {},
      queueFilterWhere(filter, filter.viewer, now), // issue #16: views and filters
      after ? { OR: [{ createdAt: { lt: after.key } }, { createdAt: after.key, id: { lt: after.id } }] } : {},
    ],
  };
  const rows = await prisma.run.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: {
      id: true,
      status: true,
      ticketId: true,
      accountId: true,
      stepCount: true,
      gatedCount: true,
      warningCount: true,
      planVersion: true,
      createdAt: true,
      expiresAt: true,
      escalateAt: true,
      assigneeId: true,
      agent: { select: { name: true } },
      task: { select: { ticket: { select: { subject: true, account: { select: { name: true } } } } } },
    },
  });
  const page = rows.slice(0, limit);
  const ownership = await queueRowOwnership(page, filter.viewer);
  return {
    runs: page.map((r) => ({
      id: r.id,
      status: effectiveStatus(r.status as RunStatus, r.expiresAt, now),
      ticketId: r.ticketId,
      ticketSubject: r.task.ticket.subject,
      accountId: r.accountId,
      accountName: r.task.ticket.account.name,
      agentName: r.agent.name,
      stepCount: r.stepCount,
      gatedCount: r.gatedCount,
      warningCount: r.warningCount,
      planVersion: r.planVersion,
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt.toISOString(),
      escalateAt: r.escalateAt.toISOString(),
      ...ownership.get(r.id),
    })),
    nextCursor: nextCursorOf(rows, limit, (r) => r.createdAt),
  };
}
