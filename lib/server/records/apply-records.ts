import { Prisma } from "../../generated/prisma/client";
import { recordKey } from "../../records/record-key";
import { isDeclaredRecord, RECORD_KIND_NAMES, type DeclaredRecordInput, type DoorRecordInput, type RecordError, type RecordOutcome, type RecordInput, type RecordKind } from "../../records/record-kinds";
import { jsonText, type RowValue } from "../db/insert-rows";
import { prisma } from "../db/db";
import { inTransaction, ok, type Db, type Tx } from "../db/transaction";
import { releaseSyncHolds } from "./sync-holds";
import { applyDeclaredRound } from "./apply-declared-records";
import { liveAccountsOfDesk } from "./live-accounts";

/*
 * The records door's writer (docs/design.md "Systems of record: the one door"): applies records a
 * system of record sent for one desk to Plandesk's local copy (customer_account, invoice,
 * shipment, holiday), a conditional upsert per record — only a newer source version changes a
 * record, so a replay or an out-of-order delivery changes nothing. Every built-in kind is keyed per
 * desk (desk, id): two desks may each hold a record of one id, independently, and one desk's write
 * never sees or touches the other's. Few statements per chunk: one indexed read of the chunk's
 * existing ids (with their versions) per kind, one of the accounts its invoices and shipments name,
 * and one multi-row INSERT … ON CONFLICT(desk, id) DO UPDATE … WHERE <stored version older> …
 * RETURNING per 500 rows of a kind, on SQLite and
 * PostgreSQL alike (raw SQL, bound values, as lib/server/db/insert-rows.ts does). Records of kinds
 * a desk declared go to `desk_record` (lib/server/records/apply-declared-records.ts), after the
 * built-in kinds of the same round, so they may name an account the round writes.
 */

/** What became of one record (lib/records/record-kinds.ts). */
export type { RecordOutcome };

/** Records per transaction `applyRecords` uses by default. */
export const RECORDS_PER_CHUNK = 1000;
/** Rows per multi-row INSERT (14 columns × 500 = 7,000 bound values: below SQLite's 32,766 and PostgreSQL's 65,535). */
const ROWS_PER_STATEMENT = 500;

interface KindTable {
  table: string;
  /** The primary key's columns (the upsert's conflict target). */
  key: readonly string[];
  /** Every column a put writes (id first), in order. */
  columns: readonly string[];
  /** Whether the table has the local `version` column (incremented on every applied change). */
  versioned: boolean;
  /** The row's column values of a put's fields (the envelope and desk added by the caller). */
  row: (fields: Record<string, unknown>, desk: string) => Record<string, RowValue>;
}

const ENVELOPE = ["sourceVersion", "sourceUpdatedAt", "syncedAt", "deletedAt"] as const;

/** How each kind is stored: its table, columns, and its fields as column values. */
const TABLES: Record<RecordKind, KindTable> = {
  account: {
    table: "customer_account",
    key: ["desk", "id"],
    columns: ["id", "name", "desk", "tags", ...ENVELOPE],
    versioned: false,
    row: (f, desk) => ({ name: f.name as string, desk, tags: jsonText(f.tags ?? null) }),
  },
  invoice: {
    table: "invoice",
    key: ["desk", "id"],
    columns: ["id", "desk", "accountId", "status", "currency", "totalMinor", "openMinor", "fees", "dueDate", "version", ...ENVELOPE],
    versioned: true,
    row: (f, desk) => ({
      desk,
      accountId: f.accountId as string,
      status: f.status as string,
      currency: f.currency as string,
      totalMinor: f.totalMinor as number,
      openMinor: f.openMinor as number,
      fees: jsonText(f.fees),
      dueDate: f.dueDate as string,
      version: 1,
    }),
  },
  shipment: {
    table: "shipment",
    key: ["desk", "id"],
    columns: ["id", "desk", "accountId", "destination", "windowFrom", "windowTo", "status", "address", "version", ...ENVELOPE],
    versioned: true,
    row: (f, desk) => ({
      desk,
      accountId: f.accountId as string,
      destination: f.destination as string,
      windowFrom: f.windowFrom as string,
      windowTo: f.windowTo as string,
      status: f.status as string,
      address: f.address as string,
      version: 1,
    }),
  },
  holiday: {
    table: "holiday",
    key: ["desk", "id"],
    columns: ["id", "destination", "date", "name", "desk", ...ENVELOPE],
    versioned: false,
    row: (f, desk) => ({ destination: f.destination as string, date: f.date as string, name: f.name as string, desk }),
  },
};

