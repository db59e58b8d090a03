import { storedDecisionReason, type DecisionReason } from "../../lifecycle/needs-decision";
import type { RunStatus } from "../../lifecycle/run-state";
import { prisma } from "../db/db";
import { decodeCursor, nextCursorOf, pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { ESCALATING } from "./sweep-deadlines";

/** One row of the supervisors' escalation queue. Times ISO UTC. */
export interface EscalatedRunRow {
  id: string;
  /** `pending_review` (nobody decided in time) or `needs_decision` (approved, then a claim was refused for a reason no executor can fix). */
  status: RunStatus;
  /** Why a `needs_decision` run needs a new decision (`run.decisionReason`); null for a run pending review. */
  decisionReason: DecisionReason | null;
  ticketId: string;
  ticketSubject: string;
  accountName: string;
  agentName: string;
  stepCount: number;
  planVersion: number;
  createdAt: string;
  escalateAt: string;
  escalatedAt: string;
  expiresAt: string;
}

/**
 * The supervisors' escalation queue (`/escalations`): runs that escalated and still wait for a
 * person — pending review, or needing a new decision (with its `decisionReason`) — not expired at `now` (UTC), soonest expiry first — one indexed page in SQL (`limit`
 * 1–200, default 100; `cursor` = the previous page's `nextCursor`). Current without a sweep: a run
 * whose `escalateAt` has passed is listed though no sweep recorded it yet (its `escalatedAt` is then
 * its `escalateAt`); the background sweep (./deadline-sweeper.ts) records and notifies it. Reading
 * writes nothing, so a backlog of due runs never slows the page. Errors: 403 `forbidden` for anyone
 * but a supervisor (audited `denied`).
 */
export async function listEscalations(
  viewer: Pick<Viewer, "id" | "role">,
  now = new Date(),
  opts: { cursor?: string | null; limit?: number } = {},
): Promise<{ rows: EscalatedRunRow[]; nextCursor: string | null }> {
  await requireRole(viewer, ["supervisor"], "read_escalations");
  const limit = pageSize(opts.limit, 100);
  const after = opts.cursor ? decodeCursor(opts.cursor, "date") : null;
  const runs = await prisma.run.findMany({
    where: {
      status: { in: ESCALATING },
      expiresAt: { gt: now },
      AND: [
        // escalated by a sweep, or due to escalate and not swept yet
        { OR: [{ escalatedAt: { not: null } }, { escalateAt: { lte: now } }] },
        ...(after ? [{ OR: [{ expiresAt: { gt: after.key } }, { expiresAt: after.key, id: { gt: after.id } }] }] : []),
      ],
    },
    select: {
      id: true,
      status: true,
      decisionReason: true,
      ticketId: true,
      stepCount: true,
      planVersion: true,
      createdAt: true,
      escalateAt: true,
      escalatedAt: true,
      expiresAt: true,
      agent: { select: { name: true } },
      task: { select: { ticket: { select: { subject: true, account: { select: { name: true } } } } } },
    },
    orderBy: [{ expiresAt: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  return {
    rows: runs.slice(0, limit).map((r) => ({
      id: r.id,
      status: r.status as RunStatus,
      decisionReason: r.status === "needs_decision" ? storedDecisionReason(r.decisionReason) : null,
      ticketId: r.ticketId,
      ticketSubject: r.task.ticket.subject,
      accountName: r.task.ticket.account.name,
      agentName: r.agent.name,
      stepCount: r.stepCount,
      planVersion: r.planVersion,
      createdAt: r.createdAt.toISOString(),
      escalateAt: r.escalateAt.toISOString(),
      escalatedAt: (r.escalatedAt ?? r.escalateAt).toISOString(),
      expiresAt: r.expiresAt.toISOString(),
    })),
    nextCursor: nextCursorOf(runs, limit, (r) => r.expiresAt),
  };
}
