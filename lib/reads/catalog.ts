import type { AccountSnapshot } from "../desk/snapshot";
import { findRecord, type RecordKind } from "../desk/lookup";
import { formatMoney, type Currency } from "../money/format-money";

/**
 * The read catalog: the reads an agent may report, each with the record it names (its strict
 * zod args schema is in ./args-schemas.ts, so the pages that show reads load no zod), how Plandesk re-reads that record from the account snapshot, and which of its
 * fields matter ("observed"), with how to say each for people. Money fields are minor units.
 * Adding a read = one entry here.
 */
export interface ReadToolDefinition {
  /** Stable snake_case name, e.g. "read_invoice". */
  readonly name: string;
  /** What it reads, for people: "Read invoice". */
  readonly label: string;
  /** The record kind it reads. */
  readonly kind: RecordKind;
  /** The record id its (parsed) arguments name. */
  recordId(args: Record<string, unknown>): string;
  /** The fields that matter, read from the snapshot now; `undefined` when the record is not in it. */
  observe(desk: AccountSnapshot, id: string): Record<string, unknown> | undefined;
}

const money = (minor: unknown, currency: unknown) =>
  typeof minor === "number" && typeof currency === "string" ? formatMoney({ minor, currency: currency as Currency }) : String(minor);

const FIELD_NAMES: Record<string, string> = {
  openMinor: "an open balance of",
  totalMinor: "a total of",
  status: "status",
  currency: "currency",
  windowFrom: "a delivery window from",
  windowTo: "a delivery window to",
  destination: "destination",
  subject: "subject",
  accountId: "account",
};

/** How people read an observed field's name: "openMinor" → "an open balance of". */
export function fieldLabel(field: string): string {
  return FIELD_NAMES[field] ?? field;
}

/** An observed value for people: minor units as money in `currency` ("$2,120.00"), anything else as JSON. */
export function showObserved(field: string, value: unknown, currency: unknown): string {
  return field.endsWith("Minor") ? money(value, currency) : JSON.stringify(value);
}

const readInvoice: ReadToolDefinition = {
  name: "read_invoice",
  label: "Read invoice",
  kind: "invoice",
  recordId: (a) => String(a.invoiceId),
  observe: (desk, rid) => {
    const i = findRecord(desk, "invoice", rid);
    return i && { status: i.status, currency: i.openBalance.currency, openMinor: i.openBalance.minor, totalMinor: i.total.minor, accountId: i.accountId };
  },
};

const readShipment: ReadToolDefinition = {
  name: "read_shipment",
  label: "Read shipment",
  kind: "shipment",
  recordId: (a) => String(a.shipmentId),
  observe: (desk, rid) => {
    const s = findRecord(desk, "shipment", rid);
    return s && { status: s.status, windowFrom: s.window.from, windowTo: s.window.to, destination: s.destination, accountId: s.accountId };
  },
};

const readTicket: ReadToolDefinition = {
  name: "read_ticket",
  label: "Read ticket",
  kind: "ticket",
  recordId: (a) => String(a.ticketId),
  observe: (desk, rid) => {
    const t = findRecord(desk, "ticket", rid);
    return t && { subject: t.subject, accountId: t.accountId };
  },
};

const READS = [readInvoice, readShipment, readTicket] as const;

/** Read tool names, in catalog order. */
export const readToolNames: readonly string[] = READS.map((r) => r.name);

/** The read tool called `name` (exact), or `undefined`. */
export function getReadTool(name: string): ReadToolDefinition | undefined {
  return READS.find((r) => r.name === name);
}