/** A stored record's source version (null: written before the door). */
interface Stored {
  sourceVersion: number | null;
}

/**
 * Applies `records` for `desk` in transactions of `chunkSize` records (`inTransaction`, retried
 * on conflicts), and returns one outcome per record, in order. A record never half-writes (each
 * is one row); a refused record leaves the database as it was and the chunk's other records
 * still land. Usable without HTTP (the demo desk is loaded through it). `now` is the sync time
 * (`syncedAt`). The desk must exist (the caller checks). Errors: the database's.
 */
export async function applyRecords(desk: string, records: readonly DoorRecordInput[], opts: { db?: Db; now?: Date; chunkSize?: number } = {}): Promise<RecordOutcome[]> {
  const size = opts.chunkSize ?? RECORDS_PER_CHUNK;
  const out: RecordOutcome[] = [];
  for (let k = 0; k < records.length; k += size) {
    const chunk = records.slice(k, k + size);
    out.push(...(await inTransaction(async (tx) => ok(await applyRecordChunk(tx, desk, chunk, opts.now ?? new Date())), opts.db ?? prisma, { isolation: "row-locks" })));
  }
  return out;
}

/**
 * Applies `records` for `desk` inside the caller's transaction `tx` and returns one outcome per
 * record, in order (see the module comment for the statements). Rules, per record:
 * - ids are per desk for every kind: another desk's record of the same id is neither read nor
 *   changed (this desk's put creates its own); a delete of an id this desk does not hold is
 *   `not_found`;
 * - an invoice or shipment naming an account this desk does not have (absent or another desk's,
 *   the same words): `unknown_account`; an account put earlier in the same call counts;
 * - a stored source version at least the one sent: nothing changes (`not_newer`);
 * - otherwise a put replaces the fields, sets `sourceVersion`, `sourceUpdatedAt`, `syncedAt` =
 *   `now`, clears `deletedAt` (a newer put revives a tombstone) and increments the local
 *   `version`; a delete keeps the fields and sets `deletedAt` = its `sourceUpdatedAt`.
 * After an invoice version is applied, the money holds it reflects end (`releaseSyncHolds`).
 * The same record twice in one call is applied in order (the second sees the first). Records of
 * declared kinds follow their own rules (`applyDeclaredRound`), after the round's built-in ones.
 */
export async function applyRecordChunk(tx: Tx, desk: string, records: readonly DoorRecordInput[], now: Date): Promise<RecordOutcome[]> {
  const out: RecordOutcome[] = new Array(records.length);
  // rounds of distinct records: a record repeated in the call waits for the next round
  let start = 0;
  while (start < records.length) {
    const seen = new Set<string>();
    let end = start;
    while (end < records.length && !seen.has(recordKey(records[end].kind, records[end].id))) {
      seen.add(recordKey(records[end].kind, records[end].id));
      end++;
    }
    // the round's built-in records first (accounts a declared record may name), then its declared ones
    const builtIn: number[] = [];
    const declared: number[] = [];
    for (let i = start; i < end; i++) (isDeclaredRecord(records[i]) ? declared : builtIn).push(i);
    if (builtIn.length > 0) {
      const round = await applyRound(tx, desk, builtIn.map((i) => records[i] as RecordInput), now);
      builtIn.forEach((at, k) => (out[at] = round[k]));
    }
    if (declared.length > 0) {
      const round = await applyDeclaredRound(tx, desk, declared.map((i) => records[i] as DeclaredRecordInput), now);
      declared.forEach((at, k) => (out[at] = round[k]));
    }
    start = end;
  }
  return out;
}

