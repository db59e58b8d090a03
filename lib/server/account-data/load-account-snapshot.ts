import { subDays } from "date-fns";
import type { AccountRecord, AccountSnapshot, DeclaredRecord, InvoiceRecord, MoneyHold, RecordSync, ShipmentRecord } from "../../desk/snapshot";
import { MAX_OWNER_HOPS } from "../../records/record-kind-declaration";
import { readDeclaration } from "../records/declarations";
import type { RecordKind } from "../../desk/lookup";
import type { Currency } from "../../money/format-money";
import { lookalikeGuesses } from "../../text/confusables";
import { getTool } from "../../tools/builtin-tools";
import type { FieldKind } from "../../tools/types";
import { utcDateOf } from "../../time/dates";
import { prisma } from "../db/db";
import { formulaInputs } from "../../validation/formula";
import { getReadTool } from "../../reads/catalog";
import { readArgsSchema } from "../../reads/args-schemas";
import { MAX_PLAN_READS } from "../../reads/schema";
import type { DbOrTx } from "../db/transaction";

/**
 * Loads the account data one decision reads (docs/design.md "Storage and scale"): the
 * task's ticket and its account, the invoices, shipments, tickets and accounts the plans' steps
 * name (by primary key, also records their provenance names as sources), the accounts those
 * records belong to, the holidays of the named shipments' destinations from yesterday (UTC) on,
 * the money other approvals hold on the loaded invoices (`holdsBefore`: only approvals given
 * before then), and — only for ids that do not resolve — a bounded, indexed set of look-alike
 * candidates for the "did you mean" hint. Never a whole table:
 * the cost grows with the plan, not with the desk.
 *
 * A desk is a boundary: every record, owner account, look-alike candidate and hold is loaded
 * with `scope.desk` (the run's desk) in its `where`, so a record of another desk is simply absent
 * from the snapshot — the validator reports it as "not found on this desk" (an error no
 * acknowledgement passes) and no message, preview, suggestion or count can show its balance,
 * window or owner. Ids are per desk (two desks may each have a record of one id): every read is by
 * (desk, id), the run's own ticket included.
 *
 * `scope.reads` (the plan's read steps, raw input tolerated) adds the records they read (lib/reads),
 * so Plandesk can re-read them; a `computed` provenance formula adds the invoices it names
 * (`in_74119.openMinor`). `scope.steps` may be raw client input (any JSON): only string arguments of fields whose kind is
 * an id (`invoice_id`, `shipment_id`, `ticket_id`, `account_id`, see lib/tools/*.ts) are used.
 * `scope.accountRecords` (the run page, the edit form) also loads up to ACCOUNT_RECORD_LIMIT
 * invoices and shipments of the ticket's own account, and as many records of each declared kind of
 * `scope.accountKinds` that the account owns directly (by the owner-account index of `desk_record`),
 * for the edit form's record picker. `scope.known` is the run's ticket with its
 * account as the caller already read them (the claim's one reading): neither is read again, and
 * the account counts as an owner only when it is on `scope.desk`. `db` may be a transaction client.
 * Errors: throws `Error` (Prisma `P2025`) when the ticket does not exist.
 */
