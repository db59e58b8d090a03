import { assembleInsights, DECIDED_STATUSES, OVER_HALF, type InsightAggregates, type Insights } from "../../audit/insights";
import type { Prisma } from "../../generated/prisma/client";
import { EXPIRING_STATES, hasDeadline } from "../../lifecycle/run-state";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { readJsonColumn } from "../db/json-column";
import { planDiffSchema } from "../../diff/plan-diff";

/**
 * Refuses anyone but a supervisor: 403 `forbidden`, audited as `denied` by `requireRole`
 * (docs/design.md "People": audit and telemetry are the supervisor's; §11: denials are events).
 * `action` names what was tried, e.g. "export_diff_corpus".
 */
export async function assertSupervisor(viewer: Pick<Viewer, "id" | "role">, action: string): Promise<void> {
  await requireRole(viewer, ["supervisor"], action);
}

/** What `/insights` shows: the computed numbers plus names of the editors it mentions. */
export interface InsightsPage extends Insights {
  users: Record<string, string>;
  generatedAt: string;
}

/** The recurring-edit patterns are read from at most this many of the latest edits of the period. */
export const RECENT_EDITS = 2000;

/**
 * The edit telemetry of runs submitted in `opts.since`…`opts.until` (UTC; default all time), with
 * statuses as they are at `now` — aggregated in SQL over indexed columns the run and edit rows
 * carry (status, expiresAt, editCount, editFraction, createdDay; an edit's sizeFraction), never by
 * loading the period's runs. Recurring patterns come from the latest RECENT_EDITS
 * edits. Supervisors only. Errors: 403 `forbidden` (audited).
 */
export async function loadInsights(
  viewer: Pick<Viewer, "id" | "role">,
  now = new Date(),
  opts: { threshold?: number; since?: Date; until?: Date } = {},
): Promise<InsightsPage> {
  await assertSupervisor(viewer, "read_insights");
  const createdAt = { ...(opts.since ? { gte: opts.since } : {}), ...(opts.until ? { lt: opts.until } : {}) };
  const period: Prisma.RunWhereInput = opts.since || opts.until ? { createdAt } : {};
  const agg = await aggregate(period, now);
  const editors = [...new Set(agg.recentEdits.map((e) => e.editorId))];
  const users = editors.length ? await prisma.user.findMany({ where: { id: { in: editors } }, select: { id: true, name: true } }) : [];
  const assembled = assembleInsights(agg, { threshold: opts.threshold });
  await resolveFollowedBy(assembled.recurring);
  return { ...assembled, users: Object.fromEntries(users.map((u) => [u.id, u.name])), generatedAt: now.toISOString() };
}

/**
 * An added step's following step is often one the edit did not touch, so the stored diff does not
 * name its tool: for each recurring `step_added` (at most the listed few) read the post-edit plan
 * of one example edit (by run id, newest first, at most 3 rows) and name the tool after the added
 * step. Fills `followedBy` in place (the prefill of a `step_requires_prior` rule).
 */
async function resolveFollowedBy(recurring: Insights["recurring"]): Promise<void> {
  for (const r of recurring) {
    if (r.kind !== "step_added" || r.followedBy) continue;
    const rows = await prisma.planEdit.findMany({ where: { runId: { in: r.exampleRunIds }, discardedAt: null }, orderBy: { createdAt: "desc" }, take: 3, select: { after: true, diff: true } });
    for (const row of rows) {
      const diff = readJsonColumn(planDiffSchema, row.diff, "plan diff");
      const added = diff.added.find((a) => a.tool === r.tool);
      if (!added) continue;
      const steps = ((row.after as { steps?: { id?: string; tool?: string }[] } | null)?.steps ?? []).filter((x) => typeof x?.id === "string");
      const next = steps[steps.findIndex((x) => x.id === added.id) + 1];
      if (next?.tool && steps.some((x) => x.id === added.id)) {
        r.followedBy = next.tool;
        break;
      }
    }
  }
}

/** Statuses that lapse at the run's deadline (pending_review, approved, needs_decision): past it they count as expired. */
const WAITING = [...EXPIRING_STATES];

