import { resolveDatabaseUrl } from "../db/database-url";
import { prisma } from "../db/db";
import { DEMO_USERS, demoDeskCounts, demoGrantRows, seedDemoDesk } from "../demo/seed";
import { inTransaction, ok, type Tx } from "../db/transaction";
import { isSnapshotTable, restoreDemoSnapshot, takeDemoSnapshot } from "./demo-snapshot";

/**
 * Resets a demo database to the freshly seeded demo desk (docs/testing.md "Reset"): every row of
 * every table is deleted except the demo people's sign-in (their user, credential and session
 * rows, so a QA suite's stored sign-ins stay valid) and the migration history; then the demo desk
 * is seeded again relative to `now` (UTC). People an admin created and their sessions are gone;
 * demo users get back their seeded name, role, desk and grants.
 *
 * The audit log is append-only (a trigger refuses deletes on both databases); a reset is the one
 * deliberate exception, allowed in demo mode only (the callers check it): on PostgreSQL the
 * table's user triggers are disabled inside the reset's own transaction, on SQLite the trigger is
 * dropped and created again from its stored definition in the same transaction, so the log is
 * append-only again the moment the reset commits (or was never touched if it rolls back).
 *
 * Tables are emptied children first (foreign keys read from the database's own catalog), in one
 * transaction: a failed reset leaves the database as it was.
 *
 * The desk comes back from this process's snapshot of the seeded desk when it has one for the UTC
 * day of `now` (./demo-snapshot.ts: one INSERT … SELECT per table, timestamps moved by the time
 * that passed, in the emptying transaction); otherwise — the process's first reset, a new day, a
 * demo person deleted, or `options.fromSeed` — the desk is seeded through the public doors and a
 * snapshot of it taken. Returns the time it took (ms; `emptyMs` of it emptying the tables), whether
 * it was `restored` from the snapshot, and the counts the seed reports.
 */
export async function resetDemoDesk(now = new Date(), options: { fromSeed?: boolean } = {}): Promise<{ ms: number; emptyMs: number; restored: boolean; seeded: Awaited<ReturnType<typeof seedDemoDesk>> }> {
  const started = performance.now();
  const sqlite = resolveDatabaseUrl().provider === "sqlite";
  const demoIds = DEMO_USERS.map((u) => u.id);
  let emptied = started;
  const { restored, emptiedTables } = await inTransaction(async (tx) => {
    const tables = sqlite ? await sqliteTables(tx) : await postgresTables(tx);
    const order = childrenFirst(tables);
    const keptWhole = referencedBy(Object.keys(KEEP_DEMO_ROWS), tables);
    const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
    const triggers = sqlite
      ? await tx.$queryRawUnsafe<{ name: string; sql: string }[]>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_event'")
      : [];
    if (sqlite) for (const t of triggers) await tx.$executeRawUnsafe(`DROP TRIGGER ${quote(t.name)}`);
    else await tx.$executeRawUnsafe(`ALTER TABLE audit_event DISABLE TRIGGER USER`);
    const emptiedTables: string[] = [];
    for (const table of order) {
      if (table.name === "_prisma_migrations" || keptWhole.has(table.name)) continue;
      const keep = KEEP_DEMO_ROWS[table.name];
      if (keep) await tx.$executeRawUnsafe(`DELETE FROM ${quote(table.name)} WHERE ${quote(keep)} NOT IN (${demoIds.map((_, i) => (sqlite ? "?" : `$${i + 1}`)).join(", ")})`, ...demoIds);
      else {
        await tx.$executeRawUnsafe(`DELETE FROM ${quote(table.name)}`);
        emptiedTables.push(table.name);
      }
    }
    if (sqlite) for (const t of triggers) await tx.$executeRawUnsafe(t.sql);
    else await tx.$executeRawUnsafe(`ALTER TABLE audit_event ENABLE TRIGGER USER`);
    emptied = performance.now();
    // The seeded desk back from this process's snapshot when it has one for today (demo-snapshot.ts),
    // in this same transaction; else the seed below runs and takes one. Every demo person must
    // still exist: the seed is what creates a missing one.
    const people = await tx.user.count({ where: { id: { in: demoIds } } });
    const restored = !options.fromSeed && people === demoIds.length && (await restoreDemoSnapshot(tx, sqlite, [...emptiedTables].reverse(), now));
    if (restored) for (const u of DEMO_USERS) await tx.user.update({ where: { id: u.id }, data: seededPerson(u) });
    return ok({ restored, emptiedTables });
  });
  if (restored) return { ms: Math.round(performance.now() - started), emptyMs: Math.round(emptied - started), restored, seeded: await demoDeskCounts() };
  await restoreDemoPeople();
  const seeded = await seedDemoDesk(now);
  await inTransaction(async (tx) => {
    await takeDemoSnapshot(tx, sqlite, emptiedTables, now);
    return ok(null);
  });
  return { ms: Math.round(performance.now() - started), emptyMs: Math.round(emptied - started), restored, seeded };
}

