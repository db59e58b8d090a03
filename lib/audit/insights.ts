/**
 * Edit telemetry for supervisors (docs/design.md §11): how often and how much operators
 * change the agent's plans, whether that is rising (agent drift), how edited plans end, and
 * which edits recur often enough to become rules for the agent.
 *
 * Pure functions (no I/O, no framework): lib/server/audit/insights.ts aggregates in SQL, and
 * `assembleInsights` turns the aggregates into what the `/insights` page renders. Times are UTC; days are ISO `YYYY-MM-DD`.
 *
 * Definitions (stated on the page too):
 * - A run is *decided* when a person or the gate policy decided it: status `approved`,
 *   `needs_decision` (approved, then its next step could not be claimed), `executing`,
 *   `completed`, `failed`, `stopped` or `rejected`. Pending and expired runs were
 *   never decided. *Edit rate* = decided runs with at least one stored edit / decided runs.
 * - *Edits on decided runs* counts the stored edits of those same decided runs (same period, same
 *   runs as the edit rate): it is 0 exactly when the edit rate is 0. Edits of runs still waiting
 *   for review or expired are stored too (`edits.count`, the edit-size chart) but are in neither.
 * - *Edit size* of one edit = `editSize(diff).fraction` (lib/diff): steps added, changed, moved
 *   or removed over every step identity in either version.
 * - *Plan edit size* of a run = the union over its edits of the touched step ids (touched +
 *   removed) over the union of every step id seen (`order` + removed). A plan with more than
 *   half its steps touched (`touchesMoreThanHalf`: > 0.5, not ≥) is the drift signal; the
 *   headline count and the series count decided runs, bucketed by the UTC day the agent
 *   submitted them. An edit that alone touches more than half makes its plan more than half
 *   touched too (the union only adds touched ids); the converse does not hold (two small edits).
 * - Discarded edits ("discard my edits") are left out of every count and of recurring edits.
 * - *Recurring*: the same pattern on at least two runs by at least two people.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { PlanDiff } from "../diff/plan-diff";
import { formatMoney, type Money } from "../money/format-money";

/** One run as insights need it; `status` is the effective status (expiry applied). */
export interface InsightRun {
  id: string;
  createdAt: string | Date;
  status: string;
}

/** The parts of a stored diff insights read (a full `PlanDiff` fits). */
export type InsightDiff = Pick<PlanDiff, "added" | "removed" | "changed" | "touchedStepIds" | "order" | "moved">;

/** One stored edit (a PlanEdit row). */
export interface InsightEdit {
  runId: string;
  /** The run's desk (recurring edits name the desks they were seen on). */
  desk?: string;
  fromVersion: number;
  toVersion: number;
  editorId: string;
  createdAt: string | Date;
  diff: InsightDiff;
}

/**
 * THE definition of "more than half of the steps touched", used everywhere insights say it (the
 * headline count, the drift series, the orange bars of the edit-size chart, the SQL aggregates):
 * a fraction of steps touched strictly above one half (`> 0.5`, exactly one half is not).
 * `OVER_HALF` is the bound the SQL filters use (`{gt: OVER_HALF}`).
 */
export const OVER_HALF = 0.5;

/** Whether a fraction of steps touched (plan edit size or edit size, 0–1) is more than half. */
export function touchesMoreThanHalf(fraction: number): boolean {
  return fraction > OVER_HALF;
}

/** The alert line of the drift chart: more than this share of a day's plans over half touched. */
export const DRIFT_ALERT_THRESHOLD = 0.2;

/** Statuses of a decided run (see the module comment); `needs_decision` was approved and waits for a person's new decision. */
export const DECIDED_STATUSES = ["approved", "needs_decision", "executing", "completed", "failed", "stopped", "rejected"] as const;

/** Outcome rows of the edited-vs-unedited table, in display order. */
export const OUTCOME_ROWS = [
  { key: "completed", label: "Completed", statuses: ["completed"] },
  { key: "failed", label: "Failed", statuses: ["failed"] },
  { key: "stopped", label: "Stopped (task changed)", statuses: ["stopped"] },
  { key: "rejected", label: "Rejected", statuses: ["rejected"] },
  { key: "expired", label: "Expired", statuses: ["expired"] },
  { key: "in_progress", label: "Approved, not finished", statuses: ["approved", "needs_decision", "executing"] },
] as const;

export interface EditSizeBin {
  /** e.g. "40–50%"; each bin holds fractions in (lower, upper], the first one also 0. */
  label: string;
  lower: number;
  upper: number;
  edits: number;
  /** True for bins above one half (the drift zone). */
  overHalf: boolean;
}