/** The SQL aggregates of lib/audit/insights.ts `InsightAggregates` for runs matching `period`. */
async function aggregate(period: Prisma.RunWhereInput, now: Date): Promise<InsightAggregates> {
  // Runs by stored status and edited-or-not; waiting runs past their deadline count as expired.
  const runsByStatus: InsightAggregates["runsByStatus"] = [];
  for (const edited of [true, false]) {
    const editWhere = edited ? { editCount: { gt: 0 } } : { editCount: 0 };
    const groups = await prisma.run.groupBy({ by: ["status"], where: { ...period, ...editWhere }, _count: { _all: true } });
    const lapsed = await prisma.run.groupBy({ by: ["status"], where: { ...period, ...editWhere, status: { in: WAITING }, expiresAt: { lte: now } }, _count: { _all: true } });
    const lapsedOf = (status: string) => lapsed.find((l) => l.status === status)?._count._all ?? 0;
    let expired = 0;
    for (const g of groups) {
      const moved = lapsedOf(g.status);
      expired += moved;
      const left = g._count._all - moved;
      if (g.status !== "expired" && left > 0) runsByStatus.push({ status: g.status, edited, count: left });
      if (g.status === "expired") expired += g._count._all;
    }
    if (expired > 0) runsByStatus.push({ status: "expired", edited, count: expired });
  }

  // Decided runs per submission day, and of them those whose plan edit size is above one half.
  const decided: Prisma.RunWhereInput = {
    ...period,
    // a decided run that still has a deadline (approved, needs_decision) counts until it lapses
    OR: [{ status: { in: DECIDED_STATUSES.filter((s) => !hasDeadline(s)) } }, { status: { in: DECIDED_STATUSES.filter((s) => hasDeadline(s)) }, expiresAt: { gt: now } }],
  };
  const perDay = await prisma.run.groupBy({ by: ["createdDay"], where: decided, _count: { _all: true } });
  const overHalf = await prisma.run.groupBy({ by: ["createdDay"], where: { AND: [decided, { editFraction: { gt: OVER_HALF } }] }, _count: { _all: true } });
  const decidedByDay = perDay.map((d) => ({ day: d.createdDay, plans: d._count._all, overHalf: overHalf.find((o) => o.createdDay === d.createdDay)?._count._all ?? 0 }));

  // Edit sizes of the period's edits: bins (lib/audit/insights.ts binIndex: (lower, upper], 0 in the first), mean, median.
  // A discarded edit is in no count (its run's editCount and editFraction leave it out too).
  const edits: Prisma.PlanEditWhereInput = Object.keys(period).length ? { discardedAt: null, run: period } : { discardedAt: null };
  const EPS = 1e-9;
  const editBins: number[] = [];
  for (let i = 0; i < 10; i++) {
    const upper = (i + 1) / 10 + EPS;
    editBins.push(await prisma.planEdit.count({ where: { ...edits, sizeFraction: i === 0 ? { lte: upper } : { gt: i / 10 + EPS, lte: upper } } }));
  }
  const stats = await prisma.planEdit.aggregate({ where: edits, _count: { _all: true }, _avg: { sizeFraction: true } });
  // The edits of the runs the edit rate counts (decided, as of `now`): 0 exactly when that rate is 0.
  const decidedEditCount = await prisma.planEdit.count({ where: { discardedAt: null, run: decided } });
  const n = stats._count._all;
  const middle = n === 0 ? [] : await prisma.planEdit.findMany({ where: edits, orderBy: [{ sizeFraction: "asc" }, { id: "asc" }], skip: Math.floor((n - 1) / 2), take: n % 2 ? 1 : 2, select: { sizeFraction: true } });
  const medianSize = middle.length === 0 ? 0 : middle.reduce((a, m) => a + m.sizeFraction, 0) / middle.length;
  const recent = await prisma.planEdit.findMany({
    where: edits,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: RECENT_EDITS,
    select: { runId: true, fromVersion: true, toVersion: true, editorId: true, createdAt: true, diff: true, run: { select: { desk: true } } },
  });
  return {
    runsByStatus,
    decidedByDay,
    editBins,
    editCount: n,
    decidedEditCount,
    meanSize: stats._avg.sizeFraction ?? 0,
    medianSize,
    recentEdits: recent.reverse().map(({ run, ...e }) => ({ ...e, desk: run.desk, diff: readJsonColumn(planDiffSchema, e.diff, "plan diff") })),
  };
}
