import { getTool } from "../tools/builtin-tools";
import { findCommitments } from "../validation/commitments";
import { formatMoney, type Currency, type Money } from "../money/format-money";
import { deliveryWords, feeWords, laterInWords, type DeliveryDifference, type FeeDifference } from "./outcome-words";

export { deliveryWords, feeWords, laterInWords, type DeliveryDifference, type FeeDifference } from "./outcome-words";

/*
 * The outcome record of an executed run (docs/design.md "Did the edit help?"): what was actually
 * written — money out per currency, compensation beyond what the task asked for, commitments sent
 * to the customer — and what happened afterwards, from the ticketing integration's ticket events;
 * for an edited run also what the agent's own plan would have moved (the counterfactual), and the
 * signals computed from all of it. Pure and client-safe: lib/server/outcomes stores it.
 *
 * Definitions (stated on the run page and in docs/using.md "Did the edit help? Outcomes and labels"):
 * - *Written* means a step of the approved plan whose outcome is `succeeded` (reported, or
 *   reconciled by a supervisor). Nothing else counts: a failed or unknown step wrote nothing we know.
 * - *Money out* is the tool's own `amount` of every written step that moves money
 *   (`issue_refund` → refund, `apply_credit` → credit, `waive_fee` → waived fee), summed per
 *   currency in minor units. Imported tools move no money we know of.
 * - *The task's ask* is the task contract's `compensationCap` where there is one. Without a cap the
 *   task asked for no particular amount, and the agent's proposal is the only bar.
 * - *Over-compensation*: an edited run whose money out, in some currency, exceeds both what the
 *   agent's plan (plan version 1) would have moved and the task's ask.
 * - *Deliveries and fees*: the window each written step sets on a shipment (`reschedule_delivery`)
 *   and the fee each waives (`waive_fee`), by the tool's own `outcomeEffect` (the change its effect
 *   model previews); for an edited run beside what the agent's plan would have set or waived — "the
 *   edit moved the delivery of sh_5521 2 days later than the agent proposed". A shipment moved twice
 *   counts with its last window.
 * - *Commitments*: clauses of written `send_reply` bodies that the promise scan (docs/design.md §1.6,
 *   lib/validation/commitments.ts) reads as promising money or a delivery date.
 * - A *reopen* counts against the run when it comes at most `reopenWindowDays` days after the run
 *   executed (default 7; PLANDESK_REOPEN_WINDOW_DAYS).
 */

/** A step as the outcome reads it: id, tool name and its (untrusted) arguments. */
export interface OutcomeStep {
  id: string;
  tool: string;
  args: unknown;
}

/** What kind of money a step moves: a refund, a credit on the account, a waived fee. */
export type MoneyKind = "refund" | "credit" | "waived_fee";

/** One written step's money: which step, its tool and kind, and the amount (minor units). */
export interface MoneyLine {
  stepId: string;
  tool: string;
  kind: MoneyKind;
  amount: Money;
}

/** One delivery window a step sets on a shipment (ISO dates, inclusive). */
export interface DeliveryLine {
  stepId: string;
  tool: string;
  shipmentId: string;
  window: { from: string; to: string };
}

/** One fee a step waives: the invoice, the fee code and the amount (minor units). */
export interface FeeLine {
  stepId: string;
  tool: string;
  invoiceId: string;
  feeCode: string;
  amount: Money;
}

/** The ticket events the integration reports (`POST /api/v1/tasks/{taskId}/events`). */
export const TICKET_EVENT_TYPES = ["reopened", "customer_replied", "resolved", "chargeback"] as const;
/** See {@link TICKET_EVENT_TYPES}. */
export type TicketEventType = (typeof TICKET_EVENT_TYPES)[number];

/**
 * Who wrote the text (`detail`) a ticket event carries, as a task text part's source
 * (lib/task-contract/text-sources.ts): a reply, a reopen and a chargeback's reason are the
 * customer's (or a bank's) words — untrusted; a resolution note is staff text. An event that
 * carries text is a task revision like a comment (docs/design.md §8): a plan bound to the earlier
 * revision can no longer be approved or claimed. Events without text change no revision.
 */