/** One round of `applyRecordChunk`: records with distinct kind:id. */
async function applyRound(tx: Tx, desk: string, records: readonly RecordInput[], now: Date): Promise<RecordOutcome[]> {
  const out: (RecordOutcome | undefined)[] = new Array(records.length);
  const byKind = new Map<RecordKind, number[]>();
  for (let i = 0; i < records.length; i++) listOf(byKind, records[i].kind).push(i);

  // what is stored under the round's ids, per kind (one indexed read each)
  const stored = new Map<string, Stored>();
  for (const [kind, idx] of byKind) {
    for (const [id, s] of await readStored(tx, kind, desk, idx.map((i) => records[i].id))) stored.set(recordKey(kind, id), s);
  }
  // the accounts the round's invoices and shipments name
  const named = new Set<string>();
  for (const r of records) if (r.op === "put" && (r.kind === "invoice" || r.kind === "shipment")) named.add(r.fields.accountId as string);
  const accountsOfDesk = new Set<string>();
  if (named.size > 0) {
    for (const id of await liveAccountsOfDesk(tx, desk, [...named])) accountsOfDesk.add(id);
  }

  // decide, accounts first (an invoice of the round may name an account of the round)
  const writes = new Map<RecordKind, number[]>();
  for (const kind of RECORD_KIND_NAMES) {
    for (const i of byKind.get(kind) ?? []) {
      const r = records[i];
      const s = stored.get(recordKey(r.kind, r.id));
      if (!s && r.op === "delete") {
        out[i] = notFound(r);
        continue;
      }
      if (r.op === "put" && (r.kind === "invoice" || r.kind === "shipment") && !accountsOfDesk.has(r.fields.accountId as string)) {
        out[i] = refusal("unknown_account", `There is no account ${r.fields.accountId as string} on this desk.`, "accountId");
        continue;
      }
      if (s && s.sourceVersion !== null && s.sourceVersion >= r.sourceVersion) {
        out[i] = { ok: true, applied: false, reason: "not_newer", sourceVersion: s.sourceVersion };
        continue;
      }
      listOf(writes, kind).push(i);
      if (r.kind === "account" && r.op === "put") accountsOfDesk.add(r.id);
    }
  }

  // write
  const appliedInvoices: RecordInput[] = [];
  for (const [kind, all] of writes) {
    let idx = all;
    if (kind === "invoice" || kind === "shipment") {
      // Read again after the round's accounts were written: an account this round meant to create or
      // revive may have been tombstoned meanwhile by a newer version another writer of this desk
      // applied (the round's upsert then wrote nothing).
      const named = [...new Set(all.flatMap((i) => { const r = records[i]; return r.op === "put" ? [r.fields.accountId as string] : []; }))];
      const live = named.length > 0 ? await liveAccountsOfDesk(tx, desk, named) : new Set<string>();
      idx = all.filter((i) => {
        const r = records[i];
        if (r.op !== "put" || live.has(r.fields.accountId as string)) return true;
        out[i] = refusal("unknown_account", `There is no account ${r.fields.accountId as string} on this desk.`, "accountId");
        return false;
      });
    }
    const puts = idx.filter((i) => records[i].op === "put");
    const written = await upsert(tx, kind, desk, puts.map((i) => records[i]), now);
    for (const i of idx.filter((i) => records[i].op === "delete")) if (await tombstone(tx, kind, desk, records[i], now)) written.add(records[i].id);
    for (const i of idx) {
      const r = records[i];
      if (written.has(r.id)) {
        out[i] = { ok: true, applied: true, sourceVersion: r.sourceVersion };
        if (kind === "invoice" && r.op === "put") appliedInvoices.push(r);
      } else {
        // a concurrent writer stored a version at least as new between our read and our write
        out[i] = { ok: true, applied: false, reason: "not_newer", sourceVersion: stored.get(recordKey(kind, r.id))?.sourceVersion ?? null };
      }
    }
  }

  // the money holds the applied invoice versions reflect (one indexed read, then one update per held invoice)
  if (appliedInvoices.length > 0) {
    // only this desk's runs' holds: another desk's invoice of the same id is another invoice
    const held = await tx.approval.findMany({ where: { targetKind: "invoice", targetId: { in: appliedInvoices.map((r) => r.id) }, holdOpen: true, run: { desk } }, select: { targetId: true } });
    const heldIds = new Set(held.map((h) => h.targetId));
    for (const r of appliedInvoices) if (heldIds.has(r.id)) await releaseSyncHolds(tx, "invoice", r.id, BigInt(r.sourceVersion), r.sourceUpdatedAt, desk);
  }
  return out as RecordOutcome[];
}

/** The list under `key` in `map`, made empty when absent. */
function listOf<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

function refusal(code: RecordError["code"], message: string, path?: string): RecordOutcome {
  return { ok: false, error: { code, message, ...(path ? { path } : {}) } };
}

function notFound(r: RecordInput): RecordOutcome {
  return refusal("not_found", `There is no ${r.kind} ${r.id} on this desk.`);
}

