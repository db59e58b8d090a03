import type { AccountRecord, AccountSnapshot, DeclaredRecord, InvoiceRecord, ShipmentRecord, TicketRecord } from "./snapshot";
import { nearest } from "../text/confusables";

/** The kinds of record a tool argument can reference by id. Source: docs/design.md "The demo domain". */
export type RecordKind = "invoice" | "shipment" | "ticket" | "account";

/** Record type per kind. */
export interface RecordOfKind {
  invoice: InvoiceRecord;
  shipment: ShipmentRecord;
  ticket: TicketRecord;
  account: AccountRecord;
}

/**
 * Own-property lookup in an id → record map. Plain `map[id]` would "find" `constructor` or
 * `__proto__` on any object; this never does. Exact match only: no trimming, no case folding.
 */
export function own<T>(map: Record<string, T>, id: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(map, id) ? map[id] : undefined;
}

/** All tickets the desk knows, including `desk.ticket` even if `desk.tickets` omits it. */
function ticketMap(desk: AccountSnapshot): Record<string, TicketRecord> {
  return own(desk.tickets, desk.ticket.id) ? desk.tickets : { ...desk.tickets, [desk.ticket.id]: desk.ticket };
}

/** The id → record map of one kind. */
export function recordsOf<K extends RecordKind>(desk: AccountSnapshot, kind: K): Record<string, RecordOfKind[K]> {
  const maps = {
    invoice: desk.invoices,
    shipment: desk.shipments,
    ticket: ticketMap(desk),
    account: desk.accounts,
  } as { [P in RecordKind]: Record<string, RecordOfKind[P]> };
  return maps[kind];
}

/** Exact lookup of a record by kind and id; `undefined` when absent. */
export function findRecord<K extends RecordKind>(desk: AccountSnapshot, kind: K, id: string): RecordOfKind[K] | undefined {
  return own(recordsOf(desk, kind), id);
}

/** Whether `kind` is one of the built-in kinds (the others are kinds a desk declared). */
export function isBuiltinKind(kind: string): kind is RecordKind {
  return kind === "invoice" || kind === "shipment" || kind === "ticket" || kind === "account";
}

/** A record of declared kind `kind` in the snapshot (loaded by desk, kind and id); `undefined` when absent. */
export function findDeclared(desk: Pick<AccountSnapshot, "declared">, kind: string, id: string): DeclaredRecord | undefined {
  const byId = desk.declared ? own(desk.declared, kind) : undefined;
  return byId ? own(byId, id) : undefined;
}

/**
 * The account id a record belongs to (an account belongs to itself; a declared kind's record, its
 * owner account); `undefined` when absent or when the record belongs to no account of this desk.
 */
export function accountIdOf(desk: AccountSnapshot, kind: RecordKind | (string & {}), id: string): string | undefined {
  if (!isBuiltinKind(kind)) return findDeclared(desk, kind, id)?.accountId ?? undefined;
  if (kind === "account") return findRecord(desk, "account", id)?.id;
  return findRecord(desk, kind, id)?.accountId;
}

/** Display name of an account, falling back to its id when the desk does not know it. */
export function accountName(desk: AccountSnapshot, accountId: string): string {
  return own(desk.accounts, accountId)?.name ?? accountId;
}

/** Why an id did not resolve, with a hint when something close exists. */
export interface UnresolvedId {
  kind: RecordKind;
  id: string;
  /** The nearest real id of the same kind, if any is close. */
  suggestion?: string;
  /** True when the input is visually confusable with `suggestion` (lookalike characters, spacing, case). */
  lookalike: boolean;
  /** When the id exists exactly as another kind of record (e.g. a shipment id given as an invoice). */
  existsAs?: RecordKind;
}

/**
 * Explains an id that does not exist as `kind`: the nearest real id of that kind (by confusable
 * skeleton + edit distance, see lib/text/confusables.ts) and whether it exists as another kind.
 * Precondition: `findRecord(desk, kind, id)` is undefined.
 */
export function explainUnresolved(desk: AccountSnapshot, kind: RecordKind, id: string): UnresolvedId {
  const match = nearest(id, [...Object.keys(recordsOf(desk, kind)), ...(desk.candidates?.[kind] ?? [])]);
  const kinds: RecordKind[] = ["invoice", "shipment", "ticket", "account"];
  const existsAs = kinds.find((k) => k !== kind && findRecord(desk, k, id) !== undefined);
  return {
    kind,
    id,
    ...(match ? { suggestion: match.id } : {}),
    lookalike: match?.lookalike ?? false,
    ...(existsAs ? { existsAs } : {}),
  };
}

/**
 * How a message says that an id did not resolve: "is not found on this desk" for a snapshot
 * loaded for a tenant desk (`desk.desk` set) — a record of another desk is absent from it, and
 * the words never tell whether it exists elsewhere — else "does not exist".
 */
export function notFoundPhrase(desk: Pick<AccountSnapshot, "desk">): string {
  return desk.desk !== undefined ? "is not found on this desk" : "does not exist";
}

/** Capitalised noun per record kind, for the start of messages ("Invoice \"in_1\" does not exist"). */
export const KIND_LABEL: Record<RecordKind, string> = {
  invoice: "Invoice",
  shipment: "Shipment",
  ticket: "Ticket",
  account: "Account",
};

/** Human reference to a record, e.g. "ticket #74991", "invoice in_74119", "order o_118" (a declared kind). */
export function describeRecord(kind: RecordKind | (string & {}), id: string): string {
  return kind === "ticket" ? `ticket #${id}` : `${kind} ${id}`;
}