export const TICKET_EVENT_TEXT_SOURCE = {
  customer_replied: "customer_message",
  reopened: "customer_message",
  chargeback: "customer_message",
  resolved: "staff",
} as const satisfies Record<TicketEventType, "customer_message" | "staff">;

/** One ticket event as the outcome reads it; `at` is when it happened (UTC). */
export interface TicketEventInput {
  type: TicketEventType;
  at: Date | string;
  detail?: string | null;
}

/** One commitment sent to the customer: the reply step, its ticket, and what the scan found. */
export interface SentCommitment {
  stepId: string;
  ticketId: string;
  kind: "money" | "date";
  /** The promising clause as the scan read it (≤ 200 characters). */
  clause: string;
  /** Money promises: the amounts named in the clause (may be empty). */
  amounts?: Money[];
  /** Date promises: the promised ISO date. */
  date?: string;
}

/**
 * The computed signals, each a fact (never a judgement):
 * - `reopened`: the ticket was reopened within the reopen window after the run executed;
 * - `chargeback`: the customer filed a chargeback after the run executed;
 * - `over_compensation`: edited, and money out exceeds both the agent's proposal and the task's ask;
 * - `beyond_cap`: money out exceeds the task contract's compensation cap;
 * - `resolved`: the ticket was resolved after the run executed and not reopened after that;
 * - `customer_replied`: the customer wrote back after the run executed;
 * - `commitment_sent`: a written reply promised money or a delivery date.
 */
export const OUTCOME_SIGNALS = ["reopened", "chargeback", "over_compensation", "beyond_cap", "resolved", "customer_replied", "commitment_sent"] as const;
/** See {@link OUTCOME_SIGNALS}. */
export type OutcomeSignal = (typeof OUTCOME_SIGNALS)[number];

/** Signals that count against a run (the suggestion "worse"). */
export const AGAINST_SIGNALS: readonly OutcomeSignal[] = ["reopened", "chargeback", "over_compensation", "beyond_cap"];

/** The labels a supervisor gives an edited run. */
export const OUTCOME_LABELS = ["better", "same", "worse"] as const;
/** See {@link OUTCOME_LABELS}. */
export type OutcomeLabel = (typeof OUTCOME_LABELS)[number];

/** A supervisor's label as the API and the pages show it (times ISO UTC). */
export interface OutcomeLabelView {
  label: OutcomeLabel;
  reason: string;
  by: { id: string; name: string };
  at: string;
}

/** One event afterwards, with whole days since the run executed (negative: before it). */
export interface AfterwardsEvent {
  type: TicketEventType;
  at: string;
  detail: string | null;
  daysAfter: number;
  /** A reopen inside the window (counts against the run). */
  countsAgainst: boolean;
}

/** The outcome record of one executed run (see the module comment). Money in minor units; times ISO UTC. */
export interface OutcomeRecord {
  executedAt: string;
  edited: boolean;
  /** Money out per currency, largest first (none: []). */
  moneyOut: Money[];
  moneyLines: MoneyLine[];
  /** For an edited run: what the agent's plan (version 1) would have moved, per currency; null when not edited. */
  proposedMoneyOut: Money[] | null;
  /** Executed minus proposed, per currency where they differ (signed minor units); null when not edited. */
  moneyDifference: Money[] | null;
  /** The largest absolute per-currency difference (minor units; 0 when not edited): the review queue sorts by it. */
  moneyDifferenceMinor: number;
  /** The task contract's compensation cap, or null when the task has none. */
  compensationCap: Money | null;
  /** Money out beyond the cap (positive, in the cap's currency; money in another currency counts whole), per currency; [] when within it or no cap. */
  beyondCap: Money[];
  /** Delivery windows the written steps set, in plan order. */
  deliveries: DeliveryLine[];
  /** Edited runs: shipments whose delivery the edit set differently from the agent's plan; null when not edited. */
  deliveryDifference: DeliveryDifference[] | null;
  /** Fees the written steps waived, in plan order (their money is in `moneyLines` too, kind `waived_fee`). */
  feesWaived: FeeLine[];
  /** Edited runs: fees the edit waived differently from the agent's plan; null when not edited. */
  feeDifference: FeeDifference[] | null;
  commitments: SentCommitment[];
  /** Tools of written steps whose effect Plandesk does not know (imported tools). */
  unknownEffects: string[];
  /** The reopen window the record was computed with (days). */
  reopenWindowDays: number;
  afterwards: AfterwardsEvent[];
  signals: OutcomeSignal[];
  /** What the signals suggest, with the reasons; never stored as the label. */
  suggestion: { label: OutcomeLabel | null; because: string[] };
  /** One sentence for people: "The edit moved $1,489.00 more than the agent proposed; the ticket was reopened 2 days later." */
  summary: string;
}

