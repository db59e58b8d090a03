import { z } from "zod";
import { Prisma } from "../../generated/prisma/client";
import type { StoredDeclaration } from "../../records/declared-records";
import { storedRolesSchema } from "../../records/record-kind-declaration";
import { resolveDatabaseUrl } from "../db/database-url";
import { readJsonColumn } from "../db/json-column";
import type { DbOrTx, Tx } from "../db/transaction";

/*
 * A desk's declared record kinds as the records door and the admin API read them
 * (`record_kind`: the current declaration of each kind; lib/records/record-kind-declaration.ts).
 * Every read names the desk: a desk never reads another desk's kinds.
 */

const SQLITE = resolveDatabaseUrl().provider === "sqlite";

type Row = { kind: string; version: number | bigint; schema: unknown; roles: unknown };

/** A stored row as a StoredDeclaration (a raw SQLite read returns JSON columns as text). */
function toDeclaration(row: Row): StoredDeclaration {
  const json = (v: unknown) => (typeof v === "string" ? (JSON.parse(v) as unknown) : v);
  return {
    kind: row.kind,
    version: Number(row.version),
    schema: readJsonColumn(storedSchemaShape, json(row.schema), `schema of record kind ${row.kind}`),
    roles: readJsonColumn(storedRolesSchema, json(row.roles), `roles of record kind ${row.kind}`),
  };
}

/** A stored schema is a JSON object (it was normalised and checked when saved). */
const storedSchemaShape = z.record(z.string(), z.unknown());

/**
 * The current declarations of `kinds` on `desk` (absent kinds are simply not in the map), read
 * under a shared row lock on PostgreSQL (`FOR SHARE`; SQLite has one writer at a time anyway):
 * a declaration save, which locks the row for update before it decides whether the kind is in
 * use, waits for the records being written against the old declaration, and records written
 * after it see the new one. One indexed read (primary key prefix).
 */
export async function lockDeclarations(tx: Tx, desk: string, kinds: readonly string[]): Promise<Map<string, StoredDeclaration>> {
  if (kinds.length === 0) return new Map();
  const lock = Prisma.raw(SQLITE ? "" : " FOR SHARE");
  const rows = await tx.$queryRaw<Row[]>`SELECT "kind", "version", "schema", "roles" FROM "record_kind" WHERE "desk" = ${desk} AND "kind" IN (${Prisma.join([...kinds])})${lock}`;
  return new Map(rows.map((r) => [r.kind, toDeclaration(r)]));
}

/** The current declaration of `kind` on `desk`, or null (one read by primary key, no lock). */
export async function readDeclaration(db: DbOrTx, desk: string, kind: string): Promise<StoredDeclaration | null> {
  const row = await db.recordKind.findUnique({ where: { desk_kind: { desk, kind } }, select: { kind: true, version: true, schema: true, roles: true } });
  return row ? toDeclaration(row) : null;
}
