import { z } from "zod";
import { currencySchema } from "../money/money";

/** Money as the records hold it: integer minor units and a currency. */
const money = z.object({ minor: z.number().int(), currency: currencySchema });
/** The statuses of a shipment, in the order the lifecycle runs. */
export const SHIPMENT_STATUSES = ["scheduled", "in_transit", "held", "delivered", "cancelled"] as const;

/**
 * Read-only account data the validator, diff and UI consult, loaded from the database
 * once per request by `lib/server/account-data/load-account-snapshot.ts` — only the records a
 * plan and its ticket reference, never a whole table. Plain data, no I/O: domain functions
 * stay pure and testable. All times are UTC; dates are ISO `YYYY-MM-DD`.
 * Source: docs/design.md "The demo domain".
 */
export const accountSnapshotSchema = z.object({
  /**
   * The tenant desk the snapshot was loaded for (the run's desk): every record in it belongs to an
   * account of this desk, and an id that did not resolve is "not found on this desk". Absent in
   * hand-built snapshots of one desk (tests, the scale generator).
   */
  desk: z.string().optional(),
  /** The ticket the run's task belongs to. */
  ticket: z.lazy(() => ticketRecordSchema),
  accounts: z.record(z.string(), z.lazy(() => accountRecordSchema)),
  tickets: z.record(z.string(), z.lazy(() => ticketRecordSchema)),
  invoices: z.record(z.string(), z.lazy(() => invoiceRecordSchema)),
  shipments: z.record(z.string(), z.lazy(() => shipmentRecordSchema)),
  /** Destination code → ISO dates that are holidays there. */
  holidays: z.record(z.string(), z.array(z.string())),
  /**
   * Real ids that are close to ids the plan names but that do not exist (from a bounded, indexed
   * lookup), per record kind: the "did you mean" hint chooses among these and the maps above.
   */
  candidates: z.partialRecord(z.enum(["invoice", "shipment", "ticket", "account"]), z.array(z.string())).optional(),
  /**
   * Money in flight: per invoice id, the approved or claimed but not yet reported
   * amounts of every run's approvals that draw on it — what is not available any more.
   */
  inFlight: z.record(z.string(), z.array(z.lazy(() => moneyHoldSchema))).optional(),
  /**
   * Records of kinds the desk declared (lib/records/record-kind-declaration.ts) that the plan's
   * bound arguments name (lib/tools/tool-bindings.ts): kind → id → the record's role values, read
   * by (desk, kind, id). A record of another desk, or a tombstone, is absent.
   */
  declared: z.record(z.string(), z.record(z.string(), z.lazy(() => declaredRecordSchema))).optional(),
});
export type AccountSnapshot = z.output<typeof accountSnapshotSchema>;

/**
 * Money an approval holds on a record: until its step is reported (or the approval lapses), and
 * after a succeeded write until the local copy syncs a version that shows it. Times ISO UTC.
 */
export const moneyHoldSchema = z.object({
  runId: z.string(),
  stepId: z.string(),
  approvalId: z.string(),
  amount: money,
  /**
   * `active` (approved), `claimed` (the executor is writing it) or `written` (written at the system
   * of record, not yet in the synced balance: the hold ends when a synced version reflects it).
   */
  state: z.enum(["active", "claimed", "written"]),
  approvedAt: z.string(),
});
export type MoneyHold = z.output<typeof moneyHoldSchema>;

/**
 * Where a record of the local copy came from (the records door, lib/server/records): the system of
 * record's version (a safe integer; only a newer one replaces it), when the source changed it and
 * when Plandesk applied it (ISO UTC). `null`s: a record written before the door existed. What the
 * run page's "balance as of 14:02, synced 2 min ago", the freshness bound (`stale_account_data`)
 * and the approval's record versions (`target_changed`) read.
 */
export const recordSyncSchema = z.object({
  sourceVersion: z.number().int().nullable(),
  sourceUpdatedAt: z.string().nullable(),
  syncedAt: z.string().nullable(),
});
export type RecordSync = z.output<typeof recordSyncSchema>;

/**
 * A record of a declared kind as decisions read it: its kind and id, the owner account (null: no
 * owner role, or an owner chain that does not reach an account of this desk), the title, the
 * available amount (balance role; minor units) with the money approvals hold on it (`holds`, as
 * the snapshot's `inFlight` for invoices), the status and whether it is closed, the window (ISO
 * dates, inclusive) and the local copy's sync. Null where the declaration has no such role.
 */
export const declaredRecordSchema = z.object({
  kind: z.string(),
  id: z.string(),
  accountId: z.string().nullable(),
  title: z.string().nullable(),
  available: money.nullable(),
  holds: z.array(z.lazy(() => moneyHoldSchema)),
  status: z.string().nullable(),
  closed: z.boolean().nullable(),
  window: z.object({ from: z.string(), to: z.string() }).nullable(),
  sync: recordSyncSchema.optional(),
});
export type DeclaredRecord = z.output<typeof declaredRecordSchema>;

/** A customer account, e.g. `{id: "acc_halvorsen", name: "Halvorsen Freight"}`. */
export const accountRecordSchema = z.object({ id: z.string(), name: z.string(), sync: recordSyncSchema.optional() });
export type AccountRecord = z.output<typeof accountRecordSchema>;

/** A support ticket; `id` is the ticket number as a string, e.g. "74991". */
export const ticketRecordSchema = z.object({ id: z.string(), accountId: z.string(), subject: z.string() });
export type TicketRecord = z.output<typeof ticketRecordSchema>;

/** A fee line on an invoice, e.g. `{code: "LATE_FEE", amount}`. */
export const feeRecordSchema = z.object({ code: z.string(), amount: money });
export type FeeRecord = z.output<typeof feeRecordSchema>;

/** An invoice, e.g. `in_74119`; `openBalance` in minor units, status `open | paid | void`. */
export const invoiceRecordSchema = z.object({
  id: z.string(),
  accountId: z.string(),
  status: z.enum(["open", "paid", "void"]),
  total: money,
  openBalance: money,
  fees: z.array(feeRecordSchema),
  /** The local copy's source version and age (absent in hand-built snapshots). */
  sync: recordSyncSchema.optional(),
});
export type InvoiceRecord = z.output<typeof invoiceRecordSchema>;

/**
 * A shipment with its delivery window (ISO dates, inclusive) and destination code. Status:
 * `scheduled` (booked, not yet dispatched), `in_transit` and `held` (dispatched: on its way, or
 * held on the way, e.g. by customs), `delivered`, `cancelled` (taken off before dispatch).
 */
export const shipmentRecordSchema = z.object({
  id: z.string(),
  accountId: z.string(),
  destination: z.string(),
  window: z.object({ from: z.string(), to: z.string() }),
  status: z.enum(SHIPMENT_STATUSES),
  /** The local copy's source version and age (absent in hand-built snapshots). */
  sync: recordSyncSchema.optional(),
});
export type ShipmentRecord = z.output<typeof shipmentRecordSchema>;

/** The statuses of a shipment (see {@link ShipmentRecord}). */
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];
