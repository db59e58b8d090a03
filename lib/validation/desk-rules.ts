import { addDaysIso, isIsoDate, utcDateOf } from "../time/dates";
import type { AccountSnapshot } from "../desk/snapshot";
import { parsedSteps, type DeskRulesContext, type StepView, type ValidationIssue } from "./types";

/** The value at a dotted `path` of `args` (undefined when any segment is missing). */
function at(args: unknown, path: string): unknown {
  let v: unknown = args;
  for (const seg of path.split(".")) {
    if (v === null || typeof v !== "object" || !Object.prototype.hasOwnProperty.call(v, seg)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** The ISO dates a value stands for: a date, or every day of a `{from, to}` window (at most 400). */
function datesOf(v: unknown): string[] {
  if (isIsoDate(v)) return [v];
  if (v && typeof v === "object") {
    const { from, to } = v as { from?: unknown; to?: unknown };
    if (isIsoDate(from) && isIsoDate(to) && from <= to) {
      const out: string[] = [];
      for (let d = from; d <= to && out.length < 400; d = addDaysIso(d, 1)) out.push(d);
      return out;
    }
    if (isIsoDate(from)) return [from];
  }
  return [];
}

/** The first day a value stands for (a date, or a window's `from`). */
const firstDate = (v: unknown): string | undefined => datesOf(v)[0];

/**
 * Applies the desk's rules to every parsed step (docs/design.md §1, stage `desk_rule`). Each
 * broken rule is one issue with the rule's severity, `code` by kind — `desk_rule_prior_missing`,
 * `desk_rule_date_excluded`, `desk_rule_date_too_soon` — the rule's description in the message
 * and `details {ruleId, version, kind}`. `guidance` rules are words for the agent, never issues.
 * `now` is the UTC clock (today = its UTC date); holidays come from `desk.holidays` by the
 * destination of the shipment the step names (`args.shipmentId`). Pure.
 */
export function checkDeskRules(steps: readonly StepView[], ctx: DeskRulesContext | undefined, desk: AccountSnapshot, now: Date): ValidationIssue[] {
  if (!ctx || ctx.rules.length === 0) return [];
  const issues: ValidationIssue[] = [];
  const parsed = parsedSteps(steps);
  const today = utcDateOf(now);
  const seenTools: string[] = [];
  for (const s of parsed) {
    const earlier = ctx.earlierTools?.[s.id] ?? seenTools;
    for (const r of ctx.rules) {
      const p = r.rule;
      if (p.kind === "guidance" || p.tool !== s.step.tool) continue;
      const base = { stage: "desk_rule" as const, severity: r.severity, stepId: s.id, details: { ruleId: r.id, version: r.version, kind: p.kind } };
      const says = `Desk rule: ${r.description}`;
      if (p.kind === "step_requires_prior") {
        if (!earlier.includes(p.priorTool)) {
          issues.push({ ...base, code: "desk_rule_prior_missing", path: s.path, message: `${says} — step ${s.index + 1} (${p.tool}) has no ${p.priorTool} step before it.`, details: { ...base.details, priorTool: p.priorTool } });
        }
        continue;
      }
      const value = at(s.step.args, p.path);
      const path = `${s.path}.args.${p.path}`;
      if (p.kind === "no_date_in") {
        const shipmentId = (s.step.args as { shipmentId?: unknown }).shipmentId;
        const destination = typeof shipmentId === "string" ? desk.shipments[shipmentId]?.destination : undefined;
        const holidays = p.holidays && destination ? new Set(desk.holidays[destination] ?? []) : new Set<string>();
        const listed = new Set(p.dates);
        const hit = datesOf(value).find((d) => listed.has(d) || holidays.has(d));
        if (hit) {
          const why = listed.has(hit) ? "a date the rule excludes" : `a holiday in ${destination}`;
          issues.push({ ...base, code: "desk_rule_date_excluded", path, message: `${says} — ${p.path} includes ${hit}, ${why}.`, details: { ...base.details, date: hit } });
        }
        continue;
      }
      if (p.kind === "date_min_offset_days") {
        const first = firstDate(value);
        const earliest = addDaysIso(today, p.days);
        if (first !== undefined && first < earliest) {
          issues.push({ ...base, code: "desk_rule_date_too_soon", path, message: `${says} — ${p.path} is ${first}; the earliest the rule allows is ${earliest} (${p.days} day${p.days === 1 ? "" : "s"} after today).`, details: { ...base.details, value: first, earliest } });
        }
      }
    }
    if (!ctx.earlierTools) seenTools.push(s.step.tool);
  }
  return issues;
}
