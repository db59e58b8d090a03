import type { AccountSnapshot, FeeRecord } from "../desk/snapshot";
import { accountIdOf, accountName } from "../desk/lookup";
import { formatMoney, type Money } from "../money";
import { formatIsoDate } from "../format";
import { getTool, type ToolName } from "../tools/catalog";
import { builtinCatalog, type ToolCatalog } from "../tools/tool-catalog";
import type { ToolDefinition } from "../tools/types";
import type { EffectChange, StepEffect } from "./schema";

export type { EffectChange, StepEffect } from "./schema";

/*
 * The effects preview (issue #17.3): the account as it will be after each step of a plan,
 * computed from live account data (the AccountSnapshot the validator reads) by the same tool
 * definitions the validator uses — each step's arguments are parsed by its tool's `argsSchema`,
 * its record resolved by `target`, its money read by `amount`, its window by `deliveryWindow`
 * and its customer text by `customerText`. Pure; never throws for any input.
 */

/** One invoice as the preview tracks it: open balance (minor units), status, fee lines. */
export interface InvoiceState {
  status: "open" | "paid" | "void";
  openBalance: Money;
  fees: FeeRecord[];
}

/**
 * The account state a plan's steps act on: invoices and shipments by id (from the snapshot),
 * credit this plan puts on accounts (key `accountId currency`), customer-visible messages and
 * internal notes in order, and escalations by ticket id. Treated as immutable: every step
 * makes a new state.
 */
export interface EffectState {
  invoices: Readonly<Record<string, InvoiceState>>;
  shipments: Readonly<Record<string, { status: string; window: { from: string; to: string } }>>;
  credit: Readonly<Record<string, Money>>;
  told: readonly { ticketId: string; text: string }[];
  notes: readonly { ticketId: string; text: string }[];
  escalations: Readonly<Record<string, string>>;
}

/** A step as the preview reads it: id, tool name and raw (untrusted) arguments. */
export interface EffectStepInput {
  id: string;
  tool: string;
  args: unknown;
}

/** The state before any step: the snapshot's invoices and shipments, no credit, nothing told. */
export function initialEffectState(desk: AccountSnapshot): EffectState {
  const invoices: Record<string, InvoiceState> = {};
  for (const [id, i] of Object.entries(desk.invoices)) invoices[id] = { status: i.status, openBalance: i.openBalance, fees: i.fees };
  const shipments: Record<string, { status: string; window: { from: string; to: string } }> = {};
  for (const [id, s] of Object.entries(desk.shipments)) shipments[id] = { status: s.status, window: s.window };
  return { invoices, shipments, credit: {}, told: [], notes: [], escalations: {} };
}

type Outcome = { ok: true; state: EffectState; changes: EffectChange[] } | { ok: false; reason: string };
type Applier = (state: EffectState, args: never, tool: ToolDefinition) => Outcome;

const own = <T>(map: Readonly<Record<string, T>>, id: string): T | undefined => (Object.prototype.hasOwnProperty.call(map, id) ? map[id] : undefined);
const cannot = (reason: string): Outcome => ({ ok: false, reason });

/** Money taken off an invoice (refund or waiver): open, same currency, never below zero after earlier steps. */
function lowerBalance(state: EffectState, invoiceId: string, amount: Money, what: string): { ok: true; invoice: InvoiceState; after: Money } | { ok: false; reason: string } {
  const invoice = own(state.invoices, invoiceId);
  if (!invoice) return { ok: false, reason: `Invoice ${invoiceId} is not in the account data` };
  if (invoice.status !== "open") return { ok: false, reason: `Invoice ${invoiceId} is ${invoice.status}; a ${what} cannot apply` };
  if (invoice.openBalance.currency !== amount.currency) return { ok: false, reason: `Invoice ${invoiceId} is in ${invoice.openBalance.currency}, the ${what} in ${amount.currency}` };
  if (amount.minor <= 0) return { ok: false, reason: `The ${what} is not more than zero` };
  if (amount.minor > invoice.openBalance.minor) {
    return { ok: false, reason: `The ${what} of ${formatMoney(amount)} is more than the ${formatMoney(invoice.openBalance)} left open on ${invoiceId} after the earlier steps` };
  }
  return { ok: true, invoice, after: { minor: invoice.openBalance.minor - amount.minor, currency: amount.currency } };
}

