import type { Money } from "../money/money";

/**
 * Read-only account data the validator, diff and UI consult, loaded from the database
 * once per request by `lib/server/account-data/load-account-snapshot.ts` — only the records a
 * plan and its ticket reference, never a whole table. Plain data, no I/O: domain functions
 * stay pure and testable. All times are UTC; dates are ISO `YYYY-MM-DD`.
 * Source: docs/design.md "The demo domain".
 */
export interface AccountSnapshot {
  /**
   * The tenant desk the snapshot was loaded for (the run's desk): every record in it belongs to an
   * account of this desk, and an id that did not resolve is "not found on this desk". Absent in
   * hand-built snapshots of one desk (tests, the scale generator).
   */
  desk?: string;
  /** The ticket the run's task belongs to. */
  ticket: TicketRecord;
  accounts: Record<string, AccountRecord>;
  tickets: Record<string, TicketRecord>;
  invoices: Record<string, InvoiceRecord>;
  shipments: Record<string, ShipmentRecord>;
  /** Destination code → ISO dates that are holidays there. */
  holidays: Record<string, string[]>;
  /**
   * Real ids that are close to ids the plan names but that do not exist (from a bounded, indexed
   * lookup), per record kind: the "did you mean" hint chooses among these and the maps above.
   */
  candidates?: Partial<Record<"invoice" | "shipment" | "ticket" | "account", string[]>>;
  /**
   * Money in flight: per invoice id, the approved or claimed but not yet reported
   * amounts of every run's approvals that draw on it — what is not available any more.
   */
  inFlight?: Record<string, MoneyHold[]>;
}

/** Money an approval holds on a record until its step is reported (or the approval lapses). Times ISO UTC. */
export interface MoneyHold {
  runId: string;
  stepId: string;
  approvalId: string;
  amount: Money;
  /** `active` (approved) or `claimed` (the executor is writing it). */
  state: "active" | "claimed";
  approvedAt: string;
}

/** A customer account, e.g. `{id: "acc_halvorsen", name: "Halvorsen Freight"}`. */
export interface AccountRecord {
  id: string;
  name: string;
}

/** A support ticket; `id` is the ticket number as a string, e.g. "74991". */
export interface TicketRecord {
  id: string;
  accountId: string;
  subject: string;
}

/** A fee line on an invoice, e.g. `{code: "LATE_FEE", amount}`. */
export interface FeeRecord {
  code: string;
  amount: Money;
}

/** An invoice, e.g. `in_74119`; `openBalance` in minor units, status `open | paid | void`. */
export interface InvoiceRecord {
  id: string;
  accountId: string;
  status: "open" | "paid" | "void";
  total: Money;
  openBalance: Money;
  fees: FeeRecord[];
}

/**
 * A shipment with its delivery window (ISO dates, inclusive) and destination code. Status:
 * `scheduled` (booked, not yet dispatched), `in_transit` and `held` (dispatched: on its way, or
 * held on the way, e.g. by customs), `delivered`, `cancelled` (taken off before dispatch).
 */
export interface ShipmentRecord {
  id: string;
  accountId: string;
  destination: string;
  window: { from: string; to: string };
  status: ShipmentStatus;
}

/** The statuses of a shipment (see {@link ShipmentRecord}). */
export type ShipmentStatus = "in_transit" | "delivered" | "held" | "scheduled" | "cancelled";
