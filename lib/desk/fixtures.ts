import type { Grant } from "../grants";
import type { Plan } from "../plan/schema";
import { daysFromNow } from "../dates";
import type { DeskSnapshot } from "./snapshot";

/*
 * The reference case of DESIGN.md "The demo domain", as plain data for tests, demos and seeds.
 * Everything is relative to `now` so the case stays valid on any clock: holidays are synthetic
 * and placed on days the reference plan (and its reference edit) never use.
 */

/** The fixed clock tests use. */
export const REFERENCE_NOW = new Date("2026-04-01T09:00:00Z");

/** The task's ticket: #74991 of Nordkapp Logistics. */
export const REFERENCE_TICKET_ID = "74991";

/** Days after today (UTC) of the reference reschedule, and of the operator's edit (+4 days). */
export const REFERENCE_RESCHEDULE_OFFSET = 3;
export const REFERENCE_EDIT_SHIFT_DAYS = 4;

/**
 * The reference desk for `now` (UTC):
 * - accounts `acc_nordkapp` (Nordkapp Logistics, the ticket's), `acc_halvorsen` (Halvorsen
 *   Freight), `acc_rheinhafen` (Rheinhafen Spedition);
 * - tickets "74991" (Nordkapp; the task), "74992" (Halvorsen), "74993" (Rheinhafen);
 * - invoices: `in_74119` Halvorsen, open, balance 2,120.00 USD, no fees; `in_74120` Nordkapp,
 *   paid; `in_74121` Nordkapp, open 645.00 USD with LATE_FEE 45.00; `in_74122` Nordkapp, void;
 *   `in_74123` Nordkapp, open 500.00 EUR with HANDLING_FEE 25.00 EUR;
 * - shipments: `sh_5521` Nordkapp → NO-OSL, scheduled, window today+2; `sh_5522` Halvorsen →
 *   DE-HAM, in transit; `sh_5523` Nordkapp → NL-RTM, delivered;
 * - holidays: NO-OSL today+5 and today+10; DE-HAM today+3 and today+4; NL-RTM today+6.
 */
export function referenceDesk(now: Date = REFERENCE_NOW): DeskSnapshot {
  const d = (n: number) => daysFromNow(now, n);
  const ticket = { id: REFERENCE_TICKET_ID, accountId: "acc_nordkapp", subject: "Delivery of sh_5521 missed — please reschedule" };
  return {
    ticket,
    accounts: {
      acc_nordkapp: { id: "acc_nordkapp", name: "Nordkapp Logistics" },
      acc_halvorsen: { id: "acc_halvorsen", name: "Halvorsen Freight" },
      acc_rheinhafen: { id: "acc_rheinhafen", name: "Rheinhafen Spedition" },
    },
    tickets: {
      [ticket.id]: ticket,
      "74992": { id: "74992", accountId: "acc_halvorsen", subject: "Question about invoice in_74119" },
      "74993": { id: "74993", accountId: "acc_rheinhafen", subject: "Customs papers for sh_5522" },
    },
    invoices: {
      in_74119: {
        id: "in_74119",
        accountId: "acc_halvorsen",
        status: "open",
        total: { minor: 212000, currency: "USD" },
        openBalance: { minor: 212000, currency: "USD" },
        fees: [],
      },
      in_74120: {
        id: "in_74120",
        accountId: "acc_nordkapp",
        status: "paid",
        total: { minor: 98000, currency: "USD" },
        openBalance: { minor: 0, currency: "USD" },
        fees: [],
      },
      in_74121: {
        id: "in_74121",
        accountId: "acc_nordkapp",
        status: "open",
        total: { minor: 64500, currency: "USD" },
        openBalance: { minor: 64500, currency: "USD" },
        fees: [{ code: "LATE_FEE", amount: { minor: 4500, currency: "USD" } }],
      },
      in_74122: {
        id: "in_74122",
        accountId: "acc_nordkapp",
        status: "void",
        total: { minor: 30000, currency: "USD" },
        openBalance: { minor: 0, currency: "USD" },
        fees: [],
      },
      in_74123: {
        id: "in_74123",
        accountId: "acc_nordkapp",
        status: "open",
        total: { minor: 50000, currency: "EUR" },
        openBalance: { minor: 50000, currency: "EUR" },
        fees: [{ code: "HANDLING_FEE", amount: { minor: 2500, currency: "EUR" } }],
      },
    },
    shipments: {
      sh_5521: { id: "sh_5521", accountId: "acc_nordkapp", destination: "NO-OSL", window: { from: d(2), to: d(2) }, status: "scheduled" },
      sh_5522: { id: "sh_5522", accountId: "acc_halvorsen", destination: "DE-HAM", window: { from: d(4), to: d(6) }, status: "in_transit" },
      sh_5523: { id: "sh_5523", accountId: "acc_nordkapp", destination: "NL-RTM", window: { from: d(-3), to: d(-3) }, status: "delivered" },
    },
    holidays: {
      "NO-OSL": [d(5), d(10)],
      "DE-HAM": [d(3), d(4)],
      "NL-RTM": [d(6)],
    },
  };
}

/**
 * The agent's three-step plan for ticket #74991 (version 1, authored by the model):
 * `s1` add_ticket_note, `s2` reschedule_delivery of sh_5521 to today+3 (one day, not a
 * NO-OSL holiday), `s3` send_reply. The reply names no date, so the plan stays free of
 * content warnings when an operator moves the date. Valid against `referenceDesk(now)` with
 * no issues at all.
 */
