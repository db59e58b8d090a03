import type { QueuePage, QueueRow } from "../../api/schemas";
import type { Prisma } from "../../generated/prisma/client";
import { effectiveStatus, EXPIRING_STATES, hasDeadline, type RunStatus } from "../../lifecycle/run-state";
import { prisma } from "../db/db";
import type { Money } from "../../money/format-money";
import { moneyOutByCurrency } from "../../queue/risk";
import { decodeCursor, nextCursorOf, pageSize } from "../db/pagination";
import { queueFilterWhere, queueRowOwnership, type QueueFilters, type QueueViewer } from "../ownership/queue-filters";
import { concurrentRunsByRun } from "../plans/concurrent-runs";
import { parksInForce } from "../ownership/park-run";

/** The queue row is the API's `QueueRow` (lib/api/schemas.ts), declared once. */
export type { QueueRow };

/**
 * The at-stake facts of one page of runs, from their `run_step` rows in two grouped SQL queries
 * bounded by the page's ids: money out per currency (SUM per run and currency) and the counts of
 * risky steps (COUNT per run and flag).
 */
export async function queueAtStake(ids: readonly string[]): Promise<Map<string, { atStake: Money[]; risks: { irreversible: number; otherAccount: number; moneyOut: number } }>> {
  const out = new Map<string, { atStake: Money[]; risks: { irreversible: number; otherAccount: number; moneyOut: number } }>();
  if (ids.length === 0) return out;
  const [money, flags] = [
    await prisma.runStep.groupBy({ by: ["runId", "amountCurrency"], where: { runId: { in: [...ids] }, amountMinor: { gt: 0 } }, _sum: { amountMinor: true }, _count: { _all: true } }),
    await prisma.runStep.groupBy({ by: ["runId", "irreversible", "crossAccount"], where: { runId: { in: [...ids] } }, _count: { _all: true } }),
  ];
  const entry = (id: string) => {
    let e = out.get(id);
    if (!e) out.set(id, (e = { atStake: [], risks: { irreversible: 0, otherAccount: 0, moneyOut: 0 } }));
    return e;
  };
  for (const id of ids) entry(id);
  for (const m of money) {
    const e = entry(m.runId);
    if (m.amountCurrency) e.atStake.push({ minor: m._sum.amountMinor ?? 0, currency: m.amountCurrency as Money["currency"] });
    e.risks.moneyOut += m._count._all;
  }
  for (const f of flags) {
    const e = entry(f.runId);
    if (f.irreversible) e.risks.irreversible += f._count._all;
    if (f.crossAccount) e.risks.otherAccount += f._count._all;
  }
  for (const e of out.values()) e.atStake = moneyOutByCurrency(e.atStake);
  return out;
}

/**
 * One page of the queue, the cursor of the next page (null on the last page) and `serverNow`: the
 * server's clock (UTC ISO instant) the page was listed at — the instant its effective statuses were
 * judged at — so a browser words deadlines and ages on the server's clock, not its own
 * (docs/design.md §10 Nobody waits forever).
 */
export type { QueuePage };

/** Rows per page unless the caller asks for fewer (1–200). */
export const QUEUE_PAGE_SIZE = 50;

/**
 * The SQL condition for runs whose EFFECTIVE status at `now` (UTC) is `status`: a waiting run
 * past its deadline counts as `expired` (lib/lifecycle/run-state.ts `effectiveStatus`), so the filter and
 * the shown status agree.
 */
export function whereEffectiveStatus(status: RunStatus, now: Date): Prisma.RunWhereInput {
  if (hasDeadline(status)) return { status, expiresAt: { gt: now } };
  if (status === "expired") return { OR: [{ status: "expired" }, { status: { in: [...EXPIRING_STATES] }, expiresAt: { lte: now } }] };
  return { status };
}