export async function loadAccountSnapshot(
  scope: {
    ticketId: string;
    desk: string;
    steps?: readonly unknown[];
    reads?: readonly unknown[];
    accountRecords?: boolean;
    accountKinds?: readonly string[];
    now?: Date;
    holdsBefore?: Date;
    known?: { ticket: { id: string; accountId: string; subject: string }; account: { id: string; name: string; desk: string } };
    catalog?: DeclaredRefsCatalog;
  },
  db: DbOrTx = prisma,
): Promise<AccountSnapshot> {
  const now = scope.now ?? new Date();
  const known = scope.known?.ticket.id === scope.ticketId && scope.known.account.id === scope.known.ticket.accountId ? scope.known : undefined;
  const ticket = known
    ? { id: known.ticket.id, accountId: known.ticket.accountId, subject: known.ticket.subject }
    : await db.ticket.findUniqueOrThrow({ where: { desk_id: { desk: scope.desk, id: scope.ticketId } }, select: { id: true, accountId: true, subject: true } });
  const refs = referencedIds(scope.steps ?? []);
  for (const [kind, id] of readRecordIds(scope.reads ?? [])) refs[kind].add(id);
  // The run's own ticket is in the snapshot already: a step naming it needs no second read.
  refs.ticket.delete(ticket.id);
  const desk: AccountSnapshot = { ticket, accounts: {}, tickets: { [ticket.id]: ticket }, invoices: {}, shipments: {}, holidays: {}, desk: scope.desk };
  if (known && known.account.desk === scope.desk) desk.accounts[known.account.id] = { id: known.account.id, name: known.account.name };

  await loadRecords(db, desk, refs, scope.desk);
  const declared = scope.catalog ? declaredRefs(scope.steps ?? [], scope.catalog) : new Map<string, Set<string>>();
  if (scope.accountRecords) {
    for (const kind of (scope.accountKinds ?? []).slice(0, ACCOUNT_KIND_LIMIT)) {
      const own = await db.deskRecord.findMany({ where: { desk: scope.desk, ownerAccountId: ticket.accountId, kind, deletedAt: null }, orderBy: { id: "asc" }, take: ACCOUNT_RECORD_LIMIT, select: { id: true } });
      if (own.length === 0) continue;
      if (!declared.has(kind)) declared.set(kind, new Set());
      for (const r of own) declared.get(kind)!.add(r.id);
    }
  }
  const declaredOwners = declared.size > 0 ? await loadDeclaredRecords(db, desk, declared, scope.desk, now, scope.holdsBefore) : [];
  if (scope.accountRecords) {
    const [invoices, shipments] = [
      await db.invoice.findMany({ where: { desk: scope.desk, accountId: ticket.accountId, deletedAt: null }, orderBy: { id: "asc" }, take: ACCOUNT_RECORD_LIMIT }),
      await db.shipment.findMany({ where: { desk: scope.desk, accountId: ticket.accountId, deletedAt: null }, orderBy: { id: "asc" }, take: ACCOUNT_RECORD_LIMIT }),
    ];
    for (const i of invoices) desk.invoices[i.id] = toInvoice(i);
    for (const s of shipments) desk.shipments[s.id] = toShipment(s);
  }

  // Who owns what was loaded: the ticket's account and the owners of every record.
  const owners = new Set<string>([ticket.accountId, ...refs.account, ...declaredOwners]);
  for (const r of [...Object.values(desk.invoices), ...Object.values(desk.shipments), ...Object.values(desk.tickets)]) owners.add(r.accountId);
  const missingOwners = [...owners].filter((id) => !Object.prototype.hasOwnProperty.call(desk.accounts, id));
  if (missingOwners.length > 0) {
    for (const a of await db.customerAccount.findMany({ where: { id: { in: missingOwners }, desk: scope.desk, deletedAt: null }, select: ACCOUNT_SELECT })) desk.accounts[a.id] = toAccount(a);
  }

  const destinations = [...new Set(Object.values(desk.shipments).map((s) => s.destination))];
  if (destinations.length > 0) {
    const holidays = await db.holiday.findMany({
      // The desk's own calendar only (index desk, destination, date); a tombstoned holiday is no holiday.
      where: { desk: scope.desk, destination: { in: destinations }, date: { gte: utcDateOf(subDays(now, 1)) }, deletedAt: null },
      select: { destination: true, date: true },
      orderBy: { date: "asc" },
      take: HOLIDAY_LIMIT,
    });
    for (const h of holidays) (desk.holidays[h.destination] ??= []).push(h.date);
  }

  await loadCandidates(db, desk, refs, scope.desk);
  desk.inFlight = await loadHolds(db, Object.keys(desk.invoices), now, scope.holdsBefore, scope.desk);
  return desk;
}

/** At most this many holds per snapshot (an invoice has a handful of runs drawing on it). */
const HOLD_LIMIT = 1000;

/** What the loader needs of a tool catalog to find the declared records a step names: its tools' form fields (`record`: the declared kind an argument references). */
export interface DeclaredRefsCatalog {
  get(name: string): { fields: readonly { name: string; record?: string }[] } | undefined;
}