export function referencePlan(now: Date = REFERENCE_NOW): Plan {
  const day = daysFromNow(now, REFERENCE_RESCHEDULE_OFFSET);
  return {
    version: 1,
    steps: [
      {
        id: "s1",
        tool: "add_ticket_note",
        args: {
          ticketId: REFERENCE_TICKET_ID,
          note: `Delivery of sh_5521 was missed (nobody on site). Rescheduling to ${day} and informing the customer.`,
        },
        provenance: {
          ticketId: { kind: "source", recordType: "ticket", recordId: REFERENCE_TICKET_ID },
          note: { kind: "model" },
        },
        author: { kind: "model" },
        title: "Record the missed delivery",
        rationale: "The desk's record of the ticket should say what happened and what we are doing about it.",
      },
      {
        id: "s2",
        tool: "reschedule_delivery",
        args: { shipmentId: "sh_5521", window: { from: day, to: day }, reason: "Consignee was not on site for the first attempt" },
        provenance: {
          shipmentId: { kind: "source", recordType: "shipment", recordId: "sh_5521" },
          "window.from": { kind: "model" },
          "window.to": { kind: "model" },
          reason: { kind: "user_literal", quote: "nobody was at the dock" },
        },
        author: { kind: "model" },
        title: "Rebook the delivery",
        rationale: "The first delivery attempt failed and the customer needs the consignment within days.",
        evidence: [{ recordType: "shipment", recordId: "sh_5521" }],
        risk: "The carrier may not have a slot that day.",
        stopCondition: "Do not move the window if the shipment was delivered meanwhile.",
      },
      {
        id: "s3",
        tool: "send_reply",
        args: {
          ticketId: REFERENCE_TICKET_ID,
          body:
            "Hello,\n\nWe are sorry the delivery of shipment sh_5521 was missed. We have booked a new delivery " +
            "with the carrier, who will confirm the day and time slot by email.\n\nKind regards,\nNordkapp support desk",
        },
        provenance: {
          ticketId: { kind: "source", recordType: "ticket", recordId: REFERENCE_TICKET_ID },
          body: { kind: "model" },
        },
        author: { kind: "model" },
        title: "Tell the customer",
        rationale: "The customer asked for a written confirmation of the new delivery.",
        evidence: [{ recordType: "ticket", recordId: REFERENCE_TICKET_ID }],
      },
    ],
  };
}

/**
 * The operator's edit of the reference case (DESIGN.md "The demo domain"): version 2 with
 * `s2`'s window moved REFERENCE_EDIT_SHIFT_DAYS (4) days later and an added `s4` issue_refund of
 * 1,489.00 USD against in_74119 — an open invoice of Halvorsen Freight, not the ticket's account.
 * `userId` is the editor recorded in provenance.
 */
export function referenceEditedPlan(now: Date = REFERENCE_NOW, userId = "user_operator"): Plan {
  const base = referencePlan(now);
  const at = now.toISOString();
  const oldDay = daysFromNow(now, REFERENCE_RESCHEDULE_OFFSET);
  const newDay = daysFromNow(now, REFERENCE_RESCHEDULE_OFFSET + REFERENCE_EDIT_SHIFT_DAYS);
  const steps = base.steps.map((s) =>
    s.id !== "s2"
      ? s
      : {
          ...s,
          args: { ...s.args, window: { from: newDay, to: newDay } },
          provenance: {
            ...s.provenance,
            "window.from": { kind: "operator" as const, userId, at, previous: oldDay },
            "window.to": { kind: "operator" as const, userId, at, previous: oldDay },
          },
        },
  );
  steps.push({
    id: "s4",
    tool: "issue_refund",
    args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "Goodwill for the missed delivery" },
    provenance: {
      invoiceId: { kind: "operator", userId, at },
      amount: { kind: "operator", userId, at },
      reason: { kind: "operator", userId, at },
    },
    author: { kind: "user", userId },
  });
  return { version: 2, steps };
}

/** Tools the demo agent may call: all of them. */
export const DEMO_AGENT_TOOLS = [
  "add_ticket_note",
  "reschedule_delivery",
  "send_reply",
  "issue_refund",
  "apply_credit",
  "waive_fee",
  "escalate_ticket",
];

const usd = (minor: number) => ({ minor, currency: "USD" as const });
const open = (tool: string): Grant => ({ tool, canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null });

/**
 * Demo grants (API.md "Demo desk"): `operator` approves refunds up to 500.00 and may not author
 * them; `senior` approves and authors refunds up to 2,000.00. Both may approve and author every
 * non-money tool; credits and fee waivers follow the same ceilings as refunds.
 */
export const DEMO_GRANTS: Record<"operator" | "senior", Grant[]> = {
  operator: [
    open("add_ticket_note"),
    open("reschedule_delivery"),
    open("send_reply"),
    open("escalate_ticket"),
    { tool: "issue_refund", canApprove: true, approveLimit: usd(50000), canAuthor: false, authorLimit: null },
    { tool: "apply_credit", canApprove: true, approveLimit: usd(50000), canAuthor: false, authorLimit: null },
    { tool: "waive_fee", canApprove: true, approveLimit: usd(50000), canAuthor: true, authorLimit: usd(10000) },
  ],
  senior: [
    open("add_ticket_note"),
    open("reschedule_delivery"),
    open("send_reply"),
    open("escalate_ticket"),
    { tool: "issue_refund", canApprove: true, approveLimit: usd(200000), canAuthor: true, authorLimit: usd(200000) },
    { tool: "apply_credit", canApprove: true, approveLimit: usd(200000), canAuthor: true, authorLimit: usd(200000) },
    { tool: "waive_fee", canApprove: true, approveLimit: usd(200000), canAuthor: true, authorLimit: usd(200000) },
  ],
};
