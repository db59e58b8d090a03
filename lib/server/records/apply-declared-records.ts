import { releaseSyncHolds } from "../lifecycle/approval-lifecycle";
import { Prisma } from "../../generated/prisma/client";
import { parseDeclaredFields, type RoleValues, type StoredDeclaration } from "../../records/declared-records";
import { RECORD_KIND_NAMES, type DeclaredRecordInput, type RecordError, type RecordOutcome } from "../../records/record-kinds";
import { jsonText, type RowValue } from "../db/insert-rows";
import type { Tx } from "../db/transaction";
import { lockDeclarations } from "./declarations";
import { liveAccountsOfDesk } from "./live-accounts";

/*
 * The records door's writer for kinds a desk declared (lib/records/record-kind-declaration.ts;
 * docs/design.md "Systems of record: the one door"): one generic table, `desk_record`, keyed by
 * (desk, kind, id) — ids are per desk and kind, so two desks may both have an order o_1 — with the
 * fields stored whole and the roles' values in indexed columns. The same version rules as the
 * built-in kinds (lib/server/records/apply-records.ts): a conditional upsert per record, so only a
 * newer source version changes it; a delete is a tombstone a newer put revives. Statements per
 * round: one locked read of the round's declarations, per kind one indexed read of the stored
 * ids, one of the owners they name, and one multi-row INSERT … ON CONFLICT … WHERE <stored
 * version older> … RETURNING per 500 rows.
 */

/** Rows per multi-row INSERT (19 columns × 500 = 9,500 bound values: below SQLite's 32,766 and PostgreSQL's 65,535). */
const ROWS_PER_STATEMENT = 500;

/** `desk_record`'s columns a put writes, in order. */
const COLUMNS = [
  "desk",
  "kind",
  "id",
  "fields",
  "kindVersion",
  "ownerId",
  "ownerAccountId",
  "availableMinor",
  "currency",
  "status",
  "closed",
  "windowStart",
  "windowEnd",
  "title",
  "version",
  "sourceVersion",
  "sourceUpdatedAt",
  "syncedAt",
  "deletedAt",
] as const;
/** The columns an applied newer put replaces (the key and the local version apart). */
const REPLACED = COLUMNS.filter((c) => c !== "desk" && c !== "kind" && c !== "id" && c !== "version");

/**
 * Applies `records` (of declared kinds, distinct kind:id) for `desk` inside the caller's
 * transaction and returns one outcome per record, in order. Rules, per record:
 * - a kind the desk has not declared: `unknown_kind` (another desk's declaration is not this desk's);
 * - a put whose fields do not fit the current declaration: `invalid_record` {path}
 *   (lib/records/declared-records.ts);
 * - a put whose owner (the owner role's field) is not a live record of the owner kind on this
 *   desk: `unknown_account` for an account (absent, another desk's or tombstoned: the same
 *   words), `unknown_owner` for a declared owner kind; an owner put earlier in the same call
 *   counts (the round's kinds are written owners first);
 * - a delete of a record this desk does not have: `not_found`;
 * - a stored source version at least the one sent: nothing changes (`not_newer`);
 * - otherwise a put replaces the fields, the role columns and `kindVersion`, sets the envelope,
 *   clears `deletedAt` and raises the local `version`; a delete keeps the fields and sets
 *   `deletedAt` = its `sourceUpdatedAt`.
 */
