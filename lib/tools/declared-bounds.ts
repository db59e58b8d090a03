import { findDeclared, notFoundPhrase } from "../desk/lookup";
import type { DeclaredRecord } from "../desk/snapshot";
import type { Money } from "../money/format-money";
import { cannotApply, ownIn, type EffectModel, type EffectState } from "../effects/state";
import { capitalise, checkAgainstBalance, checkPositive, countingHolds } from "./shared";
import type { ToolBindings } from "./tool-bindings";
import type { BoundsContext, TargetRef, ToolIssue } from "./types";
import type { AccountSnapshot } from "../desk/snapshot";

/*
 * The checks of an imported tool bound to declared record kinds (lib/tools/tool-bindings.ts): the
 * same bounds, codes and words the built-in money tools use (lib/tools/shared.ts), on the records
 * the snapshot loaded by (desk, kind, id). Pure, client-safe.
 */

/** "Order" for kind `order`, "Payout batch" for `payout_batch`: how messages start with a declared kind. */
export function kindLabel(kind: string): string {
  return capitalise(kind.replace(/_/g, " "));
}

/** How messages name a declared record: "order o_118" (the kind's words, then the id). */
export function declaredRef(kind: string, id: string): string {
  return `${kind.replace(/_/g, " ")} ${id}`;
}

/** The value of top-level argument `name` in parsed `args`. */
const argOf = (args: Record<string, unknown>, name: string): unknown => (Object.prototype.hasOwnProperty.call(args, name) ? args[name] : undefined);

const isMoney = (v: unknown): v is Money => typeof v === "object" && v !== null && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string";

/** The record a bound tool's step acts on: the money's record, else its first record argument; null when it does not resolve in `desk`. */
export function declaredTarget(b: ToolBindings, args: Record<string, unknown>, desk: AccountSnapshot): TargetRef | null {
  const rec = b.max ? { arg: b.max.recordArg, kind: b.max.kind } : b.records[0];
  if (!rec) return null;
  const id = argOf(args, rec.arg);
  return typeof id === "string" && findDeclared(desk, rec.kind, id) ? { kind: rec.kind, id } : null;
}

/** The money a bound tool's step moves: its `x-plandesk-max` argument, or undefined. */
export function declaredAmount(b: ToolBindings, args: Record<string, unknown>): Money | undefined {
  if (!b.max) return undefined;
  const v = argOf(args, b.max.arg);
  return isMoney(v) ? { minor: v.minor, currency: v.currency } as Money : undefined;
}

/**
 * The bound checks of a tool bound to declared kinds (docs/design.md §1.4), `what` naming its money
 * in messages ("Refund order"):
 * - every record argument names a record of its kind on this desk: `unknown_id` ("Order "o_9" is
 *   not found on this desk": another desk's record is absent from the snapshot, so the words never
 *   tell whether it exists elsewhere);
 * - a record the money is taken from is not closed (`record_closed`, its status named);
 * - the money: `record_without_balance` (the desk's kind declares no balance: nothing bounds it),
 *   `amount_not_positive`, `currency_mismatch`, `amount_exceeds_balance` (more than the
 *   record's available amount), `amount_exceeds_available` / `money_in_flight` (other runs'
 *   approvals and written amounts held on it) — shared with the invoice tools;
 * - a date (or each end of a `{from, to}` window) bound by the record's window lies inside it
 *   (`outside_record_window`).
 * Paths are relative to `args`.
 */