/** Everything the record is computed from. */
export interface OutcomeInput {
  /** Steps of the approved plan whose outcome is `succeeded`, in plan order. */
  writtenSteps: readonly OutcomeStep[];
  /** The agent's own plan (version 1) when the run was edited; null when it was not. */
  proposedSteps: readonly OutcomeStep[] | null;
  compensationCap: Money | null;
  /** When the run executed (its last written step's report; UTC). */
  executedAt: Date;
  events: readonly TicketEventInput[];
  /** Reopen window in days (≥ 0). */
  reopenWindowDays: number;
}

/** The default reopen window: a reopen within 7 days after the run executed counts against it. */
export const DEFAULT_REOPEN_WINDOW_DAYS = 7;

const DAY_MS = 86_400_000;

const MONEY_KIND: Record<string, MoneyKind> = { issue_refund: "refund", apply_credit: "credit", waive_fee: "waived_fee" };

/** The money each step moves, by its tool's own `amount` (tools that move none, or unknown tools, give none). Pure. */
export function moneyLines(steps: readonly OutcomeStep[]): MoneyLine[] {
  const out: MoneyLine[] = [];
  for (const s of steps) {
    const kind = MONEY_KIND[s.tool];
    const tool = getTool(s.tool);
    if (!kind || !tool) continue;
    let amount: Money | undefined;
    try {
      const parsed = tool.argsSchema.safeParse(s.args);
      amount = parsed.success ? tool.amount(parsed.data as never) : undefined;
    } catch {
      amount = undefined;
    }
    if (amount && amount.minor > 0) out.push({ stepId: s.id, tool: s.tool, kind, amount: { minor: amount.minor, currency: amount.currency } });
  }
  return out;
}

/** A step's delivery or fee effect by its tool's own `outcomeEffect` (none for other or unknown tools, or arguments its schema refuses). */
function outcomeEffectOf(s: OutcomeStep) {
  const tool = getTool(s.tool);
  if (!tool?.outcomeEffect) return undefined;
  try {
    const parsed = tool.argsSchema.safeParse(s.args);
    return parsed.success ? tool.outcomeEffect(parsed.data as never) : undefined;
  } catch {
    return undefined;
  }
}

/** The delivery windows the steps set, in plan order (`reschedule_delivery`'s `outcomeEffect`). Pure. */
export function deliveryLines(steps: readonly OutcomeStep[]): DeliveryLine[] {
  const out: DeliveryLine[] = [];
  for (const s of steps) {
    const e = outcomeEffectOf(s);
    if (e?.kind === "delivery_window") out.push({ stepId: s.id, tool: s.tool, shipmentId: e.shipmentId, window: { from: e.window.from, to: e.window.to } });
  }
  return out;
}

/** The fees the steps waive, in plan order (`waive_fee`'s `outcomeEffect`; amounts > 0 only). Pure. */
export function feeLines(steps: readonly OutcomeStep[]): FeeLine[] {
  const out: FeeLine[] = [];
  for (const s of steps) {
    const e = outcomeEffectOf(s);
    if (e?.kind === "fee_waived" && e.amount.minor > 0) out.push({ stepId: s.id, tool: s.tool, invoiceId: e.invoiceId, feeCode: e.feeCode, amount: { minor: e.amount.minor, currency: e.amount.currency } });
  }
  return out;
}

const dayNumber = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);

/**
 * Shipments whose last window differs between `executed` and `proposed` (see {@link DeliveryDifference}),
 * by shipment id. Pure.
 */
