import type { DeskSnapshot, InvoiceRecord, ShipmentRecord } from "../desk/snapshot";
import type { Currency } from "../money";
import type { Prisma } from "../generated/prisma/client";
import { prisma } from "./db";

/**
 * Loads the account data the validator and diff consult for a run on `ticketId`.
 * The demo desk is small, so the whole desk is loaded (needed anyway to name the nearest
 * real id for look-alike ids). `db` may be a transaction client (claims read inside theirs).
 * Errors: throws when the ticket does not exist.
 */
export async function loadDeskSnapshot(ticketId: string, db: Prisma.TransactionClient | typeof prisma = prisma): Promise<DeskSnapshot> {
  // Sequential: inside a transaction the client is one connection anyway.
  const ticket = await db.ticket.findUniqueOrThrow({ where: { id: ticketId } });
  const accounts = await db.customerAccount.findMany();
  const tickets = await db.ticket.findMany({ select: { id: true, accountId: true, subject: true } });
  const invoices = await db.invoice.findMany();
  const shipments = await db.shipment.findMany();
  const holidays = await db.holiday.findMany();
  const desk: DeskSnapshot = {
    ticket: { id: ticket.id, accountId: ticket.accountId, subject: ticket.subject },
    accounts: Object.fromEntries(accounts.map((a) => [a.id, { id: a.id, name: a.name }])),
    tickets: Object.fromEntries(tickets.map((t) => [t.id, t])),
    invoices: Object.fromEntries(invoices.map((i) => [i.id, toInvoice(i)])),
    shipments: Object.fromEntries(shipments.map((s) => [s.id, toShipment(s)])),
    holidays: {},
  };
  for (const h of holidays) (desk.holidays[h.destination] ??= []).push(h.date);
  return desk;
}

function toInvoice(i: {
  id: string;
  accountId: string;
  status: string;
  currency: string;
  totalMinor: number;
  openMinor: number;
  fees: unknown;
}): InvoiceRecord {
  const currency = i.currency as Currency;
  return {
    id: i.id,
    accountId: i.accountId,
    status: i.status as InvoiceRecord["status"],
    total: { minor: i.totalMinor, currency },
    openBalance: { minor: i.openMinor, currency },
    fees: Array.isArray(i.fees) ? (i.fees as InvoiceRecord["fees"]) : [],
  };
}

function toShipment(s: {
  id: string;
  accountId: string;
  destination: string;
  windowFrom: string;
  windowTo: string;
  status: string;
}): ShipmentRecord {
  return {
    id: s.id,
    accountId: s.accountId,
    destination: s.destination,
    window: { from: s.windowFrom, to: s.windowTo },
    status: s.status as ShipmentRecord["status"],
  };
}