export interface DriftPoint {
  day: string;
  /** Decided runs the agent submitted that day. */
  plans: number;
  overHalf: number;
  /** overHalf / plans, or null on a day without decided runs (a gap in the line). */
  share: number | null;
}

export interface OutcomeRow {
  key: string;
  label: string;
  edited: number;
  unedited: number;
}

export interface RecurringEdit {
  /** `field_change` (same before → after), `date_shift` (same ISO-date shift), `field` (same field changed any way), `step_added`, `step_removed`. */
  kind: "field_change" | "date_shift" | "field" | "step_added" | "step_removed";
  tool: string;
  /** Field path without `args.`, e.g. "window.from" (field kinds only). */
  path?: string;
  /** For people, e.g. "window.from moved +4 days", "amount: $50.00 → $40.00", "step added". */
  pattern: string;
  /** The pattern's identity (`editPatterns` key): what a rule made from it counts since. */
  key: string;
  /** Desks of the runs it was seen on, sorted. */
  desks: string[];
  /**
   * `date_shift` only: the fewest days after the edit's own UTC day that people moved the date to
   * (the prefill of a `date_min_offset_days` rule); null for other kinds.
   */
  minDaysAhead: number | null;
  /** `field_change` only: the value people changed away from (the prefill of a `no_date_in` rule when it is a date). */
  before?: unknown;
  /** `step_added` only: the tool of the step that followed the added one, when one did (a `step_requires_prior` prefill). */
  followedBy?: string | null;
  /** Edits showing the pattern (each edit counted once). */
  count: number;
  runs: number;
  editors: string[];
  exampleRunIds: string[];
}