export function deliveryDifference(executed: readonly DeliveryLine[], proposed: readonly DeliveryLine[]): DeliveryDifference[] {
  const last = (lines: readonly DeliveryLine[]) => new Map(lines.map((l) => [l.shipmentId, l.window]));
  const e = last(executed);
  const p = last(proposed);
  return [...new Set([...e.keys(), ...p.keys()])]
    .sort()
    .map((shipmentId) => {
      const ex = e.get(shipmentId) ?? null;
      const pr = p.get(shipmentId) ?? null;
      const daysLater = ex && pr ? dayNumber(ex.from) - dayNumber(pr.from) : null;
      return { shipmentId, proposed: pr, executed: ex, daysLater: Number.isFinite(daysLater) ? daysLater : null };
    })
    .filter((d) => d.executed?.from !== d.proposed?.from || d.executed?.to !== d.proposed?.to);
}

/** Fees waived differently between `executed` and `proposed` (per invoice and fee code and currency; see {@link FeeDifference}). Pure. */
export function feeDifference(executed: readonly FeeLine[], proposed: readonly FeeLine[]): FeeDifference[] {
  const sum = (lines: readonly FeeLine[]) => {
    const by = new Map<string, { invoiceId: string; feeCode: string; amount: Money }>();
    for (const l of lines) {
      const key = `${l.invoiceId}\u0000${l.feeCode}\u0000${l.amount.currency}`;
      const had = by.get(key);
      by.set(key, { invoiceId: l.invoiceId, feeCode: l.feeCode, amount: { minor: (had?.amount.minor ?? 0) + l.amount.minor, currency: l.amount.currency } });
    }
    return by;
  };
  const e = sum(executed);
  const p = sum(proposed);
  return [...new Set([...e.keys(), ...p.keys()])]
    .sort()
    .map((key) => {
      const ex = e.get(key);
      const pr = p.get(key);
      const base = (ex ?? pr)!;
      const currency = base.amount.currency;
      return { invoiceId: base.invoiceId, feeCode: base.feeCode, proposed: pr?.amount ?? null, executed: ex?.amount ?? null, difference: { minor: (ex?.amount.minor ?? 0) - (pr?.amount.minor ?? 0), currency } };
    })
    .filter((d) => d.difference.minor !== 0);
}

/** Sums money per currency, largest first (then by currency code). Pure. */
export function totalsByCurrency(amounts: readonly Money[]): Money[] {
  const by = new Map<Currency, number>();
  for (const a of amounts) by.set(a.currency, (by.get(a.currency) ?? 0) + a.minor);
  return [...by.entries()].map(([currency, minor]) => ({ minor, currency })).sort((a, b) => b.minor - a.minor || a.currency.localeCompare(b.currency));
}

const minorIn = (totals: readonly Money[], currency: Currency) => totals.find((t) => t.currency === currency)?.minor ?? 0;

/** Executed minus proposed per currency, only where they differ (signed minor units), largest absolute first. Pure. */
export function moneyDifference(executed: readonly Money[], proposed: readonly Money[]): Money[] {
  const currencies = [...new Set([...executed, ...proposed].map((m) => m.currency))];
  return currencies
    .map((currency) => ({ minor: minorIn(executed, currency) - minorIn(proposed, currency), currency }))
    .filter((d) => d.minor !== 0)
    .sort((a, b) => Math.abs(b.minor) - Math.abs(a.minor) || a.currency.localeCompare(b.currency));
}

/** Money out beyond `cap`: in the cap's currency the excess, any other currency whole. [] without a cap. Pure. */
export function beyondCap(moneyOut: readonly Money[], cap: Money | null): Money[] {
  if (!cap) return [];
  return moneyOut
    .map((m) => (m.currency === cap.currency ? { minor: m.minor - cap.minor, currency: m.currency } : m))
    .filter((m) => m.minor > 0);
}