export async function applyDeclaredRound(tx: Tx, desk: string, records: readonly DeclaredRecordInput[], now: Date): Promise<RecordOutcome[]> {
  const out: (RecordOutcome | undefined)[] = new Array(records.length);
  const declarations = await lockDeclarations(tx, desk, [...new Set(records.map((r) => r.kind))]);
  const parsed = new Map<number, { fields: Record<string, unknown>; roles: RoleValues }>();
  const byKind = new Map<string, number[]>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const declaration = declarations.get(r.kind);
    if (!declaration) {
      out[i] = refusal("unknown_kind", `This desk has no kind ${r.kind}: the door accepts ${RECORD_KIND_NAMES.join(", ")} and the kinds an admin declared for the desk.`, "kind");
      continue;
    }
    if (r.op === "put") {
      const p = parseDeclaredFields(declaration, r.fields);
      if (!p.ok) {
        out[i] = { ok: false, error: p.error };
        continue;
      }
      parsed.set(i, { fields: p.fields, roles: p.roles });
    }
    let list = byKind.get(r.kind);
    if (!list) byKind.set(r.kind, (list = []));
    list.push(i);
  }

  for (const kind of ownersFirst([...byKind.keys()], declarations)) {
    const declaration = declarations.get(kind)!;
    const idx = byKind.get(kind)!;
    const stored = await readStored(tx, desk, kind, idx.map((i) => records[i].id));
    const owner = declaration.roles.owner;
    const named = owner ? [...new Set(idx.flatMap((i) => (parsed.has(i) ? [parsed.get(i)!.roles.ownerId!] : [])))] : [];
    const liveOwners = !owner || named.length === 0 ? new Set<string>() : owner.kind === "account" ? await liveAccountsOfDesk(tx, desk, named) : await liveRecordsOfDesk(tx, desk, owner.kind, named);
    const puts: number[] = [];
    const deletes: number[] = [];
    for (const i of idx) {
      const r = records[i];
      const s = stored.get(r.id);
      if (r.op === "delete" && !s) {
        out[i] = refusal("not_found", `There is no ${kind} ${r.id} on this desk.`);
        continue;
      }
      if (r.op === "put" && owner) {
        const ownerId = parsed.get(i)!.roles.ownerId!;
        if (!liveOwners.has(ownerId)) {
          out[i] = owner.kind === "account" ? refusal("unknown_account", `There is no account ${ownerId} on this desk.`, owner.field) : refusal("unknown_owner", `There is no ${owner.kind} ${ownerId} on this desk.`, owner.field);
          continue;
        }
      }
      if (s && s.sourceVersion !== null && s.sourceVersion >= r.sourceVersion) {
        out[i] = { ok: true, applied: false, reason: "not_newer", sourceVersion: s.sourceVersion };
        continue;
      }
      (r.op === "put" ? puts : deletes).push(i);
    }
    const written = await upsert(
      tx,
      desk,
      declaration,
      puts.map((i) => ({ record: records[i], ...parsed.get(i)! })),
      now,
    );
    for (const i of deletes) if (await tombstone(tx, desk, records[i], now)) written.add(records[i].id);
    for (const i of [...puts, ...deletes]) {
      const r = records[i];
      out[i] = written.has(r.id) ? { ok: true, applied: true, sourceVersion: r.sourceVersion } : { ok: true, applied: false, reason: "not_newer", sourceVersion: stored.get(r.id)?.sourceVersion ?? null };
    }
    // the money holds of succeeded writes the applied versions reflect (as for invoices: one indexed read, one update per held record)
    const applied = puts.filter((i) => written.has(records[i].id)).map((i) => records[i]);
    if (applied.length > 0 && declaration.roles.balance) {
      const held = await tx.approval.findMany({ where: { targetKind: kind, targetId: { in: applied.map((r) => r.id) }, holdOpen: true, run: { desk } }, select: { targetId: true } });
      const heldIds = new Set(held.map((h) => h.targetId));
      for (const r of applied) if (heldIds.has(r.id)) await releaseSyncHolds(tx, kind, r.id, BigInt(r.sourceVersion), r.sourceUpdatedAt, desk);
    }
  }
  return out as RecordOutcome[];
}

/** `kinds` ordered so that a kind whose owner kind is also among them comes after it (declarations never loop; a leftover keeps its place). */
function ownersFirst(kinds: readonly string[], declarations: ReadonlyMap<string, StoredDeclaration>): string[] {
  const inRound = new Set(kinds);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = (k: string, depth: number) => {
    if (placed.has(k) || depth > kinds.length) return;
    const ownerKind = declarations.get(k)?.roles.owner?.kind;
    if (ownerKind && ownerKind !== k && inRound.has(ownerKind)) place(ownerKind, depth + 1);
    if (!placed.has(k)) {
      placed.add(k);
      ordered.push(k);
    }
  };
  for (const k of kinds) place(k, 0);
  return ordered;
}

function refusal(code: RecordError["code"], message: string, path?: string): RecordOutcome {
  return { ok: false, error: { code, message, ...(path ? { path } : {}) } };
}