/** Most declared records one snapshot reads per kind (a plan names a handful). */
const DECLARED_LIMIT = 200;

/**
 * The declared records `steps` name through their tools' record arguments (`x-plandesk-record`,
 * lib/tools/tool-bindings.ts), per kind (raw input tolerated; ids of at most 128 characters).
 */
export function declaredRefs(steps: readonly unknown[], catalog: DeclaredRefsCatalog): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const raw of steps) {
    if (typeof raw !== "object" || raw === null) continue;
    const { tool: name, args } = raw as { tool?: unknown; args?: unknown };
    const tool = typeof name === "string" ? catalog.get(name) : undefined;
    if (!tool || typeof args !== "object" || args === null) continue;
    for (const f of tool.fields) {
      if (!f.record) continue;
      const value = Object.prototype.hasOwnProperty.call(args, f.name) ? (args as Record<string, unknown>)[f.name] : undefined;
      if (typeof value === "string" && value.length > 0 && value.length <= 128) {
        if (!out.has(f.record)) out.set(f.record, new Set());
        if (out.get(f.record)!.size < DECLARED_LIMIT) out.get(f.record)!.add(value);
      }
    }
  }
  return out;
}

/**
 * Loads the declared records `refs` names into `desk.declared`, each by (desk, kind, id) — the
 * primary key of `desk_record`, never a scan of a kind — tombstones left out, with the money held
 * on them (`loadHolds` by the approval's indexed target columns) and their owner account: the
 * owner role's account, or, for an owner of another declared kind, the account its chain ends at
 * (followed by primary key, at most MAX_OWNER_HOPS kinds; an owner record that is gone leaves the
 * record without an account). Returns the owner accounts found, for the caller to load their names.
 */
export async function loadDeclaredRecords(db: DbOrTx, desk: AccountSnapshot, refs: Map<string, Set<string>>, deskId: string, now: Date, holdsBefore: Date | undefined): Promise<string[]> {
  const owners: string[] = [];
  for (const [kind, ids] of refs) {
    const rows = await db.deskRecord.findMany({
      where: { desk: deskId, kind, id: { in: [...ids] }, deletedAt: null },
      select: { id: true, ownerId: true, ownerAccountId: true, availableMinor: true, currency: true, status: true, closed: true, windowStart: true, windowEnd: true, title: true, sourceVersion: true, sourceUpdatedAt: true, syncedAt: true },
    });
    if (rows.length === 0) continue;
    const holds = await loadHolds(db, rows.map((r) => r.id), now, holdsBefore, deskId, kind);
    const accountOf = await ownerAccounts(db, deskId, kind, rows);
    const byId: Record<string, DeclaredRecord> = {};
    for (const r of rows) {
      const accountId = accountOf.get(r.id) ?? null;
      if (accountId) owners.push(accountId);
      const sync = toRecordSync(r);
      byId[r.id] = {
        kind,
        id: r.id,
        accountId,
        title: r.title,
        available: r.availableMinor !== null && r.currency ? { minor: Number(r.availableMinor), currency: r.currency as Currency } : null,
        holds: Object.prototype.hasOwnProperty.call(holds, r.id) ? holds[r.id] : [],
        status: r.status,
        closed: r.closed,
        window: r.windowStart && r.windowEnd ? { from: r.windowStart, to: r.windowEnd } : null,
        ...(sync ? { sync } : {}),
      };
    }
    (desk.declared ??= {})[kind] = byId;
  }
  return owners;
}

/**
 * Record id → owner account of `rows` (records of declared kind `kind` on `deskId`): the indexed
 * `ownerAccountId` when the owner is an account, else the chain of owner kinds followed by primary
 * key (the declaration of each kind read by its primary key), at most MAX_OWNER_HOPS kinds.
 */
