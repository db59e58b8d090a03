/** What a diff says to people: the one-line summary of a changed step and the annotations of added and changed steps. See ./plan-diff.ts. */
import { type Step } from "../plan/schema";
import type { AccountSnapshot } from "../desk/snapshot";
import { formatMoney, type Money } from "../money/format-money";
import type { Annotation, ChangedStep } from "./diff-schema";
import { canon, formatPath, getAt, isMoneyLike, propValue } from "./leaf-diff";

// ---------------------------------------------------------------------------------------------
// Internals: summary text
// ---------------------------------------------------------------------------------------------


/** Money for people: "$1,489.00". */
export function money(m: Money): string {
  try {
    return formatMoney(m);
  } catch {
    return `${m.minor} ${m.currency} minor units`;
  }
}

const MAX_TEXT = 60;

/** Formats one argument value for a person: money as "$1,489.00", absent as "(none)". */
export function formatValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (isMoneyLike(v)) return money(v);
  if (typeof v === "string") {
    if (/^[\w.:@#/+-]{1,40}$/.test(v)) return v;
    const s = v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT - 1)}…` : v;
    return JSON.stringify(s);
  }
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  const s = canon(v) ?? String(v);
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

const MAX_SUMMARY_FIELDS = 4;

/**
 * "step 2 reschedule_delivery: window.from 2026-04-02 → 2026-04-06; window.to …".
 * Paths drop the leading `args.`; money leaves (`amount.minor`, `amount.currency`) whose
 * parents are money on both sides collapse into one "amount $1,489.00 → $1,200.00" item.
 */
export function describeChangedStep(c: ChangedStep, beforeArgs: unknown, afterArgs: unknown): string {
  const items: string[] = [];
  const seenMoney = new Set<string>();
  for (const f of c.fields) {
    const rel = f.segments[0] === "args" ? f.segments.slice(1) : f.segments; // a reason's path keeps its key
    const last = rel[rel.length - 1];
    if ((last === "minor" || last === "currency") && rel.length >= 1) {
      const parent = rel.slice(0, -1);
      const pb = getAt(beforeArgs, parent);
      const pa = getAt(afterArgs, parent);
      if (isMoneyLike(pb) && isMoneyLike(pa)) {
        const key = formatPath(parent);
        if (!seenMoney.has(key)) {
          seenMoney.add(key);
          items.push(`${key || "args"} ${money(pb)} → ${money(pa)}`);
        }
        continue;
      }
    }
    items.push(`${formatPath(rel) || "args"} ${formatValue(f.before)} → ${formatValue(f.after)}`);
  }
  const shown = items.slice(0, MAX_SUMMARY_FIELDS).join("; ");
  const more = items.length - MAX_SUMMARY_FIELDS;
  return `step ${c.position} ${c.tool}: ${shown}${more > 0 ? `; … and ${more} more` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Internals: annotations
// ---------------------------------------------------------------------------------------------

/** "steps.3.args.window.from" → "args.window.from"; a plan-level path → undefined. */
export function stepRelativePath(path: string | undefined): string | undefined {
  const m = path ? /^steps\.\d+\.(.+)$/.exec(path) : null;
  return m ? m[1] : undefined;
}

/** Own-property lookup (ids like "constructor" must not resolve to prototype members). */
function own<T>(table: Record<string, T> | undefined, id: string): T | undefined {
  return table && Object.prototype.hasOwnProperty.call(table, id) ? table[id] : undefined;
}

/**
 * The informational note of an added or changed step with a money `amount` on an open invoice
 * in the same currency, within its balance: "amount $1,489.00 of open balance $2,120.00". Every
 * check of the same facts (unknown invoice, not open, other currency, over the balance or what
 * is available) is the validator's (lib/validation/argument-bounds.ts), shown as its issue.
 */
export function balanceNotes(step: Step, desk: AccountSnapshot): Annotation[] {
  const args = step.args ?? {};
  const id = propValue(args, "invoiceId");
  const amount = propValue(args, "amount");
  if (typeof id !== "string" || !isMoneyLike(amount)) return [];
  const inv = own(desk.invoices, id);
  if (!inv || inv.status !== "open" || amount.currency !== inv.openBalance.currency || amount.minor > inv.openBalance.minor) return [];
  return [{ stepId: step.id, severity: "info", code: "amount_of_balance", path: "args.amount", message: `amount ${money(amount)} of open balance ${money(inv.openBalance)}` }];
}