/** What each built-in tool does to the state (the demo executor's write, lib/server/demo/demo-effects.ts, does the same). */
const APPLIERS: Record<ToolName, Applier> = {
  issue_refund: (state, args: { invoiceId: string }, tool) => {
    const amount = tool.amount(args as never)!;
    const r = lowerBalance(state, args.invoiceId, amount, "refund");
    if (!r.ok) return cannot(r.reason);
    return {
      ok: true,
      state: { ...state, invoices: { ...state.invoices, [args.invoiceId]: { ...r.invoice, openBalance: r.after } } },
      changes: [{ kind: "invoice_balance", invoiceId: args.invoiceId, before: r.invoice.openBalance, after: r.after }],
    };
  },
  waive_fee: (state, args: { invoiceId: string; feeCode: string }, tool) => {
    const amount = tool.amount(args as never)!;
    const r = lowerBalance(state, args.invoiceId, amount, "waiver");
    if (!r.ok) return cannot(r.reason);
    const fee = r.invoice.fees.find((f) => f.code === args.feeCode);
    if (!fee) return cannot(`Invoice ${args.invoiceId} has no ${args.feeCode} fee left`);
    if (fee.amount.currency !== amount.currency || amount.minor > fee.amount.minor) {
      return cannot(`The waiver of ${formatMoney(amount)} is more than the ${args.feeCode} fee left (${formatMoney(fee.amount)})`);
    }
    const feeAfter = { minor: fee.amount.minor - amount.minor, currency: fee.amount.currency };
    const fees = r.invoice.fees.map((f) => (f.code === args.feeCode ? { ...f, amount: feeAfter } : f)).filter((f) => f.amount.minor > 0);
    return {
      ok: true,
      state: { ...state, invoices: { ...state.invoices, [args.invoiceId]: { ...r.invoice, openBalance: r.after, fees } } },
      changes: [
        { kind: "invoice_fee", invoiceId: args.invoiceId, feeCode: args.feeCode, before: fee.amount, after: feeAfter },
        { kind: "invoice_balance", invoiceId: args.invoiceId, before: r.invoice.openBalance, after: r.after },
      ],
    };
  },
  apply_credit: (state, args: { accountId: string }, tool) => {
    const amount = tool.amount(args as never)!;
    if (amount.minor <= 0) return cannot("The credit is not more than zero");
    const key = `${args.accountId} ${amount.currency}`;
    const before = own(state.credit, key) ?? { minor: 0, currency: amount.currency };
    const after = { minor: before.minor + amount.minor, currency: amount.currency };
    return {
      ok: true,
      state: { ...state, credit: { ...state.credit, [key]: after } },
      changes: [{ kind: "account_credit", accountId: args.accountId, before, after }],
    };
  },
  reschedule_delivery: (state, args: { shipmentId: string }, tool) => {
    const shipment = own(state.shipments, args.shipmentId);
    if (!shipment) return cannot(`Shipment ${args.shipmentId} is not in the account data`);
    if (shipment.status === "delivered") return cannot(`Shipment ${args.shipmentId} has been delivered; its window does not move`);
    const after = tool.deliveryWindow!(args as never)!;
    return {
      ok: true,
      state: { ...state, shipments: { ...state.shipments, [args.shipmentId]: { ...shipment, window: after } } },
      changes: [{ kind: "shipment_window", shipmentId: args.shipmentId, before: shipment.window, after }],
    };
  },
  send_reply: (state, args: { ticketId: string }, tool) => {
    const text = tool.customerText!(args as never) ?? "";
    return {
      ok: true,
      state: { ...state, told: [...state.told, { ticketId: args.ticketId, text }] },
      changes: [{ kind: "customer_message", ticketId: args.ticketId, text }],
    };
  },
  add_ticket_note: (state, args: { ticketId: string; note: string }) => ({
    ok: true,
    state: { ...state, notes: [...state.notes, { ticketId: args.ticketId, text: args.note }] },
    changes: [{ kind: "ticket_note", ticketId: args.ticketId, text: args.note }],
  }),
  escalate_ticket: (state, args: { ticketId: string; team: string }) => ({
    ok: true,
    state: { ...state, escalations: { ...state.escalations, [args.ticketId]: args.team } },
    changes: [{ kind: "ticket_escalation", ticketId: args.ticketId, before: own(state.escalations, args.ticketId) ?? null, after: args.team }],
  }),
};

/**
 * Applies one step (at 1-based `position`) to `state`: the step's effect and the state after it.
 * An imported tool (known to `catalog`, not built in) yields `unknown_effect`; an unknown tool,
 * arguments its tool's schema refuses, a target that does not resolve in `desk` (the tool's own
 * `target`), or an amount the earlier steps left no room for yield `cannot_preview` with a reason
 * — and leave the state unchanged. Never throws.
 */