/** The source version stored under each of `ids` of `kind` on `desk` (one read by primary key). */
async function readStored(tx: Tx, desk: string, kind: string, ids: readonly string[]): Promise<Map<string, { sourceVersion: number | null }>> {
  const rows = await tx.$queryRaw<{ id: string; sourceVersion: bigint | number | null }[]>`
    SELECT "id", "sourceVersion" FROM "desk_record" WHERE "desk" = ${desk} AND "kind" = ${kind} AND "id" IN (${Prisma.join([...ids])})`;
  return new Map(rows.map((r) => [r.id, { sourceVersion: r.sourceVersion === null ? null : Number(r.sourceVersion) }]));
}

/** Of `ids`, the live (not tombstoned) records of declared kind `kind` on `desk` (one read by primary key). */
async function liveRecordsOfDesk(tx: Tx, desk: string, kind: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT "id" FROM "desk_record" WHERE "desk" = ${desk} AND "kind" = ${kind} AND "id" IN (${Prisma.join([...ids])}) AND "deletedAt" IS NULL`;
  return new Set(rows.map((r) => r.id));
}

/**
 * Multi-row conditional upserts of puts of one declared kind (distinct ids): a new id is
 * inserted; a stored one is replaced only when its source version is older (or unknown).
 * Returns the ids written (RETURNING).
 */
async function upsert(
  tx: Tx,
  desk: string,
  declaration: StoredDeclaration,
  puts: readonly { record: DeclaredRecordInput; fields: Record<string, unknown>; roles: RoleValues }[],
  now: Date,
): Promise<Set<string>> {
  const written = new Set<string>();
  if (puts.length === 0) return written;
  const q = (c: string) => `"${c}"`;
  const head = Prisma.raw(`INSERT INTO "desk_record" (${COLUMNS.map(q).join(", ")}) VALUES `);
  const set = [...REPLACED.map((c) => `${q(c)} = excluded.${q(c)}`), `"version" = "desk_record"."version" + 1`].join(", ");
  const tail = Prisma.raw(` ON CONFLICT ("desk", "kind", "id") DO UPDATE SET ${set} WHERE "desk_record"."sourceVersion" IS NULL OR "desk_record"."sourceVersion" < excluded."sourceVersion" RETURNING "id"`);
  const ownedByAccount = declaration.roles.owner?.kind === "account";
  for (let k = 0; k < puts.length; k += ROWS_PER_STATEMENT) {
    const values = puts.slice(k, k + ROWS_PER_STATEMENT).map(({ record, fields, roles }) => {
      const v: Record<(typeof COLUMNS)[number], RowValue> = {
        desk,
        kind: declaration.kind,
        id: record.id,
        fields: jsonText(fields),
        kindVersion: declaration.version,
        ownerId: roles.ownerId,
        ownerAccountId: ownedByAccount ? roles.ownerId : null,
        availableMinor: roles.availableMinor === null ? null : BigInt(roles.availableMinor),
        currency: roles.currency,
        status: roles.status,
        closed: roles.closed,
        windowStart: roles.windowStart,
        windowEnd: roles.windowEnd,
        title: roles.title,
        version: 1,
        sourceVersion: BigInt(record.sourceVersion),
        sourceUpdatedAt: record.sourceUpdatedAt,
        syncedAt: now,
        deletedAt: null,
      };
      return Prisma.sql`(${Prisma.join(COLUMNS.map((c) => v[c]))})`;
    });
    const rows = await tx.$queryRaw<{ id: string }[]>`${head}${Prisma.join(values)}${tail}`;
    for (const r of rows) written.add(r.id);
  }
  return written;
}

/** Tombstones one stored record of this desk when its source version is older: `deletedAt` = the source's time, the envelope updated, the local version raised. Returns whether it was written. */
async function tombstone(tx: Tx, desk: string, r: DeclaredRecordInput, now: Date): Promise<boolean> {
  const n = await tx.$executeRaw`UPDATE "desk_record" SET "deletedAt" = ${r.sourceUpdatedAt}, "sourceVersion" = ${BigInt(r.sourceVersion)}, "sourceUpdatedAt" = ${r.sourceUpdatedAt}, "syncedAt" = ${now}, "version" = "version" + 1
    WHERE "desk" = ${desk} AND "kind" = ${r.kind} AND "id" = ${r.id} AND ("sourceVersion" IS NULL OR "sourceVersion" < ${BigInt(r.sourceVersion)})`;
  return n > 0;
}
