import { z } from "zod";
import { isIsoDate } from "../time/dates";
import type { DeskRuleParams, DeskRuleSource } from "./rules";

/**
 * From a recurring edit on /insights to a rule form, prefilled (docs/design.md
 * "Did the edit help?"): the edit travels to `/desk-rules/new?edit=…` as the JSON of `RecurringEditRef`, and
 * `prefillFromEdit` proposes the rule that would have spared people the edit. Client-safe, pure.
 */

/** What the insights row hands to the form (a subset of lib/audit/insights.ts `RecurringEdit`). */
export const recurringEditRefSchema = z.object({
  key: z.string().min(1).max(2000),
  kind: z.enum(["field_change", "date_shift", "field", "step_added", "step_removed"]),
  tool: z.string().min(1).max(64),
  path: z.string().max(120).optional(),
  pattern: z.string().min(1).max(500),
  desks: z.array(z.string().max(32)).max(20).default([]),
  minDaysAhead: z.number().int().nullable().default(null),
  before: z.unknown().optional(),
  followedBy: z.string().max(64).nullable().optional(),
  runs: z.number().int().optional(),
});
export type RecurringEditRef = z.output<typeof recurringEditRefSchema>;

/** The form's starting values: desk, severity, description, the typed rule and the edit it came from. */
export interface RulePrefill {
  desk: string | null;
  severity: "warning";
  description: string;
  rule: DeskRuleParams;
  source: DeskRuleSource;
}

/** The `edit` query parameter for a recurring edit (JSON, URL-encoded by the caller's URLSearchParams). */
export function editRefParam(e: RecurringEditRef): string {
  const { key, kind, tool, path, pattern, desks, minDaysAhead, before, followedBy, runs } = e;
  return JSON.stringify({ key, kind, tool, path, pattern, desks, minDaysAhead, ...(isIsoDate(before) ? { before } : {}), followedBy: followedBy ?? null, runs });
}

/** Reads the `edit` query parameter; null when absent or not a recurring edit. */
export function readEditRef(raw: string | undefined): RecurringEditRef | null {
  if (!raw) return null;
  try {
    const parsed = recurringEditRefSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The rule a recurring edit suggests, always a warning to start with:
 * - a date moved by the same days → `date_min_offset_days` with the fewest days ahead people set;
 * - a date changed away from the same day → `no_date_in` that day;
 * - a step added before another → `step_requires_prior` (the following step's tool needs it);
 * - anything else → `guidance` for the agent, in the edit's words.
 */
export function prefillFromEdit(e: RecurringEditRef): RulePrefill {
  const source: DeskRuleSource = { key: e.key, kind: e.kind, tool: e.tool, ...(e.path ? { path: e.path } : {}), pattern: e.pattern };
  const base = { desk: e.desks[0] ?? null, severity: "warning" as const, source };
  if (e.kind === "date_shift" && e.path) {
    const days = Math.min(366, Math.max(0, e.minDaysAhead ?? 0));
    return { ...base, description: `${e.tool}: ${e.path} at least ${days} day${days === 1 ? "" : "s"} ahead (people kept making this edit: ${e.pattern})`, rule: { kind: "date_min_offset_days", tool: e.tool, path: e.path, days } };
  }
  if (e.kind === "field_change" && e.path && isIsoDate(e.before)) {
    return { ...base, description: `${e.tool}: never ${e.path} ${e.before} (people kept making this edit: ${e.pattern})`, rule: { kind: "no_date_in", tool: e.tool, path: e.path, dates: [e.before], holidays: false } };
  }
  if (e.kind === "step_added" && e.followedBy) {
    return { ...base, description: `A ${e.followedBy} step follows an ${e.tool} step`, rule: { kind: "step_requires_prior", tool: e.followedBy, priorTool: e.tool } };
  }
  return { ...base, description: `${e.tool}: ${e.pattern} — people keep making this edit`, rule: { kind: "guidance", tool: e.tool } };
}
