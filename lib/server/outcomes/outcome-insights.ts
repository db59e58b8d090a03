import type { Prisma } from "../../generated/prisma/client";
import { OUTCOME_LABELS, OUTCOME_SIGNALS, type OutcomeLabel, type OutcomeSignal } from "../../outcomes/outcome";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";

/*
 * "Did the edits help?" on /insights (docs/design.md "Did the edit help?"): edited runs that
 * executed, split by the supervisors' label and by each computed signal, and over-compensation per
 * tool, per operator and per day — grouped in SQL over the indexed columns of `run_outcome` (one
 * covering index, `run_outcome (edited, executedDay, label, <signals>, editorId)`) and
 * `run_outcome_money`, never by loading records. Measured on the scale desk:
 * bench/results/outcomes-queries-sqlite.md and -postgresql.md (scripts/bench-outcome-queries.ts).
 */

/** Over-compensation by one tool: runs, and the money beyond the agent's plan per currency (minor units). */
export interface OverByTool {
  tool: string;
  runs: number;
  excess: { minor: number; currency: string }[];
}

/** What the section shows. Counts are of edited runs that executed a written step in the period. */
export interface OutcomeInsights {
  edited: number;
  byLabel: { label: OutcomeLabel | "unlabelled"; runs: number }[];
  bySignal: { signal: OutcomeSignal | "none"; runs: number }[];
  overCompensation: {
    runs: number;
    byTool: OverByTool[];
    byOperator: { editorId: string; name: string; runs: number; edited: number }[];
    byDay: { day: string; runs: number; edited: number }[];
  };
}

const SIGNAL_COLUMN: Record<OutcomeSignal, "reopened" | "chargeback" | "overCompensation" | "beyondCap" | "resolved" | "customerReplied" | "commitmentSent"> = {
  reopened: "reopened",
  chargeback: "chargeback",
  over_compensation: "overCompensation",
  beyond_cap: "beyondCap",
  resolved: "resolved",
  customer_replied: "customerReplied",
  commitment_sent: "commitmentSent",
};

/**
 * The "did the edits help?" numbers for edited runs that executed in `since`…`until` (UTC, by the
 * day they executed; default all time). Over-compensation: an edited run whose money out exceeds
 * the agent's plan and the task's ask (lib/outcomes/outcome.ts); per tool are the tools that moved
 * more than the agent's plan did on such a run. Supervisors only. Errors: 403 `forbidden` (audited).
 */
export async function loadOutcomeInsights(viewer: Pick<Viewer, "id" | "role">, opts: { since?: Date; until?: Date } = {}): Promise<OutcomeInsights> {
  await requireRole(viewer, ["supervisor"], "read_insights");
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const period: Prisma.RunOutcomeWhereInput = opts.since || opts.until ? { executedDay: { ...(opts.since ? { gte: day(opts.since) } : {}), ...(opts.until ? { lt: day(opts.until) } : {}) } } : {};
  const edited: Prisma.RunOutcomeWhereInput = { edited: true, ...period };
  const labels = await prisma.runOutcome.groupBy({ by: ["label"], where: edited, _count: { _all: true } });
  const total = labels.reduce((a, l) => a + l._count._all, 0);
  const byLabel = [...OUTCOME_LABELS.map((label) => ({ label, runs: labels.find((l) => l.label === label)?._count._all ?? 0 })), { label: "unlabelled" as const, runs: labels.find((l) => l.label === null)?._count._all ?? 0 }];
  // One pass over the covering insights index: edited runs grouped by their seven signal columns (at
  // most 2⁷ groups, whatever the desk's size); each signal's count and "none" are sums of the groups.
  const signalColumns = OUTCOME_SIGNALS.map((sig) => SIGNAL_COLUMN[sig]);
  const combos = await prisma.runOutcome.groupBy({ by: signalColumns, where: edited, _count: { _all: true } });
  const bySignal: OutcomeInsights["bySignal"] = OUTCOME_SIGNALS.map((signal) => ({ signal, runs: combos.filter((c) => c[SIGNAL_COLUMN[signal]]).reduce((a, c) => a + c._count._all, 0) }));
  bySignal.push({ signal: "none", runs: combos.filter((c) => signalColumns.every((col) => !c[col])).reduce((a, c) => a + c._count._all, 0) });

  const over: Prisma.RunOutcomeWhereInput = { ...edited, overCompensation: true };

  const moneyPeriod: Prisma.RunOutcomeMoneyWhereInput = period.executedDay ? { executedDay: period.executedDay as Prisma.StringFilter } : {};
  const toolRows = await prisma.runOutcomeMoney.groupBy({ by: ["tool", "currency"], where: { over: true, ...moneyPeriod }, _count: { _all: true }, _sum: { writtenMinor: true, proposedMinor: true } });
  const tools = new Map<string, OverByTool>();
  for (const r of toolRows) {
    const t = tools.get(r.tool) ?? { tool: r.tool, runs: 0, excess: [] };
    t.runs += r._count._all;
    t.excess.push({ minor: (r._sum.writtenMinor ?? 0) - (r._sum.proposedMinor ?? 0), currency: r.currency });
    tools.set(r.tool, t);
  }
  const byTool = [...tools.values()].sort((a, b) => b.runs - a.runs || a.tool.localeCompare(b.tool));
  const overByEditor = await prisma.runOutcome.groupBy({ by: ["editorId"], where: over, _count: { _all: true } });
  const editedByEditor = await prisma.runOutcome.groupBy({ by: ["editorId"], where: edited, _count: { _all: true } });
  const ids = overByEditor.map((e) => e.editorId).filter((x): x is string => !!x);
  const names = new Map((ids.length ? await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : []).map((u) => [u.id, u.name]));
  const byOperator = overByEditor
    .filter((e): e is typeof e & { editorId: string } => !!e.editorId)
    .map((e) => ({ editorId: e.editorId, name: names.get(e.editorId) ?? e.editorId, runs: e._count._all, edited: editedByEditor.find((x) => x.editorId === e.editorId)?._count._all ?? 0 }))
    .sort((a, b) => b.runs - a.runs || a.name.localeCompare(b.name));
  const overByDay = await prisma.runOutcome.groupBy({ by: ["executedDay"], where: over, _count: { _all: true } });
  const editedByDay = await prisma.runOutcome.groupBy({ by: ["executedDay"], where: edited, _count: { _all: true } });
  const byDay = editedByDay
    .map((d) => ({ day: d.executedDay, edited: d._count._all, runs: overByDay.find((o) => o.executedDay === d.executedDay)?._count._all ?? 0 }))
    .sort((a, b) => a.day.localeCompare(b.day));
  const overRuns = bySignal.find((b) => b.signal === "over_compensation")?.runs ?? 0;
  return { edited: total, byLabel, bySignal, overCompensation: { runs: overRuns, byTool, byOperator, byDay } };
}