/** The commitments written replies sent (the promise scan of docs/design.md §1.6, "today" = `executedAt`). Pure. */
export function sentCommitments(steps: readonly OutcomeStep[], executedAt: Date): SentCommitment[] {
  const out: SentCommitment[] = [];
  for (const s of steps) {
    if (s.tool !== "send_reply") continue;
    const args = (s.args ?? {}) as { ticketId?: unknown; body?: unknown };
    if (typeof args.body !== "string") continue;
    const ticketId = typeof args.ticketId === "string" ? args.ticketId : "";
    for (const c of findCommitments(args.body, executedAt)) {
      if (c.kind === "money") {
        const amounts = c.amounts.filter((a): a is typeof a & { currency: Currency } => a.currency !== undefined).map((a) => ({ minor: a.minor, currency: a.currency }));
        out.push({ stepId: s.id, ticketId, kind: "money", clause: c.clause, amounts });
      } else {
        out.push({ stepId: s.id, ticketId, kind: "date", clause: c.clause, date: c.date });
      }
    }
  }
  return out;
}

const toDate = (d: Date | string) => (d instanceof Date ? d : new Date(d));


const joinMoney = (ms: readonly Money[]) => ms.map((m) => formatMoney({ minor: Math.abs(m.minor), currency: m.currency })).join(" and ");

/**
 * The outcome record of one executed run from what it wrote, the agent's own plan (when edited),
 * the task's cap and the ticket events (see the module comment for every definition). Events
 * before `executedAt` are left out of `afterwards`. Pure; never throws for well-typed input.
 */
export function computeOutcome(input: OutcomeInput): OutcomeRecord {
  const executedAt = input.executedAt;
  const lines = moneyLines(input.writtenSteps);
  const moneyOut = totalsByCurrency(lines.map((l) => l.amount));
  const edited = input.proposedSteps !== null;
  const proposedMoneyOut = input.proposedSteps ? totalsByCurrency(moneyLines(input.proposedSteps).map((l) => l.amount)) : null;
  const difference = proposedMoneyOut ? moneyDifference(moneyOut, proposedMoneyOut) : null;
  const moneyDifferenceMinor = difference && difference.length ? Math.abs(difference[0].minor) : 0;
  const cap = input.compensationCap;
  const overCap = beyondCap(moneyOut, cap);
  const commitments = sentCommitments(input.writtenSteps, executedAt);
  const deliveries = deliveryLines(input.writtenSteps);
  const feesWaived = feeLines(input.writtenSteps);
  const deliveryDiff = input.proposedSteps ? deliveryDifference(deliveries, deliveryLines(input.proposedSteps)) : null;
  const feeDiff = input.proposedSteps ? feeDifference(feesWaived, feeLines(input.proposedSteps)) : null;
  const unknownEffects = [...new Set(input.writtenSteps.filter((s) => !getTool(s.tool)).map((s) => s.tool))];
  const windowDays = Math.max(0, Math.floor(input.reopenWindowDays));

  const afterwards: AfterwardsEvent[] = input.events
    .map((e) => ({ type: e.type, at: toDate(e.at), detail: e.detail ?? null }))
    .filter((e) => Number.isFinite(e.at.getTime()) && e.at.getTime() >= executedAt.getTime())
    .sort((a, b) => a.at.getTime() - b.at.getTime())
    .map((e) => {
      const elapsed = e.at.getTime() - executedAt.getTime();
      const daysAfter = Math.floor(elapsed / DAY_MS);
      return { type: e.type, at: e.at.toISOString(), detail: e.detail, daysAfter, countsAgainst: e.type === "reopened" && elapsed <= windowDays * DAY_MS };
    });

  const signals = new Set<OutcomeSignal>();
  const because: string[] = [];
  const reopen = afterwards.find((e) => e.countsAgainst);
  if (reopen) signals.add("reopened");
  const chargeback = afterwards.find((e) => e.type === "chargeback");
  if (chargeback) signals.add("chargeback");
  // Over-compensation: in some currency more than the agent proposed and more than the task's ask.
  const overCurrencies = edited
    ? moneyOut.filter((m) => m.minor > minorIn(proposedMoneyOut ?? [], m.currency) && (!cap || cap.currency !== m.currency || m.minor > cap.minor)).map((m) => m.currency)
    : [];
  if (overCurrencies.length) signals.add("over_compensation");
  if (overCap.length) signals.add("beyond_cap");
  const lastResolved = [...afterwards].reverse().find((e) => e.type === "resolved");
  if (lastResolved && !afterwards.some((e) => e.type === "reopened" && e.at > lastResolved.at)) signals.add("resolved");
  if (afterwards.some((e) => e.type === "customer_replied")) signals.add("customer_replied");
  if (commitments.length) signals.add("commitment_sent");

  if (reopen) because.push(`the ticket was reopened ${laterInWords(reopen.daysAfter)} (within ${windowDays} days)`);
  if (chargeback) because.push(`the customer filed a chargeback ${laterInWords(chargeback.daysAfter)}`);
  if (overCurrencies.length) because.push(`the edit moved more money than the agent proposed${cap ? " and more than the task's cap" : ""}`);
  if (overCap.length) because.push(`${joinMoney(overCap)} beyond the task's cap of ${formatMoney(cap!)}`);
  let label: OutcomeLabel | null = null;
  if (AGAINST_SIGNALS.some((s) => signals.has(s))) label = "worse";
  else if (edited && signals.has("resolved")) {
    const less = (difference ?? []).some((d) => d.minor < 0);
    label = less ? "better" : (difference ?? []).length === 0 ? "same" : null;
    because.push(less ? "resolved with less money out than the agent proposed" : label === "same" ? "resolved with the same money out as the agent proposed" : "resolved, with more money out than the agent proposed (within the task's ask)");
  }

  return {
    executedAt: executedAt.toISOString(),
    edited,
    moneyOut,
    moneyLines: lines,
    proposedMoneyOut,
    moneyDifference: difference,
    moneyDifferenceMinor,
    compensationCap: cap,
    beyondCap: overCap,
    deliveries,
    deliveryDifference: deliveryDiff,
    feesWaived,
    feeDifference: feeDiff,
    commitments,
    unknownEffects,
    reopenWindowDays: windowDays,
    afterwards,
    signals: OUTCOME_SIGNALS.filter((s) => signals.has(s)),
    suggestion: { label, because },
    summary: summarise(edited, moneyOut, difference, afterwards, deliveryDiff ?? [], feeDiff ?? []),
  };
}

