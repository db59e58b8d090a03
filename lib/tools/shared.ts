import { z } from "zod";
import { formatMoney, type Money } from "../money/format-money";
import { isIsoDate } from "../time/dates";
import type { AccountSnapshot, InvoiceRecord, MoneyHold } from "../desk/snapshot";
import { describeRecord, explainUnresolved, findRecord, KIND_LABEL, notFoundPhrase, own, type RecordKind } from "../desk/lookup";
import type { BoundsContext, ToolIssue } from "./types";

/*
 * Building blocks shared by the tool files: form-friendly zod schemas (messages a person
 * understands, no transforms so parsed args equal the submitted JSON and digests agree) and
 * the bound checks several tools repeat. Source: docs/design.md §1.1, §1.4, §2.
 */

/** zod error callback: "X is required" when the value is absent, "X must be <what>" otherwise. */
function typeError(label: string, what: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined || issue.input === null ? `${label} is required` : `${label} must be ${what}`;
}

/**
 * Required free text: a string of at most `max` characters with at least one non-space
 * character. Whitespace-only counts as missing (issue params `{code: "missing_field"}`).
 */
export function requiredText(label: string, max: number) {
  return z
    .string({ error: typeError(label, "text") })
    .max(max, `${label} must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, { message: `${label} is required`, params: { code: "missing_field" } });
}

/**
 * An id of a record in account data (invoice, shipment, ticket, account): a non-empty string
 * of at most 128 characters. Deliberately NOT trimmed or pattern-checked here: existence, with
 * a lookalike-aware hint, is checked against the desk in the argument-bounds stage.
 */
export function recordId(label: string) {
  return z
    .string({ error: typeError(label, "text") })
    .min(1, `${label} is required`)
    .max(128, `${label} must be at most 128 characters`);
}

/** An ISO calendar date `YYYY-MM-DD` that exists (issue params `{code: "invalid_date"}`). */
export function isoDate(label: string) {
  return z
    .string({ error: typeError(label, "a date") })
    .refine(isIsoDate, { message: `${label} must be a real date as YYYY-MM-DD`, params: { code: "invalid_date" } });
}

/** A delivery window `{from, to}` of ISO dates, both inclusive. Order is a bound check. */
export const dateWindowSchema = z
  .object(
    {
      from: isoDate("Window start"),
      to: isoDate("Window end"),
    },
    { error: typeError("Delivery window", "a start and end date") },
  )
  .strict();
export type DateWindow = z.infer<typeof dateWindowSchema>;

/**
 * Issue for an id that does not exist as `kind` (code `unknown_id`), naming the nearest real
 * id when one is close ("did you mean in_74119?") and saying so when the typed id only LOOKS
 * like it (lookalike characters, spacing, case). `path` is relative to args.
 * Source: docs/design.md §2 ("ids are strings checked to exist in account data").
 */
export function unknownIdIssue(desk: AccountSnapshot, kind: RecordKind, path: string, id: string): ToolIssue {
  const u = explainUnresolved(desk, kind, id);
  let message = `${KIND_LABEL[kind]} ${JSON.stringify(id)} ${notFoundPhrase(desk)}`;
  if (u.suggestion !== undefined) {
    message += ` — did you mean ${u.suggestion}?`;
    if (u.lookalike) message += ` (it only looks like ${u.suggestion}: lookalike characters, spacing or case differ)`;
  }
  if (u.existsAs) message += ` (${JSON.stringify(id)} is a ${u.existsAs}, not ${kind === "invoice" || kind === "account" ? "an" : "a"} ${kind})`;
  return {
    code: "unknown_id",
    severity: "error",
    path,
    message,
    details: { kind, id, ...(u.suggestion !== undefined ? { suggestion: u.suggestion } : {}), lookalike: u.lookalike, ...(u.existsAs ? { existsAs: u.existsAs } : {}) },
  };
}

/** `amount_not_positive` unless `amount.minor > 0` (a zero or negative movement of money is never meant). */
export function checkPositive(amount: Money, what: string): ToolIssue[] {
  if (amount.minor > 0) return [];
  return [
    {
      code: "amount_not_positive",
      severity: "error",
      path: "amount.minor",
      message: `${what} must be more than zero (got ${formatMoney(amount)})`,
      details: { amount },
    },
  ];
}

/**
 * Bound checks for money applied against an invoice (refund, fee waiver), docs/design.md §1.4:
 * the invoice exists (`unknown_id`), the amount is > 0 (`amount_not_positive`), the invoice is
 * open — not paid or void (`invoice_not_open`), the currency is the invoice's
 * (`currency_mismatch`), amount ≤ open balance (`amount_exceeds_balance`; exactly the balance is
 * allowed, one minor unit more is not) and ≤ what other runs' money in flight leaves of it
 * (`amount_exceeds_available`; a `money_in_flight` warning names those runs when it fits).
 * Returns the invoice when it resolved.
 */
export function checkInvoiceMoney(
  args: { invoiceId: string; amount: Money },
  ctx: BoundsContext,
  what: string,
): { issues: ToolIssue[]; invoice?: InvoiceRecord } {
  const issues = checkPositive(args.amount, what);
  const invoice = findRecord(ctx.desk, "invoice", args.invoiceId);
  if (!invoice) return { issues: [unknownIdIssue(ctx.desk, "invoice", "invoiceId", args.invoiceId), ...issues] };
  const ref = describeRecord("invoice", invoice.id);
  if (invoice.status !== "open") {
    issues.push({
      code: "invoice_not_open",
      severity: "error",
      path: "invoiceId",
      message: `${capitalise(ref)} is ${invoice.status}; only an open invoice can take a ${what.toLowerCase()}`,
      details: { invoiceId: invoice.id, status: invoice.status },
    });
  }
  issues.push(...checkAgainstBalance(args.amount, { ref, balance: invoice.openBalance, balanceWord: "open balance", holds: moneyHeldOn(ctx, invoice).holds }, ctx, what, "amount"));
  return { issues, invoice };
}

/**
 * A record money is taken from, as the money bound sees it: how messages name it (`ref`, "invoice
 * in_74119", "order o_118"), its balance (minor units) and what the balance is called ("open
 * balance", "available amount"), and the money other approvals hold on it (already filtered as
 * `heldOn` filters: other runs' active or claimed, any run's written).
 */
export interface BalanceTarget {
  ref: string;
  balance: Money;
  balanceWord: string;
  holds: MoneyHold[];
}

/**
 * The money bound every tool that takes money from a record shares (docs/design.md §1.4), in the
 * currency of the balance: `currency_mismatch`; `amount_exceeds_balance` (exactly the balance is
 * allowed, one minor unit more is not); else, with money in flight, `amount_exceeds_available`
 * (more than what the holds leave) or the `money_in_flight` warning naming the runs. `amountPath`
 * is the money argument ("amount"); issue paths are `<amountPath>.currency` / `.minor`. Details
 * keep the invoice's keys (`openBalance`: the balance) for every kind of record.
 */
export function checkAgainstBalance(amount: Money, target: BalanceTarget, ctx: BoundsContext, what: string, amountPath: string): ToolIssue[] {
  const { ref, balance, balanceWord } = target;
  if (amount.currency !== balance.currency) {
    return [{ code: "currency_mismatch", severity: "error", path: `${amountPath}.currency`, message: `${what} is in ${amount.currency} but ${ref} is in ${balance.currency}`, details: { currency: amount.currency, invoiceCurrency: balance.currency } }];
  }
  if (amount.minor > balance.minor) {
    return [{ code: "amount_exceeds_balance", severity: "error", path: `${amountPath}.minor`, message: `${what} of ${formatMoney(amount)} is more than the ${balanceWord} of ${ref} (${formatMoney(balance)})`, details: { amount, openBalance: balance } }];
  }
  const held = heldOn(target.holds, balance);
  if (held.holds.length === 0) return [];
  const first = balanceWord === "open balance" ? "open" : "available";
  const line = `${first} ${formatMoney(balance)} − ${held.holds.map((h) => `${formatMoney(h.amount)} ${holdWords(h)} in run ${h.runId}`).join(" − ")} = ${formatMoney(held.available)} available`;
  const details = { amount, openBalance: balance, available: held.available, holds: held.holds };
  return [
    amount.minor > held.available.minor
      ? { code: "amount_exceeds_available", severity: "error", path: `${amountPath}.minor`, message: `${what} of ${formatMoney(amount)} is more than what is left on ${ref}: ${line}`, details }
      : { code: "money_in_flight", severity: "warning", path: `${amountPath}.minor`, message: `${held.holds.every((h) => h.runId === ctx.runId) ? "Earlier steps of this run draw" : "Other runs draw"} on ${ref} too: ${line}`, details },
  ];
}

/** `{holds, available}`: what `holds` (already filtered) leave of `balance`, never below zero; money in minor units. */
export function heldOn(holds: MoneyHold[], balance: Money): { holds: MoneyHold[]; available: Money } {
  const held = holds.reduce((a, h) => a + h.amount.minor, 0);
  return { holds, available: { minor: Math.max(0, balance.minor - held), currency: balance.currency } };
}

/**
 * The holds that count against a balance in `currency` for the run being checked (`ctx.runId`):
 * other runs' approved or claimed amounts, and every run's written amounts not yet in the synced
 * balance (an earlier step of this run too).
 */
export function countingHolds(ctx: BoundsContext, holds: readonly MoneyHold[], currency: string): MoneyHold[] {
  return holds.filter((h) => (h.runId !== ctx.runId || h.state === "written") && h.amount.currency === currency);
}

/**
 * Money in flight on `invoice`: the approved or claimed, not yet reported amounts of OTHER runs'
 * approvals, and the written amounts not yet in the synced balance of ANY run (state `written`: an
 * earlier step of this run too — the local copy does not show it yet), in the invoice's currency
 * (from `ctx.desk.inFlight`), and what is left of the open balance after them (never below zero).
 * `{holds, available}`; money in minor units.
 */
export function moneyHeldOn(ctx: BoundsContext, invoice: InvoiceRecord): { holds: MoneyHold[]; available: Money } {
  return heldOn(countingHolds(ctx, own(ctx.desk.inFlight ?? {}, invoice.id) ?? [], invoice.openBalance.currency), invoice.openBalance);
}

/** How a hold reads in a message: "approved", "being written", or — a written amount the local copy does not show yet — "written, not yet in the synced balance" ("$1,489.00 written, not yet in the synced balance in run r_1"). */
export function holdWords(h: Pick<MoneyHold, "state">): string {
  if (h.state === "written") return "written, not yet in the synced balance";
  return h.state === "claimed" ? "being written" : "approved";
}

/** `unknown_id` issue list for a ticket id that does not exist; `[]` when it does. */
export function checkTicketExists(ctx: BoundsContext, ticketId: string): ToolIssue[] {
  return findRecord(ctx.desk, "ticket", ticketId) ? [] : [unknownIdIssue(ctx.desk, "ticket", "ticketId", ticketId)];
}

/** Upper-cases the first character. */
export function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A target ref when `id` resolves as `kind` in the desk, else `null`. */
export function targetIfExists(desk: AccountSnapshot, kind: RecordKind, id: string) {
  return findRecord(desk, kind, id) ? { kind, id } : null;
}