export function applyStepEffect(
  state: EffectState,
  step: EffectStepInput,
  position: number,
  desk: AccountSnapshot,
  catalog: ToolCatalog = builtinCatalog,
): { state: EffectState; effect: StepEffect } {
  const base = { stepId: step.id, position, tool: step.tool };
  const fail = (reason: string) => ({ state, effect: { status: "cannot_preview" as const, ...base, reason } });
  const builtin = getTool(step.tool);
  if (!builtin) {
    if (catalog.get(step.tool)) return { state, effect: { status: "unknown_effect", ...base, reason: "No preview: effect unknown (an imported tool)" } };
    return fail(`No preview: ${step.tool} is not a known tool`);
  }
  try {
    const parsed = builtin.argsSchema.safeParse(step.args);
    if (!parsed.success) return fail("No preview: the arguments are not valid");
    const target = builtin.target(parsed.data as never, desk);
    if (!target) return fail("No preview: the record this step writes to is not in the account data");
    const out = APPLIERS[builtin.name as ToolName](state, parsed.data as never, builtin);
    if (!out.ok) return fail(`No preview: ${out.reason}`);
    // A record of another account than the ticket's: the change names that account.
    const ownerId = accountIdOf(desk, target.kind, target.id);
    const otherAccount = ownerId !== undefined && ownerId !== desk.ticket.accountId ? accountName(desk, ownerId) : undefined;
    const changes = otherAccount ? out.changes.map((c) => (c.kind === "invoice_balance" || c.kind === "invoice_fee" || c.kind === "account_credit" || c.kind === "shipment_window" ? { ...c, otherAccount } : c)) : out.changes;
    return { state: out.state, effect: { status: "previewed", ...base, changes, customerTold: [...out.state.told] } };
  } catch (e) {
    return fail(`No preview: ${e instanceof Error ? e.message : "the step could not be previewed"}`);
  }
}

/**
 * The effects preview of `steps` (in plan order) on `desk`: per step, what it changes (before →
 * after) in the state the earlier steps left, and what the customer will have been told by then.
 * Equals folding {@link applyStepEffect} over the steps from {@link initialEffectState}.
 * Source: issue #17.3. Never throws.
 */
export function previewEffects(steps: readonly EffectStepInput[], desk: AccountSnapshot, catalog: ToolCatalog = builtinCatalog): StepEffect[] {
  let state = initialEffectState(desk);
  const effects: StepEffect[] = [];
  steps.forEach((step, i) => {
    const r = applyStepEffect(state, step, i + 1, desk, catalog);
    state = r.state;
    effects.push(r.effect);
  });
  return effects;
}

/** "Thu 3 Dec 2026" or "Thu 3 Dec 2026 – Fri 4 Dec 2026" for a window (ISO dates, inclusive). */
export function formatWindow(w: { from: string; to: string }): string {
  return w.from === w.to ? formatIsoDate(w.from) : `${formatIsoDate(w.from)} – ${formatIsoDate(w.to)}`;
}

/** " (Halvorsen Freight — another customer)" for a record of another account than the ticket's, else "". */
function whose(otherAccount: string | undefined): string {
  return otherAccount ? ` (${otherAccount} — another customer)` : "";
}

/**
 * One line per change, for people: "in_74119 open balance $2,120.00 → $631.00",
 * "sh_5521 window Thu 3 Dec 2026 → Mon 7 Dec 2026", "Customer told on ticket 74991: “…”";
 * a record of another customer says whose: "in_74119 (Halvorsen Freight — another customer) open balance …".
 */
export function describeChange(c: EffectChange): string {
  switch (c.kind) {
    case "invoice_balance":
      return `${c.invoiceId}${whose(c.otherAccount)} open balance ${formatMoney(c.before)} → ${formatMoney(c.after)}`;
    case "invoice_fee":
      return `${c.invoiceId}${whose(c.otherAccount)} ${c.feeCode} fee ${formatMoney(c.before)} → ${c.after.minor === 0 ? "waived" : formatMoney(c.after)}`;
    case "account_credit":
      return `${c.accountId}${whose(c.otherAccount)} credit from this plan ${formatMoney(c.before)} → ${formatMoney(c.after)}`;
    case "shipment_window":
      return `${c.shipmentId}${whose(c.otherAccount)} window ${formatWindow(c.before)} → ${formatWindow(c.after)}`;
    case "customer_message":
      return `Reply sent to the customer on ticket ${c.ticketId}`;
    case "ticket_note":
      return `Internal note on ticket ${c.ticketId} (the customer does not see it)`;
    case "ticket_escalation":
      return `Ticket ${c.ticketId} handed to ${c.after}${c.before ? ` (was ${c.before})` : ""}`;
  }
}