/**
 * How many runs in `scope` (the viewer's desk, from `deskScope`) need a person's new decision at
 * `now` (UTC): status `needs_decision`, not past their deadline — one count on the
 * `(desk, status, createdAt)` / `(status, expiresAt)` indexes, at most `cap` (default 1,000) counted.
 */
export async function countNeedsDecision(scope: Prisma.RunWhereInput, now = new Date(), cap = 1000): Promise<number> {
  const rows = await prisma.run.findMany({ where: { ...scope, status: "needs_decision", expiresAt: { gt: now } }, select: { id: true }, take: cap });
  return rows.length;
}

/**
 * One page of the queue, newest first (or, with `sort: "at_stake"`, most money at stake first:
 * `run.atStakeMinor` descending, then id), filtered by effective status and scoped by `scope` (the
 * viewer's desk, from `deskScope`), all in SQL: an indexed keyset page (`cursor` from the
 * previous page's `nextCursor`), never a whole table. `limit` is clamped to 1–200. A live row whose
 * task has another run being executed carries it in `concurrentRuns` (one more indexed read over
 * the page's tasks, lib/server/plans/concurrent-runs.ts).
 * Errors: 400 `bad_request` for a malformed cursor.
 */
export async function listQueue(
  filter: { status?: RunStatus; scope?: Prisma.RunWhereInput; cursor?: string | null; limit?: number; viewer?: QueueViewer } & QueueFilters = {},
  now = new Date(),
): Promise<QueuePage> {
  const limit = pageSize(filter.limit, QUEUE_PAGE_SIZE);
  const byStake = filter.sort === "at_stake";
  const after = filter.cursor && !byStake ? decodeCursor(filter.cursor, "date") : null;
  const afterStake = filter.cursor && byStake ? decodeCursor(filter.cursor, "number") : null;
  const where: Prisma.RunWhereInput = {
    AND: [
      filter.scope ?? {},
      filter.status ? whereEffectiveStatus(filter.status, now) : {},
      queueFilterWhere(filter, filter.viewer, now), // views and filters
      after ? { OR: [{ createdAt: { lt: after.key } }, { createdAt: after.key, id: { lt: after.id } }] } : {},
      afterStake ? { OR: [{ atStakeMinor: { lt: afterStake.key } }, { atStakeMinor: afterStake.key, id: { lt: afterStake.id } }] } : {},
    ],
  };
  const rows = await prisma.run.findMany({
    where,
    orderBy: byStake ? [{ atStakeMinor: "desc" }, { id: "desc" }] : [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: {
      id: true,
      status: true,
      taskId: true,
      ticketId: true,
      accountId: true,
      stepCount: true,
      gatedCount: true,
      warningCount: true,
      planVersion: true,
      createdAt: true,
      expiresAt: true,
      escalateAt: true,
      atStakeMinor: true,
      assigneeId: true,
      agent: { select: { name: true } },
      task: { select: { ticket: { select: { subject: true, account: { select: { name: true } } } } } },
    },
  });
  const page = rows.slice(0, limit);
  const ownership = await queueRowOwnership(page, filter.viewer);
  const stake = await queueAtStake(page.map((r) => r.id));
  const concurrent = await concurrentRunsByRun(prisma, page.map((r) => ({ id: r.id, taskId: r.taskId, status: effectiveStatus(r.status as RunStatus, r.expiresAt, now) })), filter.scope);
  const parks = filter.viewer ? await parksInForce(filter.viewer.id, now, page.map((r) => r.id)) : new Map();
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
      ...stake.get(r.id),
      ...(concurrent.has(r.id) ? { concurrentRuns: concurrent.get(r.id) } : {}),
      ...(parks.has(r.id) ? { park: { kind: parks.get(r.id)!.kind, until: parks.get(r.id)!.until } } : {}),
    })),
    nextCursor: nextCursorOf(rows, limit, (r) => (byStake ? r.atStakeMinor : r.createdAt)),
    serverNow: now.toISOString(),
  };
}
