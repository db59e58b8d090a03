import type { AccountSnapshot } from "../desk/snapshot";
import type { Plan, Step } from "../plan/schema";

/**
 * Test fixtures for the docs/design.md reference case (ticket #74991). Plain data; tests only.
 * Ticket 74991 belongs to acc_nordkapp "Nordkapp Logistics"; invoice in_74119 belongs to
 * acc_halvorsen "Halvorsen Freight" with open balance 2,120.00 USD; shipment sh_5521 belongs
 * to acc_nordkapp. Money in integer minor units.
 */
export function referenceDesk(): AccountSnapshot {
  const ticket = { id: "74991", accountId: "acc_nordkapp", subject: "Delivery missed, customer wants new date" };
  return {
    ticket,
    accounts: {
      acc_nordkapp: { id: "acc_nordkapp", name: "Nordkapp Logistics" },
      acc_halvorsen: { id: "acc_halvorsen", name: "Halvorsen Freight" },
    },
    tickets: {
      "74991": ticket,
      "74990": { id: "74990", accountId: "acc_halvorsen", subject: "Invoice query" },
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
        total: { minor: 50000, currency: "USD" },
        openBalance: { minor: 0, currency: "USD" },
        fees: [],
      },
    },
    shipments: {
      sh_5521: {
        id: "sh_5521",
        accountId: "acc_nordkapp",
        destination: "NO-OSL",
        window: { from: "2026-04-02", to: "2026-04-03" },
        status: "scheduled",
      },
    },
    holidays: { "NO-OSL": ["2026-04-05"] },
  };
}

/** The agent's three-step plan for ticket #74991 (version 1). */
export function referenceBefore(): Plan {
  return {
    version: 1,
    steps: [
      {
        id: "st_note",
        tool: "add_ticket_note",
        args: { ticketId: "74991", note: "Delivery missed; rescheduling." },
        provenance: {},
        author: { kind: "model" },
      },
      {
        id: "st_resched",
        tool: "reschedule_delivery",
        args: { shipmentId: "sh_5521", window: { from: "2026-04-02", to: "2026-04-03" }, reason: "missed slot" },
        provenance: { shipmentId: { kind: "source", recordType: "shipment", recordId: "sh_5521" } },
        author: { kind: "model" },
      },
      {
        id: "st_reply",
        tool: "send_reply",
        args: { ticketId: "74991", body: "We have rescheduled your delivery." },
        provenance: {},
        author: { kind: "model" },
      },
    ],
  };
}

/** The refund step the operator adds in the reference case. */
export function referenceRefundStep(): Step {
  return {
    id: "st_refund",
    tool: "issue_refund",
    args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "goodwill" },
    provenance: { amount: { kind: "operator", userId: "u_op", at: "2026-03-30T10:00:00.000Z" } },
    author: { kind: "user", userId: "u_op" },
  };
}

/** The operator's edit: window moved four days later on step 2, refund added as step 4. */
export function referenceAfter(): Plan {
  const before = referenceBefore();
  const [note, resched, reply] = before.steps;
  return {
    version: 2,
    steps: [
      note,
      {
        ...resched,
        args: { ...resched.args, window: { from: "2026-04-06", to: "2026-04-07" } },
        provenance: {
          ...resched.provenance,
          "window.from": { kind: "operator", userId: "u_op", at: "2026-03-30T10:00:00.000Z", previous: "2026-04-02" },
        },
      },
      reply,
      referenceRefundStep(),
    ],
  };
}
