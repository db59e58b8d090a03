import { Prisma } from "../../generated/prisma/client";
import type { Tx } from "./transaction";

/** A column value `insertRows` writes: a scalar, a UTC time, or SQL NULL. JSON columns take the JSON text. */
export type RowValue = string | number | bigint | boolean | Date | null;

/** Rows per INSERT statement (SQLite allows 32,766 bound values; a run has at most a few hundred steps). */
const ROWS_PER_STATEMENT = 200;

/**
 * Inserts `rows` into `table` (its SQL name, the model's `@@map`) with ONE multi-row
 * `INSERT … VALUES (…), (…)` per 200 rows through `$executeRaw`, in the caller's transaction, on
 * SQLite and PostgreSQL alike (double-quoted identifiers, bound values). Why not
 * `createMany`: Prisma 7's client never caches the query plan of a `createMany`, so every call
 * compiles one in its query compiler (measured: ~6–8 ms CPU for 10 rows against ~1 ms for this),
 * and 10 single `create`s cost as much. `columns` is the column list every row is written with;
 * a value absent from a row is written as NULL, so the caller supplies every value the model
 * would default (ids, `createdAt`, `updatedAt`, `@default`s). Values are bound as the driver
 * adapters bind raw query arguments: a Date as the same UTC text Prisma stores, a boolean as
 * SQLite's 0/1 or PostgreSQL's boolean, a JSON column's JSON text (PostgreSQL casts it to jsonb
 * from the column's type). Errors: the database's; a unique violation is thrown as Prisma's
 * `P2002` (as `createMany` would), so `inTransaction` retries it like any other.
 */
export async function insertRows(tx: Tx, table: string, columns: readonly string[], rows: readonly object[]): Promise<number> {
  if (!/^[a-z_]+$/.test(table) || columns.some((c) => !/^[A-Za-z_]+$/.test(c))) throw new Error(`insertRows: unexpected identifier in ${table}(${columns.join(", ")})`);
  const head = Prisma.raw(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES `);
  let inserted = 0;
  for (let k = 0; k < rows.length; k += ROWS_PER_STATEMENT) {
    const values = rows.slice(k, k + ROWS_PER_STATEMENT).map((r) => Prisma.sql`(${Prisma.join(columns.map((c) => valueOf(table, c, (r as Record<string, unknown>)[c])))})`);
    try {
      inserted += await tx.$executeRaw`${head}${Prisma.join(values)}`;
    } catch (e) {
      throw asUniqueViolation(e) ?? e;
    }
  }
  return inserted;
}

/** A row's value of `column` as bound: undefined is NULL; anything but a `RowValue` is a bug of the caller (a JSON column takes `jsonText`). */
function valueOf(table: string, column: string, v: unknown): RowValue {
  if (v === undefined || v === null) return null;
  if (typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean" || v instanceof Date) return v;
  throw new Error(`insertRows: ${table}.${column} is not a scalar (JSON columns take jsonText(value))`);
}

/** A JSON column's value for `insertRows`: the JSON text, or NULL for undefined/null. */
export function jsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** A raw query's unique violation (Prisma `P2010` carrying the adapter's `UniqueConstraintViolation`) as Prisma's `P2002`; null for any other error. */
function asUniqueViolation(e: unknown): Prisma.PrismaClientKnownRequestError | null {
  if (!(e instanceof Prisma.PrismaClientKnownRequestError) || e.code !== "P2010") return null;
  const cause = (e.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause;
  if (cause?.kind !== "UniqueConstraintViolation") return null;
  return new Prisma.PrismaClientKnownRequestError(e.message, { code: "P2002", clientVersion: e.clientVersion, meta: e.meta });
}