export interface Insights {
  runs: { total: number; decided: number; pending: number; expired: number };
  editRate: { decided: number; edited: number; rate: number };
  /**
   * `count`: every stored edit of the period's runs (the edit-size chart's edits; `meanSize` and
   * `medianSize` are theirs); `onDecidedRuns`: those on decided runs, the runs the edit rate counts.
   */
  edits: { count: number; onDecidedRuns: number; meanSize: number; medianSize: number };
  /** Decided plans whose plan edit size is more than half (`touchesMoreThanHalf`): the sum of the drift series. */
  plansOverHalf: { plans: number; decided: number };
  editSizeBins: EditSizeBin[];
  drift: { threshold: number; points: DriftPoint[]; alertDays: string[] };
  outcomes: OutcomeRow[];
  /** Outcome rates among finished executions (completed / (completed + failed + stopped)). */
  completionRate: { edited: number | null; unedited: number | null };
  recurring: RecurringEdit[];
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const toDate = (d: string | Date) => (d instanceof Date ? d : new Date(d));
/** UTC calendar day of an instant. */
export const utcDay = (d: string | Date) => toDate(d).toISOString().slice(0, 10);

/** Index of the 10 %-wide bin holding `fraction` (bins are (lower, upper]; 0 goes to the first). */
export function binIndex(fraction: number): number {
  if (!(fraction > 0)) return 0;
  return Math.min(9, Math.max(0, Math.ceil(fraction * 10 - 1e-9) - 1));
}

/** Plan edit size of one run from all its edits (see module doc): `{touched, total, fraction}`. */
export function planEditSize(edits: InsightEdit[]): { touched: number; total: number; fraction: number } {
  const all = new Set<string>();
  const touched = new Set<string>();
  for (const e of edits) {
    for (const id of e.diff.order) all.add(id);
    for (const s of e.diff.removed) {
      all.add(s.id);
      touched.add(s.id);
    }
    for (const id of e.diff.touchedStepIds) touched.add(id);
  }
  return { touched: touched.size, total: all.size, fraction: all.size === 0 ? 0 : touched.size / all.size };
}

function show(v: unknown): string {
  if (v === undefined) return "(none)";
  if (v && typeof v === "object" && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string") {
    try {
      return formatMoney(v as Money);
    } catch {
      return JSON.stringify(v);
    }
  }
  return typeof v === "string" ? v : JSON.stringify(v);
}

const canon = (v: unknown) => (v === undefined ? "∅" : (canonicalize(v) ?? "∅"));
const dayShift = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

/** One pattern as one edit shows it, before counting (see `RecurringEdit`). */
export type EditPattern = Pick<RecurringEdit, "kind" | "tool" | "path" | "pattern" | "before" | "followedBy"> & {
  /** `date_shift` only: days from the edit's UTC day to the date people set. */
  daysAhead?: number;
};

/**
 * Lowercase hex SHA-256 (64 characters) of a recurring-edit pattern key from {@link editPatterns}:
 * the indexed column a desk rule made from the pattern counts later occurrences by (docs/design.md
 * "Did the edit help?").
 */
export function patternHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/**
 * The recurring-edit patterns one edit shows, each once (key → pattern without counts). The key
 * is the pattern's identity (a rule made from it counts the key's later occurrences). `at` (the
 * edit's time) gives `daysAhead` of a date shift.
 */
export function editPatterns(diff: InsightDiff, at?: string | Date): Map<string, EditPattern> {
  const out = new Map<string, EditPattern>();
  const editDay = at === undefined ? undefined : utcDay(at);
  for (const c of diff.changed) {
    for (const f of c.fields) {
      const path = f.path.replace(/^args\./, "");
      out.set(`field|${c.tool}|${path}`, { kind: "field", tool: c.tool, path, pattern: `${path} changed` });
      out.set(`change|${c.tool}|${path}|${canon(f.before)}|${canon(f.after)}`, {
        kind: "field_change",
        tool: c.tool,
        path,
        pattern: `${path}: ${show(f.before)} → ${show(f.after)}`,
        before: f.before,
      });
      if (typeof f.before === "string" && typeof f.after === "string" && ISO_DATE.test(f.before) && ISO_DATE.test(f.after)) {
        const n = dayShift(f.before, f.after);
        if (Number.isFinite(n) && n !== 0) {
          const ahead = editDay === undefined ? undefined : dayShift(editDay, f.after);
          out.set(`shift|${c.tool}|${path}|${n}`, {
            kind: "date_shift",
            tool: c.tool,
            path,
            pattern: `${path} moved ${n > 0 ? "+" : "−"}${Math.abs(n)} day${Math.abs(n) === 1 ? "" : "s"}`,
            ...(ahead !== undefined && Number.isFinite(ahead) ? { daysAhead: ahead } : {}),
          });
        }
      }
    }
  }
  const toolOf = new Map<string, string>([...diff.added.map((s) => [s.id, s.tool] as const), ...diff.changed.map((c) => [c.stepId, c.tool] as const), ...diff.moved.map((m) => [m.stepId, m.tool] as const)]);
  for (const s of diff.added) {
    const next = diff.order[diff.order.indexOf(s.id) + 1];
    out.set(`added|${s.tool}`, { kind: "step_added", tool: s.tool, pattern: "step added", followedBy: next === undefined ? null : (toolOf.get(next) ?? null) });
  }
  for (const s of diff.removed) out.set(`removed|${s.tool}`, { kind: "step_removed", tool: s.tool, pattern: "step removed" });
  return out;
}

const KIND_RANK: Record<RecurringEdit["kind"], number> = { field_change: 0, date_shift: 1, step_added: 2, step_removed: 3, field: 4 };

/**
 * Recurring edits: patterns seen on at least `minRuns` runs (default 2) by at least `minEditors`
 * distinct people (default 2) — one person's repeated edit, or edits of one run, are not
 * recurring. Most frequent first (then the most specific kind, then tool and pattern), at most
 * `limit` (default 12). Discarded edits are never passed in (the caller leaves them out).
 */
export function recurringEdits(edits: InsightEdit[], opts: { minRuns?: number; minEditors?: number; limit?: number } = {}): RecurringEdit[] {
  const minRuns = opts.minRuns ?? 2;
  const minEditors = opts.minEditors ?? 2;
  type Acc = RecurringEdit & { runSet: Set<string>; editorSet: Set<string>; deskSet: Set<string> };
  const acc = new Map<string, Acc>();
  for (const e of edits) {
    for (const [key, p] of editPatterns(e.diff, e.createdAt)) {
      let r = acc.get(key);
      if (!r) {
        const { daysAhead: _d, ...shown } = p;
        r = { ...shown, key, count: 0, runs: 0, editors: [], desks: [], minDaysAhead: null, exampleRunIds: [], runSet: new Set(), editorSet: new Set(), deskSet: new Set() };
        acc.set(key, r);
      }
      r.count += 1;
      r.runSet.add(e.runId);
      r.editorSet.add(e.editorId);
      if (e.desk) r.deskSet.add(e.desk);
      if (p.daysAhead !== undefined) r.minDaysAhead = r.minDaysAhead === null ? p.daysAhead : Math.min(r.minDaysAhead, p.daysAhead);
      if (p.kind === "step_added" && r.followedBy == null && p.followedBy) r.followedBy = p.followedBy;
    }
  }
  return [...acc.values()]
    .filter((r) => r.runSet.size >= minRuns && r.editorSet.size >= minEditors)
    .map(({ runSet, editorSet, deskSet, ...r }) => ({ ...r, runs: runSet.size, editors: [...editorSet].sort(), desks: [...deskSet].sort(), exampleRunIds: [...runSet].slice(0, 3) }))
    .sort((a, b) => b.count - a.count || KIND_RANK[a.kind] - KIND_RANK[b.kind] || a.tool.localeCompare(b.tool) || a.pattern.localeCompare(b.pattern))
    .slice(0, opts.limit ?? 12);
}

/**
 * What the database aggregates for the `/insights` page (lib/server/audit/insights.ts computes
 * these in SQL; a whole period of runs and edits is never loaded):
 * - `runsByStatus`: runs by EFFECTIVE status (expiry applied) and whether they have an edit;
 * - `decidedByDay`: per UTC submission day, decided runs (`plans`) and those whose plan edit size
 *   is more than half (`touchesMoreThanHalf`: `overHalf`);
 * - `editBins`: edits per 10 %-wide edit-size bin (`binIndex`), `editCount`, `meanSize`,
 *   `medianSize`; `decidedEditCount`: the edits of decided runs (the runs of the edit rate);
 * - `recentEdits`: the latest edits (bounded), for the recurring-edit patterns.
 * Discarded edits are in none of them.
 */
export interface InsightAggregates {
  runsByStatus: { status: string; edited: boolean; count: number }[];
  decidedByDay: { day: string; plans: number; overHalf: number }[];
  editBins: number[];
  editCount: number;
  decidedEditCount: number;
  meanSize: number;
  medianSize: number;
  recentEdits: InsightEdit[];
}

/**
 * Every number of the `/insights` page from the aggregates. `threshold` (default 0.2) is the
 * alert line: a day whose share of plans with more than half their steps touched exceeds it is
 * listed in `drift.alertDays`. The drift series covers every day from the first to the last
 * decided run's submission day (gaps have `share: null`). Pure.
 */
export function assembleInsights(agg: InsightAggregates, opts: { threshold?: number } = {}): Insights {
  const threshold = opts.threshold ?? DRIFT_ALERT_THRESHOLD;
  const count = (statuses: readonly string[], edited?: boolean) =>
    agg.runsByStatus.filter((r) => statuses.includes(r.status) && (edited === undefined || r.edited === edited)).reduce((a, r) => a + r.count, 0);
  const decided = count(DECIDED_STATUSES);
  const editedDecided = count(DECIDED_STATUSES, true);
  const editSizeBins: EditSizeBin[] = Array.from({ length: 10 }, (_, i) => ({
    label: `${i * 10}–${(i + 1) * 10}%`,
    lower: i / 10,
    upper: (i + 1) / 10,
    edits: agg.editBins[i] ?? 0,
    // A bin is orange when every fraction it holds is more than half: (0.5, 0.6] and above.
    overHalf: touchesMoreThanHalf(i / 10 + 1e-9),
  }));
  const byDay = new Map(agg.decidedByDay.map((d) => [d.day, d]));
  const points: DriftPoint[] = [];
  const days = [...byDay.keys()].sort();
  if (days.length) {
    for (let t = Date.parse(`${days[0]}T00:00:00Z`); t <= Date.parse(`${days.at(-1)}T00:00:00Z`); t += DAY_MS) {
      const day = new Date(t).toISOString().slice(0, 10);
      const b = byDay.get(day);
      points.push(b && b.plans > 0 ? { day, plans: b.plans, overHalf: b.overHalf, share: b.overHalf / b.plans } : { day, plans: 0, overHalf: 0, share: null });
    }
  }
  const outcomes: OutcomeRow[] = OUTCOME_ROWS.map((o) => ({ key: o.key, label: o.label, edited: count(o.statuses, true), unedited: count(o.statuses, false) }));
  const rate = (col: "edited" | "unedited") => {
    const get = (k: string) => outcomes.find((o) => o.key === k)![col];
    const finished = get("completed") + get("failed") + get("stopped");
    return finished === 0 ? null : get("completed") / finished;
  };
  return {
    runs: { total: count(agg.runsByStatus.map((r) => r.status)), decided, pending: count(["pending_review"]), expired: count(["expired"]) },
    editRate: { decided, edited: editedDecided, rate: decided === 0 ? 0 : editedDecided / decided },
    edits: { count: agg.editCount, onDecidedRuns: agg.decidedEditCount, meanSize: agg.meanSize, medianSize: agg.medianSize },
    plansOverHalf: { plans: points.reduce((a, p) => a + p.overHalf, 0), decided },
    editSizeBins,
    drift: { threshold, points, alertDays: points.filter((p) => p.share !== null && p.share > threshold).map((p) => p.day) },
    outcomes,
    completionRate: { edited: rate("edited"), unedited: rate("unedited") },
    recurring: recurringEdits(agg.recentEdits),
  };
}
