import { editSize, type PlanDiff } from "../lib/diff/plan-diff";
import { assembleInsights, binIndex, DECIDED_STATUSES, planEditSize, touchesMoreThanHalf, utcDay, type InsightAggregates, type InsightEdit, type InsightRun, type Insights } from "../lib/audit/insights";

/**
 * The insights definitions computed in memory over plain rows — the reference the SQL
 * aggregation (lib/server/audit/insights.ts) must agree with, for unit tests of the assembly.
 * Edits of runs not in `runs` are ignored. Test code only.
 */
export function aggregateRows(runs: InsightRun[], edits: InsightEdit[]): InsightAggregates {
  const ids = new Set(runs.map((r) => r.id));
  const own = edits.filter((e) => ids.has(e.runId));
  const byRun = new Map<string, InsightEdit[]>();
  for (const e of own) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
  const statusRows = new Map<string, { status: string; edited: boolean; count: number }>();
  for (const r of runs) {
    const key = `${r.status}|${byRun.has(r.id)}`;
    const row = statusRows.get(key) ?? { status: r.status, edited: byRun.has(r.id), count: 0 };
    row.count += 1;
    statusRows.set(key, row);
  }
  const days = new Map<string, { day: string; plans: number; overHalf: number }>();
  for (const r of runs.filter((x) => (DECIDED_STATUSES as readonly string[]).includes(x.status))) {
    const day = utcDay(r.createdAt);
    const d = days.get(day) ?? { day, plans: 0, overHalf: 0 };
    d.plans += 1;
    if (byRun.has(r.id) && touchesMoreThanHalf(planEditSize(byRun.get(r.id)!).fraction)) d.overHalf += 1;
    days.set(day, d);
  }
  const decidedIds = new Set(runs.filter((x) => (DECIDED_STATUSES as readonly string[]).includes(x.status)).map((x) => x.id));
  const sizes = own.map((e) => editSize(e.diff as PlanDiff).fraction).sort((a, b) => a - b);
  const bins = Array(10).fill(0) as number[];
  for (const f of sizes) bins[binIndex(f)] += 1;
  const m = Math.floor(sizes.length / 2);
  return {
    runsByStatus: [...statusRows.values()],
    decidedByDay: [...days.values()],
    editBins: bins,
    editCount: sizes.length,
    decidedEditCount: own.filter((e) => decidedIds.has(e.runId)).length,
    meanSize: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : 0,
    medianSize: sizes.length === 0 ? 0 : sizes.length % 2 ? sizes[m] : (sizes[m - 1] + sizes[m]) / 2,
    recentEdits: own,
  };
}

/** `assembleInsights(aggregateRows(runs, edits))`. */
export const computeInsights = (runs: InsightRun[], edits: InsightEdit[], opts: { threshold?: number } = {}): Insights => assembleInsights(aggregateRows(runs, edits), opts);