/**
 * Snapshots the demo desk just seeded into an empty database (what `npm start`'s seed does, before
 * any person or agent touched it) for the resets of a server built from the same sources: `token`
 * is the hash of the sources (lib/net/source-hash.mjs), `seededAt` the seed's `now` (UTC). The
 * tables are the ones a reset empties whole.
 */
export async function snapshotSeededDesk(seededAt: Date, token: string): Promise<void> {
  const sqlite = resolveDatabaseUrl().provider === "sqlite";
  await inTransaction(async (tx) => {
    const tables = sqlite ? await sqliteTables(tx) : await postgresTables(tx);
    const keptWhole = referencedBy(Object.keys(KEEP_DEMO_ROWS), tables);
    const emptied = childrenFirst(tables)
      .map((t) => t.name)
      .filter((t) => t !== "_prisma_migrations" && !keptWhole.has(t) && !KEEP_DEMO_ROWS[t]);
    await takeDemoSnapshot(tx, sqlite, emptied, seededAt, token);
    return ok(null);
  });
}

/** Tables whose demo people's rows survive a reset, with the column that names the person. */
const KEEP_DEMO_ROWS: Record<string, string> = { user: "id", account: "userId", session: "userId" };

interface TableInfo {
  name: string;
  /** Tables this one references by foreign key. */
  parents: string[];
}

async function sqliteTables(tx: Tx): Promise<TableInfo[]> {
  const names = await tx.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  const out: TableInfo[] = [];
  for (const { name } of names) {
    if (isSnapshotTable(name)) continue;
    const fks = await tx.$queryRawUnsafe<{ table: string }[]>(`SELECT "table" FROM pragma_foreign_key_list(?)`, name);
    out.push({ name, parents: fks.map((f) => f.table) });
  }
  return out;
}

async function postgresTables(tx: Tx): Promise<TableInfo[]> {
  const names = await tx.$queryRawUnsafe<{ name: string }[]>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()");
  const fks = await tx.$queryRawUnsafe<{ child: string; parent: string }[]>(
    `SELECT tc.relname AS child, tp.relname AS parent FROM pg_constraint c
       JOIN pg_class tc ON tc.oid = c.conrelid JOIN pg_class tp ON tp.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = tc.relnamespace
      WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  return names.map(({ name }) => ({ name, parents: fks.filter((f) => f.child === name).map((f) => f.parent) }));
}

/**
 * Every table the kept tables reference, directly or through others (e.g. a desk a person belongs
 * to): kept whole, since deleting them would break the kept rows; the seed's upserts leave them be.
 */
function referencedBy(kept: readonly string[], tables: readonly TableInfo[]): Set<string> {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out = new Set<string>();
  const todo = kept.flatMap((k) => byName.get(k)?.parents ?? []);
  while (todo.length) {
    const t = todo.pop()!;
    if (out.has(t) || kept.includes(t)) continue;
    out.add(t);
    todo.push(...(byName.get(t)?.parents ?? []));
  }
  return out;
}

/** The tables ordered so that every table comes before the tables it references (a self-reference is ignored). */
export function childrenFirst(tables: readonly TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: TableInfo[] = [];
  // a parent is emitted after all its children: visit children (tables referencing it) first
  const children = new Map<string, string[]>();
  for (const t of tables) for (const p of t.parents) if (p !== t.name) (children.get(p) ?? children.set(p, []).get(p)!).push(t.name);
  const visit = (name: string, path: Set<string>) => {
    if (done.has(name) || path.has(name)) return;
    path.add(name);
    for (const c of children.get(name) ?? []) visit(c, path);
    path.delete(name);
    done.add(name);
    const t = byName.get(name);
    if (t) out.push(t);
  };
  for (const t of tables) visit(t.name, new Set());
  return out;
}

/** A demo person's seeded name, role, desk and enabled state (what a reset gives back). */
function seededPerson(u: (typeof DEMO_USERS)[number]) {
  return { name: u.name, role: u.role, desk: "desk" in u && typeof u.desk === "string" ? u.desk : "freight", disabled: false };
}

/** The demo people as seeded: name, role, desk, enabled, and exactly their seeded grants (seedDemoDesk adds grants only for new users). */
async function restoreDemoPeople(): Promise<void> {
  for (const u of DEMO_USERS) {
    const exists = await prisma.user.findUnique({ where: { id: u.id }, select: { id: true } });
    if (!exists) continue;
    await inTransaction(async (tx) => {
      await tx.user.update({ where: { id: u.id }, data: seededPerson(u) });
      await tx.grant.createMany({ data: demoGrantRows(u).map((g) => ({ ...g, userId: u.id })) });
      return ok(null);
    });
  }
}
