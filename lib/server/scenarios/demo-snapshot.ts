import { randomUUID } from "node:crypto";
import type { Tx } from "../db/transaction";
import { builtSourceHash } from "../../net/source-hash.mjs";

/**
 * The demo desk as this process last seeded it, kept inside the database so a reset can put it
 * back with one INSERT … SELECT per table instead of seeding again (docs/testing.md "Reset").
 *
 * Seeding goes through the public doors (the records door, the ticketing door, plan submission):
 * about 400 statements in 400 transactions. A QA suite resets before each scenario, so the seed's
 * round trips dominated its time. After a reset seeds the desk, `takeDemoSnapshot` copies every
 * table the reset empties (server-side, `CREATE TABLE … AS SELECT *`: types kept exactly); the next
 * reset of the same process on the same UTC day restores those rows with every timestamp shifted
 * by the time that passed (`restoreDemoSnapshot`), so ages, deadlines and leases are what a fresh
 * seed at that moment gives.
 *
 * Where it lives: PostgreSQL, the schema `plandesk_demo_snapshot` beside the desk's own; SQLite,
 * tables prefixed `plandesk_demo_snapshot__` (the reset and nothing else reads them). A snapshot
 * serves only code made from the same sources (`snapshotToken`): the hash of the sources the
 * running build was made from, which is also what `npm start`'s seed of an empty database marks
 * its snapshot with (scripts/seed.ts), so even a server's first reset restores; a process with
 * no stamped build (next dev, tests) marks its snapshots with a token of its own. Another build
 * or another day seeds once and writes its own.
 *
 * Not restored as copied: the feed cursors (`audit_event.seq`, `session_end.seq`) get fresh values
 * in their original order, so a live feed that saw the old rows still sees the new ones. Day-level
 * dates inside JSON (a contract's delivery window, a step's date) are copied as they are, which is
 * why a snapshot serves only its own UTC day.
 */

/** PostgreSQL schema holding the snapshot's tables. */
export const SNAPSHOT_SCHEMA = "plandesk_demo_snapshot";
/** SQLite: prefix of the snapshot's tables in the main database. */
export const SNAPSHOT_PREFIX = "plandesk_demo_snapshot__";
const META = "_meta";

/** This process's mark when it runs no stamped build: a snapshot of another such process is not used. */
const PROCESS_TOKEN = randomUUID();

/**
 * The mark of the snapshots this process takes and restores: the hash of the sources its build
 * was made from (`builtSourceHash` of the working directory, the stamp `npm start` writes after a
 * build), or a random token of this process when there is no stamp.
 */
export function snapshotToken(): string {
  return builtSourceHash(process.cwd()) ?? PROCESS_TOKEN;
}

/** Feed cursors: columns the database assigns again on restore (in the copied order) instead of copying. */
const REASSIGNED: Record<string, string> = { audit_event: "seq", session_end: "seq" };

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

interface Column {
  name: string;
  /** A timestamp column: shifted on restore. */
  time: boolean;
}

/** True for a table name of the snapshot (SQLite), so the reset never empties or copies it. */
export function isSnapshotTable(name: string): boolean {
  return name.startsWith(SNAPSHOT_PREFIX);
}

/** The UTC calendar day of `at` ("YYYY-MM-DD"). */
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * Copies `tables` (the ones a reset empties, in any order) into the snapshot, replacing the
 * previous one, marked with `token` (default `snapshotToken()`) and seeded at `seededAt` (UTC).
 * Run it in a transaction right after the seed.
 */
