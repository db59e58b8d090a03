import type { AccountSnapshot, FeeRecord } from "../desk/snapshot";
import { formatMoney, type Money } from "../money/format-money";
import type { EffectChange } from "./schema";

/*
 * The state an effects preview folds a plan's steps over, and the vocabulary a tool's preview
 * step speaks (`EffectOutcome`). Each built-in tool's own preview step lives with the tool
 * (lib/tools/<tool>/tool.ts); lib/effects/preview.ts folds them. Pure and client-safe.
 */

/** One invoice as the preview tracks it: open balance (minor units), status, fee lines. */
export interface InvoiceState {
  status: "open" | "paid" | "void";
  openBalance: Money;
  fees: FeeRecord[];
}

/** One shipment as the preview tracks it: status (`scheduled`, `in_transit`, …) and delivery window (ISO dates, inclusive). */
export interface ShipmentState {
  status: string;
  window: { from: string; to: string };
}

/**
 * The account state a plan's steps act on: invoices and shipments by id (from the snapshot),
 * credit this plan puts on accounts (key `accountId currency`), customer-visible messages and
 * internal notes in order, and escalations by ticket id. Treated as immutable: every step
 * makes a new state.
 */
export interface EffectState {
  invoices: Readonly<Record<string, InvoiceState>>;
  shipments: Readonly<Record<string, ShipmentState>>;
  credit: Readonly<Record<string, Money>>;
  told: readonly { ticketId: string; text: string }[];
  notes: readonly { ticketId: string; text: string }[];
  escalations: Readonly<Record<string, string>>;
  /**
   * Records of declared kinds by `"<kind>:<id>"` (lib/records/record-key.ts): the available amount
   * (balance role), whether closed, the title — what a bound tool's `x-plandesk-effect` lowers.
   */
  records?: Readonly<Record<string, DeclaredState>>;
}

/** One record of a declared kind as the preview tracks it: available amount (null: no balance role), closed, title. */
export interface DeclaredState {
  available: Money | null;
  closed: boolean;
  title: string | null;
}

/**
 * What one tool's preview step made of the state: the new state and the changes (before →
 * after), or why it cannot apply after the earlier steps (`reason`, one sentence, no "No preview:" prefix).
 */
export type EffectOutcome = { ok: true; state: EffectState; changes: EffectChange[] } | { ok: false; reason: string };

/**
 * A tool's effect as the preview knows it: `known` with the tool's preview step (arguments
 * already parsed by the tool's schema and its target resolved), or `unknown` — an imported
 * tool, whose effect Plandesk cannot know; the preview then says so in `reason`.
 */
export type EffectModel<A> = { kind: "known"; apply(state: EffectState, args: A): EffectOutcome } | { kind: "unknown"; reason: string };

/** The generic effect of every imported tool: "No preview: effect unknown (an imported tool)". */
export const UNKNOWN_EFFECT: EffectModel<never> = { kind: "unknown", reason: "No preview: effect unknown (an imported tool)" };

/** A built-in tool's known effect: its preview step. */
export function knownEffect<A>(apply: (state: EffectState, args: A) => EffectOutcome): EffectModel<A> {
  return { kind: "known", apply };
}

/** The state before any step: the snapshot's invoices and shipments, no credit, nothing told. */
export function initialEffectState(desk: AccountSnapshot): EffectState {
  const invoices: Record<string, InvoiceState> = {};
  for (const [id, i] of Object.entries(desk.invoices)) invoices[id] = { status: i.status, openBalance: i.openBalance, fees: i.fees };
  const shipments: Record<string, ShipmentState> = {};
  for (const [id, s] of Object.entries(desk.shipments)) shipments[id] = { status: s.status, window: s.window };
  const records: Record<string, DeclaredState> = {};
  for (const [kind, byId] of Object.entries(desk.declared ?? {})) for (const [id, r] of Object.entries(byId)) records[`${kind}:${id}`] = { available: r.available as Money | null, closed: r.closed === true, title: r.title };
  return { invoices, shipments, credit: {}, told: [], notes: [], escalations: {}, records };
}

/** Own-property lookup in a state map (never finds `constructor` or `__proto__`). */
export const ownIn = <T>(map: Readonly<Record<string, T>>, id: string): T | undefined => (Object.prototype.hasOwnProperty.call(map, id) ? map[id] : undefined);

/** An outcome that cannot apply, with its reason. */
export const cannotApply = (reason: string): EffectOutcome => ({ ok: false, reason });

/**
 * Money taken off an invoice (refund or waiver, `what` names it): the invoice is open, in the
 * amount's currency, the amount > 0 and not more than what the earlier steps left open — never
 * below zero. The invoice state and its balance after, or the reason it cannot apply.
 */
export function lowerBalance(state: EffectState, invoiceId: string, amount: Money, what: string): { ok: true; invoice: InvoiceState; after: Money } | { ok: false; reason: string } {
  const invoice = ownIn(state.invoices, invoiceId);
  if (!invoice) return { ok: false, reason: `Invoice ${invoiceId} is not in the account data` };
  if (invoice.status !== "open") return { ok: false, reason: `Invoice ${invoiceId} is ${invoice.status}; a ${what} cannot apply` };
  if (invoice.openBalance.currency !== amount.currency) return { ok: false, reason: `Invoice ${invoiceId} is in ${invoice.openBalance.currency}, the ${what} in ${amount.currency}` };
  if (amount.minor <= 0) return { ok: false, reason: `The ${what} is not more than zero` };
  if (amount.minor > invoice.openBalance.minor) {
    return { ok: false, reason: `The ${what} of ${formatMoney(amount)} is more than the ${formatMoney(invoice.openBalance)} left open on ${invoiceId} after the earlier steps` };
  }
  return { ok: true, invoice, after: { minor: invoice.openBalance.minor - amount.minor, currency: amount.currency } };
}
