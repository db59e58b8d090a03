import { addDays, formatISO } from "date-fns";
import type { DemoDesk } from "./demo-desk";
import type { TaskContractInput } from "../task-contract/schema";

/**
 * The demo's second tenant desk, "retail": its own customer accounts, tickets, invoices,
 * shipments and runs, built relative to `now` (UTC) so it never goes stale. Pure data (no I/O);
 * `lib/server/demo/seed.ts` writes it idempotently with the retail operator and the retail agent.
 * Nothing here names a record of the freight desk: a desk is a boundary. Money in USD minor
 * units; dates ISO `YYYY-MM-DD` (UTC). Ticket numbers 81001…, invoices `in_81…`, shipments `sh_81…`.
 */
export const RETAIL_DESK = { id: "retail", name: "Retail" } as const;

/** The retail desk's data for `now` (UTC); every account carries `desk: "retail"`. Deterministic for a given `now`. */
export function buildRetailDesk(now: Date): Omit<DemoDesk, "holidays"> & { accounts: (DemoDesk["accounts"][number] & { desk: string })[] } {
  const day = (n: number) => formatISO(addDays(now, n), { representation: "date" });
  const usd = (minor: number) => ({ minor, currency: "USD" as const });
  const m = { kind: "model" } as const;
  const accounts = [
    { id: "acc_brightside", name: "Brightside Home Goods", desk: RETAIL_DESK.id },
    { id: "acc_maple", name: "Maple & Finch Boutique", desk: RETAIL_DESK.id },
    { id: "acc_corner", name: "Corner Cycle Shop", desk: RETAIL_DESK.id },
  ];
  const invoices: DemoDesk["invoices"] = [
    { id: "in_81001", accountId: "acc_brightside", status: "open", totalMinor: 48000, openMinor: 48000, fees: [{ code: "RESTOCKING", amount: usd(4800) }], dueDate: day(10) },
    { id: "in_81002", accountId: "acc_maple", status: "open", totalMinor: 26500, openMinor: 26500, fees: [], dueDate: day(12) },
    { id: "in_81003", accountId: "acc_corner", status: "paid", totalMinor: 91000, openMinor: 0, fees: [], dueDate: day(-9) },
  ];
  const shipments: DemoDesk["shipments"] = [
    { id: "sh_8101", accountId: "acc_brightside", destination: "DE-HAM", windowFrom: day(2), windowTo: day(3), status: "in_transit", address: "Mönckebergstraße 7, 20095 Hamburg" },
    { id: "sh_8102", accountId: "acc_maple", destination: "NL-RTM", windowFrom: day(6), windowTo: day(6), status: "scheduled", address: "Lijnbaan 40, 3012 Rotterdam" },
  ];
  const tickets: DemoDesk["tickets"] = [
    { id: "81001", accountId: "acc_brightside", subject: "Parcel arrived with a broken lamp", body: "One lamp of order in_81001 arrived broken. Customer asks for a refund of the lamp ($120.00).", ageHours: 2 },
    { id: "81002", accountId: "acc_maple", subject: "Where is my order?", body: "Shipment sh_8102 has not moved for two days. Customer wants an update.", ageHours: 1 },
    { id: "81003", accountId: "acc_corner", subject: "Invoice copy", body: "Customer asks for a copy of invoice in_81003.", ageHours: 5 },
  ];
  const runs: DemoDesk["runs"] = [
    {
      key: "retail-81001",
      ticketId: "81001",
      scenario: "damaged goods",
      ageHours: 1,
      steps: [
        { id: "st_note", tool: "add_ticket_note", args: { ticketId: "81001", note: "One broken lamp on in_81001; photo on file." }, provenance: { note: m } },
        { id: "st_refund", tool: "issue_refund", args: { invoiceId: "in_81001", amount: usd(12000), reason: "Broken lamp" }, provenance: { invoiceId: { kind: "user_literal" }, amount: m, reason: m }, title: "Refund the broken lamp", evidence: [{ recordType: "invoice", recordId: "in_81001" }, { recordType: "ticket", recordId: "81001" }], risk: "Money leaves the company; the lamp may be only part of the order", stopCondition: "The invoice was refunded or credited meanwhile" },
        { id: "st_reply", tool: "send_reply", args: { ticketId: "81001", body: "We are sorry the lamp arrived broken. We have refunded $120.00 to your card." }, provenance: { body: m } },
      ],
    },
    {
      key: "retail-81002",
      ticketId: "81002",
      scenario: "where is my order",
      ageHours: 1,
      steps: [
        { id: "st_note", tool: "add_ticket_note", args: { ticketId: "81002", note: "Asked the carrier about sh_8102." }, provenance: { note: m } },
        { id: "st_reply", tool: "send_reply", args: { ticketId: "81002", body: "Your order is with the carrier and we are checking where it is; we will write again today." }, provenance: { body: m } },
      ],
    },
  ];
  return { accounts, tickets, invoices, shipments, runs };
}

/** The retail desk's intent catalog: these intents of the demo catalog (lib/task-contract/demo-catalog.ts), in this order. */
export const RETAIL_INTENT_NAMES = ["question", "refund_request", "delivery_exception", "general_exception"] as const;

/**
 * The contract of each retail demo task (by ticket number): the broken lamp is a refund request
 * capped at the lamp's $120.00 on the customer's own account; the order that has not moved is a
 * delivery exception; the invoice copy a general exception (other suites edit its plans freely).
 */
export function retailContracts(): Record<string, TaskContractInput> {
  return {
    "81001": { intent: "refund_request", constraints: { compensationCap: { minor: 12000, currency: "USD" }, accountsInScope: ["acc_brightside"] } },
    "81002": { intent: "delivery_exception", constraints: { noRefund: true } },
    "81003": { intent: "general_exception", constraints: {} },
  };
}
