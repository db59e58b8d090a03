import { formatMoney } from "../money/format-money";
import { formatIsoDate } from "../text/format";
import type { EffectChange } from "./schema";

/*
 * The effects preview's words for people, apart from the preview itself (lib/effects/preview.ts)
 * so a page that shows stored effects loads no tool catalog (docs/design.md "Page weight").
 */

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
 * "sh_5521 window Thu 3 Dec 2026 → Mon 7 Dec 2026", "sh_5521 cancelled", "Customer told on ticket 74991: “…”";
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
    case "shipment_status":
      return c.after === "cancelled" ? `${c.shipmentId}${whose(c.otherAccount)} cancelled` : `${c.shipmentId}${whose(c.otherAccount)} ${c.before.replace(/_/g, " ")} → ${c.after.replace(/_/g, " ")}`;
    case "customer_message":
      return `Reply sent to the customer on ticket ${c.ticketId}`;
    case "ticket_note":
      return `Internal note on ticket ${c.ticketId} (the customer does not see it)`;
    case "ticket_escalation":
      return `Ticket ${c.ticketId} handed to ${c.after}${c.before ? ` (was ${c.before})` : ""}`;
    case "record_balance":
      return `${c.recordKind.replace(/_/g, " ")} ${c.recordId}${c.title ? ` (${c.title})` : ""}${whose(c.otherAccount)} available ${formatMoney(c.before)} → ${formatMoney(c.after)}`;
  }
}
