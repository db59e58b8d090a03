import { findDeclared, isBuiltinKind, own } from "../desk/lookup";
import { formatMoney, type Money } from "../money/format-money";
import { declaredRef } from "../tools/declared-bounds";
import { countingHolds, heldOn, moneyHeldOn } from "../tools/shared";
import type { BoundsContext } from "../tools/types";
import { parsedSteps, type ParsedStepView, type StepView, type ValidationIssue } from "./types";

/**
 * Stage 4, *argument bounds* (docs/design.md §1.4): each parsed step's arguments against account
 * data, via its tool's `checkBounds` — ids exist (`unknown_id`, with a lookalike-aware "did you
 * mean"), money > 0 and ≤ open balance of an open invoice in its currency, fee codes exist,
 * delivery windows ordered, in the future and off destination holidays. Codes are defined by
 * the tools (lib/tools/*.ts). Paths become "steps.N.args.<field>". Skips steps whose shape failed.
 * `horizonFor(step)`: the date horizon (days) of the gate-policy rule governing that step, or
 * undefined for `ctx.dateHorizonDays` / the default.
 */
export function checkArgumentBounds(steps: readonly StepView[], ctx: BoundsContext, horizonFor?: (s: ParsedStepView) => number | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    const horizon = horizonFor?.(s);
    for (const t of s.tool.checkBounds(s.step.args, horizon === undefined ? ctx : { ...ctx, dateHorizonDays: horizon })) {
      issues.push({
        stage: "argument_bounds",
        code: t.code,
        severity: t.severity,
        stepId: s.id,
        path: t.path ? `${s.path}.args.${t.path}` : `${s.path}.args`,
        message: t.message,
        ...(t.needsAcknowledgement ? { needsAcknowledgement: true } : {}),
        ...(t.details ? { details: t.details } : {}),
      });
    }
  }
  issues.push(...checkCombinedInvoiceMoney(steps, ctx));
  issues.push(...checkCombinedFeeWaivers(steps, ctx));
  return issues;
}

/**
 * Plan-level bound (docs/design.md §1.4): fee waivers of ONE fee (same invoice and fee code, same
 * currency) must together stay within that fee; each waiver alone passing `amount_exceeds_fee`
 * is not enough. The step whose running total first crosses the fee gets
 * `waivers_exceed_fee` (error), naming the total and the fee. Unknown invoices and fee codes
 * are reported per step already and skipped here.
 */
function checkCombinedFeeWaivers(steps: readonly StepView[], ctx: BoundsContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const running = new Map<string, number>();
  for (const s of parsedSteps(steps)) {
    if (s.tool.name !== "waive_fee") continue;
    const args = s.step.args as { invoiceId: string; feeCode: string; amount: { minor: number; currency: string } };
    const invoice = own(ctx.desk.invoices, args.invoiceId);
    const fee = invoice?.fees.find((f) => f.code === args.feeCode);
    if (!invoice || !fee || fee.amount.currency !== args.amount.currency || args.amount.minor <= 0) continue;
    const key = JSON.stringify([invoice.id, fee.code]);
    const before = running.get(key) ?? 0;
    const total = before + args.amount.minor;
    running.set(key, total);
    if (total > fee.amount.minor && before <= fee.amount.minor && args.amount.minor <= fee.amount.minor) {
      const sum = { minor: total, currency: fee.amount.currency };
      issues.push({
        stage: "argument_bounds",
        code: "waivers_exceed_fee",
        severity: "error",
        stepId: s.id,
        path: `${s.path}.args.amount`,
        message: `Together the steps of this plan waive ${formatMoney(sum)} of the ${fee.code} fee on invoice ${invoice.id}, more than the fee (${formatMoney(fee.amount)})`,
        details: { invoiceId: invoice.id, feeCode: fee.code, total: sum, fee: fee.amount },
      });
    }
  }
  return issues;
}

/**
 * Plan-level bound (docs/design.md §1.4): money several steps take from ONE record — an invoice
 * (refunds, fee waivers: any step whose target is an invoice and that moves an amount) or a record
 * of a declared kind with a balance (a bound tool's `x-plandesk-max` money) — must together stay
 * within its balance less the money other runs hold on it; each step alone passing is not enough.
 * The step whose running total crosses it gets `amounts_exceed_balance` (error). Same-currency
 * amounts only; a currency mismatch is reported per step already.
 */
function checkCombinedInvoiceMoney(steps: readonly StepView[], ctx: BoundsContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const running = new Map<string, number>();
  for (const s of parsedSteps(steps)) {
    const target = s.tool.target(s.step.args, ctx.desk);
    const amount = s.tool.amount(s.step.args);
    if (!target || !amount || amount.minor <= 0) continue;
    let ref: string;
    let balance: Money;
    let balanceWord: string;
    let held: { holds: unknown[]; available: Money };
    if (target.kind === "invoice") {
      const invoice = own(ctx.desk.invoices, target.id);
      if (!invoice) continue;
      balance = invoice.openBalance;
      ref = target.id;
      balanceWord = "open balance";
      held = moneyHeldOn(ctx, invoice);
    } else if (!isBuiltinKind(target.kind)) {
      const record = findDeclared(ctx.desk, target.kind, target.id);
      if (!record?.available) continue;
      balance = record.available as Money;
      ref = declaredRef(record.kind, record.id);
      balanceWord = "available amount";
      held = heldOn(countingHolds(ctx, record.holds, balance.currency), balance);
    } else continue;
    if (balance.currency !== amount.currency) continue;
    const key = `${target.kind}:${target.id}`;
    const { available, holds } = held;
    const total = (running.get(key) ?? 0) + amount.minor;
    running.set(key, total);
    const before = total - amount.minor;
    if (total > available.minor && before <= available.minor && amount.minor <= available.minor) {
      const left = holds.length ? `what other runs leave of its ${balanceWord} (${formatMoney(available)} of ${formatMoney(balance)})` : `its ${balanceWord} of ${formatMoney(balance)}`;
      issues.push({
        stage: "argument_bounds",
        code: "amounts_exceed_balance",
        severity: "error",
        stepId: s.id,
        path: `${s.path}.args.${s.tool.moneyArg ?? "amount"}`,
        message: `Together the steps of this plan take ${formatMoney({ minor: total, currency: amount.currency })} from ${ref}, more than ${left}`,
        details: { ...(target.kind === "invoice" ? { invoiceId: target.id } : { kind: target.kind, id: target.id }), total: { minor: total, currency: amount.currency }, openBalance: balance, available },
      });
    }
  }
  return issues;
}