export async function takeDemoSnapshot(tx: Tx, sqlite: boolean, tables: readonly string[], seededAt: Date, token: string = snapshotToken()): Promise<void> {
  if (sqlite) {
    const old = await tx.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'plandesk\\_demo\\_snapshot\\_\\_%' ESCAPE '\\'`);
    for (const { name } of old) await tx.$executeRawUnsafe(`DROP TABLE ${quote(name)}`);
    for (const t of tables) await tx.$executeRawUnsafe(`CREATE TABLE ${quote(SNAPSHOT_PREFIX + t)} AS SELECT * FROM ${quote(t)}`);
    await tx.$executeRawUnsafe(`CREATE TABLE ${quote(SNAPSHOT_PREFIX + META)} (token TEXT NOT NULL, seeded_at_ms INTEGER NOT NULL, tables TEXT NOT NULL)`);
    await tx.$executeRawUnsafe(`INSERT INTO ${quote(SNAPSHOT_PREFIX + META)} (token, seeded_at_ms, tables) VALUES (?, ?, ?)`, token, seededAt.getTime(), JSON.stringify(tables));
    return;
  }
  await tx.$executeRawUnsafe(`DROP SCHEMA IF EXISTS ${SNAPSHOT_SCHEMA} CASCADE`);
  await tx.$executeRawUnsafe(`CREATE SCHEMA ${SNAPSHOT_SCHEMA}`);
  for (const t of tables) await tx.$executeRawUnsafe(`CREATE TABLE ${SNAPSHOT_SCHEMA}.${quote(t)} AS SELECT * FROM ${quote(t)}`);
  await tx.$executeRawUnsafe(`CREATE TABLE ${SNAPSHOT_SCHEMA}.${META} (token text NOT NULL, seeded_at_ms bigint NOT NULL, tables text NOT NULL)`);
  await tx.$executeRawUnsafe(`INSERT INTO ${SNAPSHOT_SCHEMA}.${META} (token, seeded_at_ms, tables) VALUES ($1, $2, $3)`, token, seededAt.getTime(), JSON.stringify(tables));
}

/**
 * Puts the snapshot's rows back into `tables` (ordered parents first; already emptied by the
 * caller in the same transaction), timestamps shifted by `now` − the snapshot's seed time.
 * Returns false, writing nothing, when there is no snapshot marked `snapshotToken()`, it was taken on
 * another UTC day, it covers other tables, or a table's columns changed since (a migration): the
 * caller then seeds.
 */
export async function restoreDemoSnapshot(tx: Tx, sqlite: boolean, tables: readonly string[], now: Date): Promise<boolean> {
  const meta = await readMeta(tx, sqlite);
  if (!meta || meta.token !== snapshotToken()) return false;
  const seededAt = new Date(Number(meta.seeded_at_ms));
  if (utcDay(seededAt) !== utcDay(now)) return false;
  const covered: string[] = JSON.parse(meta.tables);
  if (covered.length !== tables.length || !tables.every((t) => covered.includes(t))) return false;
  const live = await columnsOf(tx, sqlite, tables, false);
  const copied = await columnsOf(tx, sqlite, tables, true);
  for (const t of tables) {
    const a = live.get(t) ?? [];
    const b = copied.get(t) ?? [];
    if (a.length !== b.length || a.some((c) => !b.some((d) => d.name === c.name))) return false;
  }
  const shiftMs = now.getTime() - seededAt.getTime();
  for (const t of tables) {
    const skip = REASSIGNED[t];
    const cols = live.get(t)!.filter((c) => c.name !== skip);
    const list = cols.map((c) => quote(c.name)).join(", ");
    const values = cols.map((c) => (c.time && shiftMs !== 0 ? shifted(quote(c.name), shiftMs, sqlite) : quote(c.name))).join(", ");
    const from = sqlite ? quote(SNAPSHOT_PREFIX + t) : `${SNAPSHOT_SCHEMA}.${quote(t)}`;
    await tx.$executeRawUnsafe(`INSERT INTO ${quote(t)} (${list}) SELECT ${values} FROM ${from}${skip ? ` ORDER BY ${quote(skip)}` : ""}`);
  }
  return true;
}

/** A column expression moved by `ms` milliseconds (integer; either sign). SQLite keeps Prisma's text form, "YYYY-MM-DDTHH:MM:SS.SSS+00:00". */
function shifted(col: string, ms: number, sqlite: boolean): string {
  const n = Math.trunc(ms);
  if (!sqlite) return `${col} + (${n} * interval '1 millisecond')`;
  const seconds = `${n < 0 ? "-" : "+"}${(Math.abs(n) / 1000).toFixed(3)} seconds`;
  return `CASE WHEN typeof(${col}) = 'text' THEN strftime('%Y-%m-%dT%H:%M:%f+00:00', ${col}, '${seconds}') ELSE ${col} END`;
}

async function readMeta(tx: Tx, sqlite: boolean): Promise<{ token: string; seeded_at_ms: number | bigint; tables: string } | null> {
  if (sqlite) {
    const exists = await tx.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?`, SNAPSHOT_PREFIX + META);
    if (!Number(exists[0]?.n)) return null;
    const rows = await tx.$queryRawUnsafe<{ token: string; seeded_at_ms: number | bigint; tables: string }[]>(`SELECT token, seeded_at_ms, tables FROM ${quote(SNAPSHOT_PREFIX + META)}`);
    return rows[0] ?? null;
  }
  const exists = await tx.$queryRawUnsafe<{ t: string | null }[]>(`SELECT to_regclass('${SNAPSHOT_SCHEMA}.${META}')::text AS t`);
  if (!exists[0]?.t) return null;
  const rows = await tx.$queryRawUnsafe<{ token: string; seeded_at_ms: number | bigint; tables: string }[]>(`SELECT token, seeded_at_ms, tables FROM ${SNAPSHOT_SCHEMA}.${META}`);
  return rows[0] ?? null;
}

/** The columns of each table, of the live tables or of their copies. */
async function columnsOf(tx: Tx, sqlite: boolean, tables: readonly string[], copies: boolean): Promise<Map<string, Column[]>> {
  const out = new Map<string, Column[]>();
  if (sqlite) {
    for (const t of tables) {
      const cols = await tx.$queryRawUnsafe<{ name: string; type: string }[]>(`SELECT name, type FROM pragma_table_info(?)`, copies ? SNAPSHOT_PREFIX + t : t);
      // A copy made by CREATE TABLE AS keeps the declared affinity only ("NUM" for DATETIME): the live table says which are times.
      out.set(t, cols.map((c) => ({ name: c.name, time: /^DATETIME$/i.test(c.type) })));
    }
    return out;
  }
  const rows = await tx.$queryRawUnsafe<{ table_name: string; column_name: string; data_type: string }[]>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = ${copies ? `'${SNAPSHOT_SCHEMA}'` : "current_schema()"} ORDER BY table_name, ordinal_position`,
  );
  const wanted = new Set(tables);
  for (const r of rows) {
    if (!wanted.has(r.table_name)) continue;
    (out.get(r.table_name) ?? out.set(r.table_name, []).get(r.table_name)!).push({ name: r.column_name, time: r.data_type.startsWith("timestamp") });
  }
  return out;
}