async function ownerAccounts(db: DbOrTx, deskId: string, kind: string, rows: { id: string; ownerId: string | null; ownerAccountId: string | null }[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // record id → the owner record it waits on (kind, id)
  let pending = new Map<string, string>();
  for (const r of rows) {
    if (r.ownerAccountId) out.set(r.id, r.ownerAccountId);
    else if (r.ownerId) pending.set(r.id, r.ownerId);
  }
  let at = kind;
  for (let hop = 0; hop < MAX_OWNER_HOPS && pending.size > 0; hop++) {
    const declaration = await readDeclaration(db, deskId, at);
    const ownerKind = declaration?.roles.owner?.kind;
    if (!ownerKind || ownerKind === "account") break;
    const owners = await db.deskRecord.findMany({ where: { desk: deskId, kind: ownerKind, id: { in: [...new Set(pending.values())] }, deletedAt: null }, select: { id: true, ownerId: true, ownerAccountId: true } });
    const byId = new Map(owners.map((o) => [o.id, o]));
    const next = new Map<string, string>();
    for (const [recordId, ownerId] of pending) {
      const o = byId.get(ownerId);
      if (o?.ownerAccountId) out.set(recordId, o.ownerAccountId);
      else if (o?.ownerId) next.set(recordId, o.ownerId);
    }
    pending = next;
    at = ownerKind;
  }
  return out;
}

/**
 * Money in flight on `invoiceIds`: approvals still `active` or `claimed`, not expired at `now`,
 * that draw an amount on one of them, and — state `written` — succeeded writes whose amount the
 * local copy does not show yet (`consumed` with `holdOpen`, lib/server/records/sync-holds.ts; they
 * hold whatever their approval's deadline, until a synced version reflects them) — by the
 * approval's indexed (targetKind, targetId, state) columns. `before` keeps only approvals given
 * earlier (a claim counts what was approved before its own approval: the earlier approval holds
 * first); a written amount counts whenever it was approved — it is gone from the balance already.
 * `desk` counts only the approvals of that desk's runs: a count never reveals another desk's work.
 * `kind` (default `invoice`) is the target kind: a declared kind's records (`order`) hold money the same way.
 */
export async function loadHolds(db: DbOrTx, invoiceIds: string[], now: Date, before: Date | undefined, desk: string, kind = "invoice"): Promise<Record<string, MoneyHold[]>> {
  if (invoiceIds.length === 0) return {};
  const rows = await db.approval.findMany({
    where: {
      targetKind: kind,
      targetId: { in: invoiceIds },
      amountMinor: { not: null },
      run: { desk },
      OR: [{ state: { in: ["active", "claimed"] }, expiresAt: { gt: now }, ...(before ? { createdAt: { lt: before } } : {}) }, heldWrittenWhere],
    },
    select: { id: true, runId: true, stepId: true, targetId: true, amountMinor: true, amountCurrency: true, state: true, createdAt: true },
    orderBy: { createdAt: "asc" },
    take: HOLD_LIMIT,
  });
  const out: Record<string, MoneyHold[]> = {};
  for (const r of rows) {
    (out[r.targetId!] ??= []).push({
      runId: r.runId,
      stepId: r.stepId,
      approvalId: r.id,
      amount: { minor: r.amountMinor!, currency: (r.amountCurrency ?? "USD") as Currency },
      state: r.state === "consumed" ? "written" : (r.state as "active" | "claimed"),
      approvedAt: r.createdAt.toISOString(),
    });
  }
  return out;
}

/**
 * The approvals whose written amount still holds (a succeeded write the local copy does not show
 * yet: `consumed` with `holdOpen`); a `where` fragment for the money-in-flight queries.
 */
export const heldWrittenWhere = { state: "consumed", holdOpen: true } as const;

/** At most this many of the ticket account's own invoices and shipments (each) for the run page. */
export const ACCOUNT_RECORD_LIMIT = 100;
/** Most declared kinds whose records of the ticket's account one snapshot offers (`scope.accountKinds`). */
export const ACCOUNT_KIND_LIMIT = 10;
/** At most this many holidays per snapshot (a few years of a few destinations). */
const HOLIDAY_LIMIT = 2000;
/** At most this many look-alike candidates per guess and kind. */
const CANDIDATE_LIMIT = 25;

type Refs = Record<RecordKind, Set<string>>;

const KIND_OF_FIELD: Partial<Record<FieldKind, RecordKind>> = {
  invoice_id: "invoice",
  shipment_id: "shipment",
  ticket_id: "ticket",
  account_id: "account",
};

/**
 * Ids per record kind that steps name through their tools' id fields (raw input tolerated), and
 * — unless `opts.argumentsOnly` — the records their evidence and provenance sources name.
 */
export function referencedIds(steps: readonly unknown[], opts: { argumentsOnly?: boolean } = {}): Refs {
  const refs: Refs = { invoice: new Set(), shipment: new Set(), ticket: new Set(), account: new Set() };
  for (const raw of steps) {
    if (typeof raw !== "object" || raw === null) continue;
    const { tool: name, args, evidence } = raw as { tool?: unknown; args?: unknown; evidence?: unknown };
    // The records a step names as its evidence are checked to exist like ids.
    if (!opts.argumentsOnly && Array.isArray(evidence)) {
      for (const e of evidence as { recordType?: unknown; recordId?: unknown }[]) {
        const kind = e?.recordType;
        if ((kind === "invoice" || kind === "shipment" || kind === "ticket" || kind === "account") && typeof e.recordId === "string" && e.recordId.length > 0 && e.recordId.length <= 128) refs[kind].add(e.recordId);
      }
    }
    const tool = typeof name === "string" ? getTool(name) : undefined;
    if (!tool || typeof args !== "object" || args === null) continue;
    for (const field of tool.fields) {
      const kind = KIND_OF_FIELD[field.kind];
      const value = Object.prototype.hasOwnProperty.call(args, field.name) ? (args as Record<string, unknown>)[field.name] : undefined;
      if (kind && typeof value === "string" && value.length > 0 && value.length <= 128) refs[kind].add(value);
    }
    // Records the agent says an argument was read from (provenance `source`) are checked too.
    const provenance = (raw as { provenance?: unknown }).provenance;
    if (!opts.argumentsOnly && provenance && typeof provenance === "object") {
      for (const p of Object.values(provenance as Record<string, unknown>)) {
        const { kind, recordType, recordId } = (p ?? {}) as { kind?: unknown; recordType?: unknown; recordId?: unknown };
        if (kind === "source" && typeof recordId === "string" && recordId.length <= 128 && typeof recordType === "string" && recordType in refs) {
          refs[recordType as RecordKind].add(recordId);
        }
        // The invoices a formula names as inputs are loaded to recompute it (bounded by the formula's length).
        const formula = (p as { formula?: unknown } | null)?.formula;
        if (kind === "computed" && typeof formula === "string") {
          for (const path of formulaInputs(formula)) if (path[0].length <= 128) refs.invoice.add(path[0]);
        }
      }
    }
  }
  return refs;
}

/** The records read steps name, as [kind, id] (raw input tolerated; unknown read tools ignored). */
function readRecordIds(reads: readonly unknown[]): [RecordKind, string][] {
  const out: [RecordKind, string][] = [];
  for (const r of reads.slice(0, MAX_PLAN_READS)) {
    const { tool: name, args } = (r ?? {}) as { tool?: unknown; args?: unknown };
    const tool = typeof name === "string" ? getReadTool(name) : undefined;
    if (!tool || typeof args !== "object" || args === null) continue;
    const parsed = readArgsSchema(tool.name)!.safeParse(args);
    if (parsed.success) out.push([tool.kind, tool.recordId(parsed.data as Record<string, unknown>)]);
  }
  return out;
}

/**
 * The records `steps` target through their arguments' id fields that do NOT belong to tenant
 * desk `desk` (another desk's, or none at all), as `{kind, id}` — by primary key with the desk in
 * the `where`, a few indexed lookups. What the fence checks inside the write's transaction: a
 * step whose target is not on its run's desk is never written, whatever was approved.
 */
export async function targetsOffDesk(db: DbOrTx, desk: string, steps: readonly unknown[]): Promise<{ kind: RecordKind; id: string }[]> {
  const refs = referencedIds(steps, { argumentsOnly: true });
  const snapshot: AccountSnapshot = { ticket: { id: "", accountId: "", subject: "" }, accounts: {}, tickets: {}, invoices: {}, shipments: {}, holidays: {}, desk };
  await loadRecords(db, snapshot, refs, desk);
  const maps = { invoice: snapshot.invoices, shipment: snapshot.shipments, ticket: snapshot.tickets, account: snapshot.accounts };
  return (Object.keys(refs) as RecordKind[]).flatMap((kind) => [...refs[kind]].filter((id) => !has(maps[kind], id)).map((id) => ({ kind, id })));
}

/** Loads the named records of tenant desk `deskId` by primary key into `desk`; another desk's are left out. */
async function loadRecords(db: DbOrTx, desk: AccountSnapshot, refs: Refs, deskId: string): Promise<void> {
  // A tombstoned record (deleted at its source) is absent, like one of another desk.
  const onDesk = { desk: deskId, deletedAt: null, account: { deletedAt: null } };
  if (refs.invoice.size) for (const i of await db.invoice.findMany({ where: { id: { in: [...refs.invoice] }, ...onDesk } })) desk.invoices[i.id] = toInvoice(i);
  if (refs.shipment.size) for (const s of await db.shipment.findMany({ where: { id: { in: [...refs.shipment] }, ...onDesk } })) desk.shipments[s.id] = toShipment(s);
  if (refs.ticket.size) {
    for (const t of await db.ticket.findMany({ where: { desk: deskId, id: { in: [...refs.ticket] } }, select: { id: true, accountId: true, subject: true } })) desk.tickets[t.id] = t;
  }
  if (refs.account.size) {
    for (const a of await db.customerAccount.findMany({ where: { id: { in: [...refs.account] }, desk: deskId, deletedAt: null }, select: ACCOUNT_SELECT })) desk.accounts[a.id] = toAccount(a);
  }
}

const has = (map: object, id: string) => Object.prototype.hasOwnProperty.call(map, id);

/**
 * For every named id that did not resolve: records that exist under that exact id as ANOTHER
 * kind (so the hint can say "sh_5521 is a shipment, not an invoice"), and look-alike candidate
 * ids of the same kind — exact matches of each `lookalikeGuesses` spelling, ids that share its
 * first characters (an index range scan), and the ticket account's own ids of that kind — all of
 * tenant desk `deskId` only (a hint never names another desk's record).
 */
async function loadCandidates(db: DbOrTx, desk: AccountSnapshot, refs: Refs, deskId: string): Promise<void> {
  const maps = { invoice: desk.invoices, shipment: desk.shipments, ticket: desk.tickets, account: desk.accounts };
  const unresolved = (Object.keys(refs) as RecordKind[]).flatMap((kind) => [...refs[kind]].filter((id) => !has(maps[kind], id)).map((id) => ({ kind, id })));
  if (unresolved.length === 0) return;
  // Exists as another kind: four primary-key lookups over all unresolved ids at once.
  const ids = [...new Set(unresolved.map((u) => u.id))];
  const otherKind: Refs = { invoice: new Set(ids), shipment: new Set(ids), ticket: new Set(ids), account: new Set(ids) };
  await loadRecords(db, desk, otherKind, deskId);
  const candidates: Record<RecordKind, Set<string>> = { invoice: new Set(), shipment: new Set(), ticket: new Set(), account: new Set() };
  for (const { kind, id } of unresolved) {
    if (has(maps[kind], id)) continue;
    for (const guess of lookalikeGuesses(id)) {
      const prefix = guess.slice(0, Math.max(3, guess.length - 3));
      for (const c of await idsInRange(db, kind, prefix, deskId)) candidates[kind].add(c);
      for (const c of await idsInRange(db, kind, guess, deskId, true)) candidates[kind].add(c);
    }
    for (const c of await idsOfAccount(db, kind, desk.ticket.accountId, deskId)) candidates[kind].add(c);
  }
  desk.candidates = Object.fromEntries((Object.keys(candidates) as RecordKind[]).map((k) => [k, [...candidates[k]]]));
}

/** Ids of `kind` on tenant desk `deskId` starting with `prefix` (`exact`: equal to it), by an index range scan, bounded. */
async function idsInRange(db: DbOrTx, kind: RecordKind, prefix: string, deskId: string, exact = false): Promise<string[]> {
  const id = exact ? prefix : { gte: prefix, lt: `${prefix}\uffff` };
  const args = { where: { desk: deskId, id, deletedAt: null }, select: { id: true }, orderBy: { id: "asc" as const }, take: CANDIDATE_LIMIT };
  const rows =
    kind === "invoice"
      ? await db.invoice.findMany(args)
      : kind === "shipment"
        ? await db.shipment.findMany(args)
        : kind === "ticket"
          ? await db.ticket.findMany({ ...args, where: { desk: deskId, id } })
          : await db.customerAccount.findMany({ ...args, where: { id, desk: deskId, deletedAt: null } });
  return rows.map((r) => r.id);
}

/** The ticket account's own ids of `kind` on tenant desk `deskId` (bounded): the likeliest meaning of a typo. */
async function idsOfAccount(db: DbOrTx, kind: RecordKind, accountId: string, deskId: string): Promise<string[]> {
  if (kind === "account") return [accountId];
  const args = { where: { desk: deskId, accountId, deletedAt: null }, select: { id: true }, orderBy: { id: "asc" as const }, take: ACCOUNT_RECORD_LIMIT };
  const rows =
    kind === "invoice"
      ? await db.invoice.findMany(args)
      : kind === "shipment"
        ? await db.shipment.findMany(args)
        : await db.ticket.findMany({ ...args, where: { desk: deskId, accountId } });
  return rows.map((r) => r.id);
}

/** The sync columns every record of the door has (null before the door existed). */
type SyncColumns = { sourceVersion?: bigint | null; sourceUpdatedAt?: Date | null; syncedAt?: Date | null };

/** A row's sync columns as the snapshot's `RecordSync` (version as a number, times ISO UTC); absent when the row was read without them. */
export function toRecordSync(r: SyncColumns): RecordSync | undefined {
  if (r.sourceVersion === undefined && r.syncedAt === undefined) return undefined;
  return {
    sourceVersion: r.sourceVersion == null ? null : Number(r.sourceVersion),
    sourceUpdatedAt: r.sourceUpdatedAt ? r.sourceUpdatedAt.toISOString() : null,
    syncedAt: r.syncedAt ? r.syncedAt.toISOString() : null,
  };
}

/** The columns an owner account is read with: its name and its sync columns. */
const ACCOUNT_SELECT = { id: true, name: true, sourceVersion: true, sourceUpdatedAt: true, syncedAt: true } as const;

/** An account row as the snapshot's `AccountRecord`. */
function toAccount(a: { id: string; name: string } & SyncColumns): AccountRecord {
  const sync = toRecordSync(a);
  return { id: a.id, name: a.name, ...(sync ? { sync } : {}) };
}

/** An invoice row as the snapshot's `InvoiceRecord` (money in minor units + currency). */
export function toInvoice(i: { id: string; accountId: string; status: string; currency: string; totalMinor: number; openMinor: number; fees: unknown } & SyncColumns): InvoiceRecord {
  const currency = i.currency as Currency;
  const sync = toRecordSync(i);
  return {
    ...(sync ? { sync } : {}),
    id: i.id,
    accountId: i.accountId,
    status: i.status as InvoiceRecord["status"],
    total: { minor: i.totalMinor, currency },
    openBalance: { minor: i.openMinor, currency },
    fees: Array.isArray(i.fees) ? (i.fees as InvoiceRecord["fees"]) : [],
  };
}

/** A shipment row as the snapshot's `ShipmentRecord` (window as ISO dates). */
export function toShipment(s: { id: string; accountId: string; destination: string; windowFrom: string; windowTo: string; status: string } & SyncColumns): ShipmentRecord {
  const sync = toRecordSync(s);
  return {
    ...(sync ? { sync } : {}),
    id: s.id,
    accountId: s.accountId,
    destination: s.destination,
    window: { from: s.windowFrom, to: s.windowTo },
    status: s.status as ShipmentRecord["status"],
  };
}