/**
 * The source version stored under each of `ids` of `kind` on `desk`: `desk`'s own records only, by
 * their primary key (desk, id) — another desk's record of the same id is not read.
 */
async function readStored(tx: Tx, kind: RecordKind, desk: string, ids: string[]): Promise<Map<string, Stored>> {
  type Row = { id: string; sourceVersion: bigint | number | null };
  const rows = await tx.$queryRaw<Row[]>`SELECT "id", "sourceVersion" FROM ${Prisma.raw(`"${TABLES[kind].table}"`)} WHERE "desk" = ${desk} AND "id" IN (${Prisma.join(ids)})`;
  return new Map(rows.map((r) => [r.id, { sourceVersion: r.sourceVersion === null ? null : Number(r.sourceVersion) }]));
}

/** The condition, on the stored row of `kind`, that it belongs to `desk` (SQL, for an UPDATE's or upsert's WHERE). */
function sameDesk(kind: RecordKind, desk: string): Prisma.Sql {
  const t = TABLES[kind].table;
  return Prisma.sql`${Prisma.raw(`"${t}"."desk"`)} = ${desk}`;
}

/**
 * Multi-row conditional upserts of `records` (puts of one kind with distinct ids): a new key
 * (desk, id) is inserted; a stored one is replaced only when its source version is older (or
 * unknown) and it is this desk's. Returns the ids written (RETURNING).
 */
async function upsert(tx: Tx, kind: RecordKind, desk: string, records: readonly RecordInput[], now: Date): Promise<Set<string>> {
  const written = new Set<string>();
  if (records.length === 0) return written;
  const { table, key, columns, versioned, row } = TABLES[kind];
  const q = (c: string) => `"${c}"`;
  const head = Prisma.raw(`INSERT INTO "${table}" (${columns.map(q).join(", ")}) VALUES `);
  // the key (desk, id) is never rewritten
  const updated = columns.filter((c) => c !== "id" && c !== "version" && c !== "desk");
  const set = [...updated.map((c) => `${q(c)} = excluded.${q(c)}`), ...(versioned ? [`"version" = "${table}"."version" + 1`] : [])].join(", ");
  const tail = Prisma.sql` ON CONFLICT (${Prisma.raw(key.map(q).join(", "))}) DO UPDATE SET ${Prisma.raw(set)} WHERE (${Prisma.raw(`"${table}"."sourceVersion"`)} IS NULL OR ${Prisma.raw(`"${table}"."sourceVersion"`)} < excluded."sourceVersion") AND ${sameDesk(kind, desk)} RETURNING "id"`;
  for (let k = 0; k < records.length; k += ROWS_PER_STATEMENT) {
    const values = records.slice(k, k + ROWS_PER_STATEMENT).map((r) => {
      if (r.op !== "put") throw new Error("upsert: a delete");
      const v: Record<string, RowValue> = { id: r.id, ...row(r.fields, desk), sourceVersion: BigInt(r.sourceVersion), sourceUpdatedAt: r.sourceUpdatedAt, syncedAt: now, deletedAt: null };
      return Prisma.sql`(${Prisma.join(columns.map((c) => v[c] ?? null))})`;
    });
    const rows = await tx.$queryRaw<{ id: string }[]>`${head}${Prisma.join(values)}${tail}`;
    for (const r of rows) written.add(r.id);
  }
  return written;
}

/** Tombstones one stored record of this desk when its source version is older: `deletedAt` = the source's time, the envelope updated. Returns whether it was written. */
async function tombstone(tx: Tx, kind: RecordKind, desk: string, r: RecordInput, now: Date): Promise<boolean> {
  const { table, versioned } = TABLES[kind];
  const t = Prisma.raw(`"${table}"`);
  const bump = Prisma.raw(versioned ? `, "version" = "version" + 1` : "");
  const n = await tx.$executeRaw`UPDATE ${t} SET "deletedAt" = ${r.sourceUpdatedAt}, "sourceVersion" = ${BigInt(r.sourceVersion)}, "sourceUpdatedAt" = ${r.sourceUpdatedAt}, "syncedAt" = ${now}${bump}
    WHERE "id" = ${r.id} AND ("sourceVersion" IS NULL OR "sourceVersion" < ${BigInt(r.sourceVersion)}) AND ${sameDesk(kind, desk)}`;
  return n > 0;
}