/** The record's sentence: money first (against the agent's plan when edited), then what happened afterwards. */
function summarise(
  edited: boolean,
  moneyOut: readonly Money[],
  difference: readonly Money[] | null,
  afterwards: readonly AfterwardsEvent[],
  deliveries: readonly DeliveryDifference[],
  fees: readonly FeeDifference[],
): string {
  const parts: string[] = [];
  if (edited) {
    const more = (difference ?? []).filter((d) => d.minor > 0);
    const less = (difference ?? []).filter((d) => d.minor < 0);
    if (more.length) parts.push(`the edit moved ${joinMoney(more)} more than the agent proposed`);
    if (less.length) parts.push(`the edit moved ${joinMoney(less)} less than the agent proposed`);
    if (!more.length && !less.length) parts.push(moneyOut.length ? `the edit moved the same money as the agent proposed (${joinMoney(moneyOut)})` : "neither the edit nor the agent's plan moved money");
    // after the money clause the edit is "it": "…; it moved the delivery of sh_5521 4 days later than the agent proposed"
    for (const f of fees) parts.push(feeWords(f).replace(/^the edit /, "it "));
    for (const d of deliveries) parts.push(deliveryWords(d).replace(/^the edit /, "it "));
  } else {
    parts.push(moneyOut.length ? `the run moved ${joinMoney(moneyOut)}` : "the run moved no money");
  }
  const words: Record<TicketEventType, string> = { reopened: "the ticket was reopened", chargeback: "the customer filed a chargeback", resolved: "the ticket was resolved", customer_replied: "the customer replied" };
  const firstOf = new Map<TicketEventType, AfterwardsEvent>();
  for (const e of afterwards) if (!firstOf.has(e.type)) firstOf.set(e.type, e);
  for (const type of ["reopened", "chargeback", "resolved", "customer_replied"] as const) {
    const e = firstOf.get(type);
    if (e) parts.push(`${words[type]} ${laterInWords(e.daysAfter)}`);
  }
  const s = parts.join("; ");
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}