export function checkDeclaredBounds(b: ToolBindings, args: Record<string, unknown>, ctx: BoundsContext, what: string): ToolIssue[] {
  const issues: ToolIssue[] = [];
  const records = new Map<string, DeclaredRecord>();
  for (const r of b.records) {
    const id = argOf(args, r.arg);
    if (typeof id !== "string") continue;
    const found = findDeclared(ctx.desk, r.kind, id);
    if (found) records.set(r.arg, found);
    else issues.push({ code: "unknown_id", severity: "error", path: r.arg, message: `${kindLabel(r.kind)} ${JSON.stringify(id)} ${notFoundPhrase(ctx.desk)}`, details: { kind: r.kind, id, lookalike: false } });
  }
  if (b.max) {
    const amount = declaredAmount(b, args);
    if (amount) {
      issues.push(...checkPositive(amount, what).map((i) => ({ ...i, path: `${b.max!.arg}.minor` })));
      const record = records.get(b.max.recordArg);
      if (record) {
        const ref = declaredRef(record.kind, record.id);
        if (record.closed) {
          issues.push({ code: "record_closed", severity: "error", path: b.max.recordArg, message: `${capitalise(ref)} is ${record.status}; a closed ${record.kind.replace(/_/g, " ")} takes no ${what.toLowerCase()}`, details: { kind: record.kind, id: record.id, status: record.status } });
        }
        if (record.available) {
          const holds = countingHolds(ctx, record.holds, record.available.currency);
          issues.push(...checkAgainstBalance(amount, { ref, balance: record.available, balanceWord: "available amount", holds }, ctx, what, b.max.arg));
        } else {
          // closed, never open: money with nothing to bound it by is not moved
          issues.push({ code: "record_without_balance", severity: "error", path: `${b.max.arg}.minor`, message: `${capitalise(ref)} has no available amount to bound the ${what.toLowerCase()} by (this desk's ${record.kind.replace(/_/g, " ")} declares no balance)`, details: { kind: record.kind, id: record.id } });
        }
      }
    }
  }
  for (const w of b.windows) {
    const record = records.get(w.recordArg);
    const v = argOf(args, w.arg);
    if (!record?.window || v === undefined) continue;
    const dates: [string, string][] =
      w.shape === "date" ? (typeof v === "string" ? [[w.arg, v]] : []) : typeof v === "object" && v !== null ? ([["from", (v as { from?: unknown }).from], ["to", (v as { to?: unknown }).to]].filter(([, d]) => typeof d === "string").map(([k, d]) => [`${w.arg}.${k}`, d as string]) as [string, string][]) : [];
    for (const [path, date] of dates) {
      if (date < record.window.from || date > record.window.to) {
        issues.push({
          code: "outside_record_window",
          severity: "error",
          path,
          message: `${date} is outside the window of ${declaredRef(record.kind, record.id)} (${record.window.from} – ${record.window.to})`,
          details: { kind: record.kind, id: record.id, date, window: record.window },
        });
      }
    }
  }
  return issues;
}

/**
 * The effects-preview model of a tool with `x-plandesk-effect: {lower: "<kind>.available"}`: the
 * step lowers the record's available amount by its money (never below zero, in its currency, not
 * on a closed record), as `issue_refund` lowers an invoice's open balance; change `record_balance`.
 */
export function declaredEffectModel(b: ToolBindings): EffectModel<Record<string, unknown>> | null {
  const effect = b.effect;
  if (!effect) return null;
  return {
    kind: "known",
    apply: (state: EffectState, args) => {
      const id = argOf(args, effect.recordArg);
      const amount = argOf(args, effect.arg);
      if (typeof id !== "string" || !isMoney(amount)) return cannotApply("the arguments do not name a record and an amount");
      const key = `${effect.kind}:${id}`;
      const record = ownIn(state.records ?? {}, key);
      const ref = declaredRef(effect.kind, id);
      if (!record?.available) return cannotApply(`${capitalise(ref)} has no available amount in the account data`);
      if (record.closed) return cannotApply(`${capitalise(ref)} is closed`);
      if (record.available.currency !== amount.currency) return cannotApply(`${capitalise(ref)} is in ${record.available.currency}, the amount in ${amount.currency}`);
      if (amount.minor <= 0) return cannotApply("the amount is not more than zero");
      if (amount.minor > record.available.minor) return cannotApply(`the amount is more than what the earlier steps left available on ${ref}`);
      const after = { minor: record.available.minor - amount.minor, currency: record.available.currency } as Money;
      return {
        ok: true,
        state: { ...state, records: { ...(state.records ?? {}), [key]: { ...record, available: after } } },
        changes: [{ kind: "record_balance", recordKind: effect.kind, recordId: id, ...(record.title ? { title: record.title } : {}), before: record.available, after }],
      };
    },
  };
}
