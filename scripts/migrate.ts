/**
 * Applies and writes Prisma migrations with the WebAssembly schema engine, because the
 * native engine the `prisma` CLI downloads cannot be fetched here (CONTRIBUTING.md, "Database changes", says how the WebAssembly engine is used).
 * Applied migrations are recorded in `_prisma_migrations`, exactly like `prisma migrate deploy`.
 *
 * One source schema (prisma/schema.prisma), one migration history per dialect:
 *   SQLite      prisma/migrations/<stamp>_<name>/            (migration.sql + schema.prisma snapshot)
 *   PostgreSQL  prisma/postgresql/migrations/<stamp>_<name>/ (same names, same snapshots, PostgreSQL SQL)
 * Each dialect's next migration is the engine's diff from that dialect's last snapshot to the
 * current schema, with the datasource provider set for the dialect.
 *
 *   tsx scripts/migrate.ts deploy        apply pending migrations of DATABASE_URL's dialect
 *   tsx scripts/migrate.ts new <name>    write the next migration of BOTH dialects (same stamp and name)
 *   tsx scripts/migrate.ts sync          write the PostgreSQL migration of every SQLite migration that
 *                                        has none yet (a schema change made on a branch before this
 *                                        tooling, or by hand): diff between the SQLite migrations' snapshots
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { resolveDatabaseUrl } from "../lib/server/db/database-url";
import { postgresDatamodel } from "./prisma-schemas.mjs";
import { migrationNames } from "../lib/server/db/migration-names.mjs";

const ROOT = path.resolve(__dirname, "..");
const SCHEMA = path.join(ROOT, "prisma", "schema.prisma");
const FILTERS = { externalTables: [], externalEnums: [] };

/** A database dialect Plandesk ships migrations for. */
export type Dialect = "sqlite" | "postgresql";
/** Where each dialect's migration history lives. */
export const MIGRATIONS: Record<Dialect, string> = {
  sqlite: path.join(ROOT, "prisma", "migrations"),
  postgresql: path.join(ROOT, "prisma", "postgresql", "migrations"),
};

type Engine = {
  diff(p: unknown): Promise<{ exitCode: number; stdout: string | null }>;
  applyMigrations(p: unknown): Promise<{ appliedMigrationNames: string[] }>;
  free(): void;
};

type WasmBindings = { SchemaEngine: { new: (o: unknown, log: () => void, f: object) => Promise<Engine> } };
let bindings: Promise<WasmBindings> | null = null;

/** Instantiates the WebAssembly schema engine once per process (its JS glue keeps module state). */
function loadBindings(): Promise<WasmBindings> {
  bindings ??= (async () => {
    const require = createRequire(__filename);
    const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
    const bg = await import(pathToFileURL(path.join(pkgDir, "schema_engine_bg.js")).href);
    const bytes = fs.readFileSync(path.join(pkgDir, "schema_engine_bg.wasm"));
    const wasmModule = await WebAssembly.compile(bytes);
    const imports: Record<string, Record<string, unknown>> = {};
    for (const imp of WebAssembly.Module.imports(wasmModule)) {
      imports[imp.module] ??= {};
      imports[imp.module][imp.name] = bg[imp.name];
    }
    const instance = await WebAssembly.instantiate(wasmModule, imports as WebAssembly.Imports);
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
    return bg as WasmBindings;
  })();
  return bindings;
}

async function loadEngine(adapterFactory: object, datamodel: string): Promise<Engine> {
  const bg = await loadBindings();
  return bg.SchemaEngine.new({ datamodels: [["schema.prisma", datamodel]] }, () => {}, adapterFactory);
}

/**
 * A driver-adapter factory for the engine that remembers the connections it opened, so they
 * can be closed after the engine is freed (the engine does not close them itself; an open
 * connection would keep the SQLite file locked, or a PostgreSQL connection busy, for the rest
 * of this process).
 */
function trackedFactory(inner: SqlMigrationAwareDriverAdapterFactory) {
  const opened: { dispose(): Promise<void> }[] = [];
  const tracked = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => {
      const a = await inner.connect();
      opened.push(a);
      return a;
    },
    connectToShadowDb: async () => {
      const a = await inner.connectToShadowDb();
      opened.push(a);
      return a;
    },
  };
  return {
    factory: bindMigrationAwareSqlAdapterFactory(tracked as SqlMigrationAwareDriverAdapterFactory),
    dispose: async () => {
      await Promise.all(opened.splice(0).map((a) => a.dispose()));
    },
  };
}

/**
 * `@prisma/adapter-pg` runs a script by splitting it at every ";" — also inside comments and
 * function bodies (`$$ … $$`), which breaks hand-written SQL such as the audit trigger. This sends
 * each migration script to PostgreSQL whole instead (the simple query protocol runs several
 * statements, as one implicit transaction, so a failing migration leaves nothing half-applied).
 */
function wholeScripts(inner: PrismaPg): SqlMigrationAwareDriverAdapterFactory {
  const patch = <A extends Awaited<ReturnType<PrismaPg["connect"]>>>(adapter: A): A => {
    const onError = (adapter as unknown as { onError(e: unknown): never }).onError.bind(adapter);
    adapter.executeScript = async (script: string) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (e) {
        onError(e);
      }
    };
    return adapter;
  };
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => patch(await inner.connect()),
    connectToShadowDb: async () => patch(await inner.connectToShadowDb()),
  };
}

/**
 * A connection for the engine's `diff` between two schema texts, which reads no database but
 * opens a connection when the engine starts: it answers every query with no rows and logs what
 * it was asked (PLANDESK_MIGRATE_DEBUG=1), so writing migrations needs no database server.
 */
function offlineFactory(dialect: Dialect) {
  const provider = dialect === "sqlite" ? "sqlite" : "postgres";
  const debug = process.env.PLANDESK_MIGRATE_DEBUG === "1";
  const empty = { columnNames: [], columnTypes: [], rows: [] };
  const adapter = {
    provider,
    adapterName: "plandesk-offline",
    queryRaw: async (q: { sql: string }) => {
      if (debug) console.error(`offline query: ${q.sql}`);
      return empty;
    },
    executeRaw: async (q: { sql: string }) => {
      if (debug) console.error(`offline execute: ${q.sql}`);
      return 0;
    },
    executeScript: async () => {
      throw new Error("the schema diff tried to change a database");
    },
    startTransaction: async () => {
      throw new Error("the schema diff tried to open a transaction");
    },
    getConnectionInfo: () => ({ schemaName: dialect === "postgresql" ? "public" : undefined, supportsRelationJoins: false }),
    dispose: async () => {},
  };
  return {
    factory: bindMigrationAwareSqlAdapterFactory({
      provider,
      adapterName: "plandesk-offline",
      connect: async () => adapter,
      connectToShadowDb: async () => adapter,
    } as unknown as SqlMigrationAwareDriverAdapterFactory),
    dispose: async () => {},
  };
}

/**
 * The datamodel of source schema text `text` for `dialect`: SQLite as written; PostgreSQL with the
 * provider swapped and Json fields as `json` (`postgresDatamodel`, the same rewrite as the client's).
 */
export function datamodelFor(text: string, dialect: Dialect): string {
  return dialect === "postgresql" ? postgresDatamodel(text) : text.replace(/provider\s*=\s*"(sqlite|postgresql)"/, 'provider = "sqlite"');
}

/** Names of the migrations of `dialect`, oldest first. */
export function migrationDirs(dialect: Dialect): string[] {
  return migrationNames(MIGRATIONS[dialect]);
}

/**
 * Applies every pending migration of DATABASE_URL's dialect to `databaseUrl`: a SQLite file URL
 * (prisma/migrations; the data directory is created when missing and the file put in WAL mode)
 * or a PostgreSQL URL (prisma/postgresql/migrations; the database must exist). Returns the names
 * applied (empty when up to date). `opts.through`: only the migrations up to and including the one
 * of that name (tests: a database as an older release left it, with data, before a data migration).
 * Errors: throws with the path and reason when the SQLite data directory cannot be created or
 * written; throws the engine's message when a migration fails (it is then recorded as failed).
 */
export async function deploy(databaseUrl = resolveDatabaseUrl().url, opts: { through?: string } = {}): Promise<string[]> {
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: databaseUrl });
  let conn: ReturnType<typeof trackedFactory>;
  if (provider === "sqlite") {
    ensureWritableDir(path.dirname(file!));
    // WAL lets readers proceed during a write; the setting persists in the file.
    const db = new Database(file!, { timeout: 15000 });
    if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
    db.close();
    conn = trackedFactory(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 15000 }));
  } else {
    await ensurePostgresDatabase(databaseUrl);
    conn = trackedFactory(wholeScripts(new PrismaPg({ connectionString: databaseUrl, max: 2 })));
  }
  const dir = MIGRATIONS[provider];
  const engine = await loadEngine(conn.factory, datamodelFor(fs.readFileSync(SCHEMA, "utf8"), provider));
  try {
    const out = await engine.applyMigrations({
      migrationsList: {
        baseDir: dir,
        lockfile: { path: "migration_lock.toml", content: fs.readFileSync(path.join(dir, "migration_lock.toml"), "utf8") },
        shadowDbInitScript: "",
        migrationDirectories: migrationDirs(provider).filter((d) => opts.through === undefined || d <= opts.through).map((d) => ({
          path: d,
          migrationFile: {
            path: "migration.sql",
            content: { tag: "ok", value: fs.readFileSync(path.join(dir, d, "migration.sql"), "utf8") },
          },
        })),
      },
      filters: FILTERS,
    });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
    await conn.dispose();
  }
}

/**
 * Id prefix searches and keyset cursors compare strings; Plandesk expects byte order (what SQLite
 * does), i.e. a database created with the C or C.UTF-8 collation. Prints a warning otherwise.
 * A database that does not exist yet is created (in C.UTF-8) through the server's `postgres`
 * database, so `npm start` with a fresh PostgreSQL URL works; creating needs the CREATEDB right.
 */
async function ensurePostgresDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (e) {
    if ((e as { code?: string }).code !== "3D000") throw e; // 3D000: database does not exist
    await createDatabase(url);
    return ensurePostgresDatabase(url);
  }
  try {
    const { rows } = await client.query<{ datcollate: string }>("SELECT datcollate FROM pg_database WHERE datname = current_database()");
    const collation = rows[0]?.datcollate ?? "";
    if (!/^(C|POSIX|C\.UTF-?8)$/i.test(collation)) {
      console.warn(
        `migrate: the database collation is ${collation}; Plandesk expects C or C.UTF-8 (byte order) so id prefix search matches SQLite. ` +
          "Create the database with: CREATE DATABASE plandesk TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'",
      );
    }
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` (byte-order collation) through the server's maintenance database. */
async function createDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    console.log(`migrate: creating database ${name}`);
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
  } catch (e) {
    if ((e as { code?: string }).code !== "42P04") throw e; // created meanwhile by another instance
  } finally {
    await client.end();
  }
}

/** Throws a message naming `dir` and the reason when it cannot be created or written. */
export function ensureWritableDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new Error(`The data directory ${dir} is not writable (${reason}). Create it or set DATABASE_URL.`);
  }
}

/**
 * The SQL that takes a `dialect` database from schema text `from` (null: empty database) to
 * schema text `to` (both in the source form; the provider is set here). Empty string when the
 * two describe the same tables. Needs no database.
 */
export async function diffSql(dialect: Dialect, from: string | null, to: string): Promise<string> {
  const conn = offlineFactory(dialect);
  const target = datamodelFor(to, dialect);
  const engine = await loadEngine(conn.factory, target);
  try {
    const res = await engine.diff({
      from: from === null ? { tag: "empty" } : { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: datamodelFor(from, dialect) }] },
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: target }] },
      script: true,
      exitCode: null,
      filters: FILTERS,
    });
    // The offline connection reports no schemas, so a diff from empty adds a CREATE SCHEMA of "public" that exists anyway.
    const sql = (res.stdout ?? "").replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/, "");
    return !sql.trim() || /This is an empty migration/.test(sql) ? "" : sql;
  } finally {
    engine.free();
  }
}

/** The schema snapshot stored with migration `name` of `dialect`, or null when there is none. */
function snapshot(dialect: Dialect, name: string | undefined): string | null {
  if (!name) return null;
  const file = path.join(MIGRATIONS[dialect], name, "schema.prisma");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
}

/** Writes one migration directory (SQL + the source schema snapshot) and the lock file if missing. */
function writeMigration(dialect: Dialect, name: string, sql: string, schema: string): string {
  const dir = path.join(MIGRATIONS[dialect], name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "migration.sql"), sql);
  fs.writeFileSync(path.join(dir, "schema.prisma"), schema);
  const lock = path.join(MIGRATIONS[dialect], "migration_lock.toml");
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, `# Do not edit by hand\nprovider = "${dialect}"\n`);
  return path.relative(ROOT, dir);
}

/**
 * `new <name>`: the next migration of both dialects from prisma/schema.prisma, each diffed from
 * that dialect's last snapshot, under one `<stamp>_<name>`. Writes nothing when neither changed.
 * Returns the directories written.
 */
export async function createMigration(name: string, now = new Date()): Promise<string[]> {
  await syncPostgres(true); // both histories name the same migrations before the next one is added
  const current = fs.readFileSync(SCHEMA, "utf8");
  const sql: Record<Dialect, string> = { sqlite: "", postgresql: "" };
  for (const dialect of ["sqlite", "postgresql"] as const) {
    sql[dialect] = await diffSql(dialect, snapshot(dialect, migrationDirs(dialect).at(-1)), current);
  }
  if (!sql.sqlite && !sql.postgresql) {
    console.log("No schema changes.");
    return [];
  }
  const dirName = `${now.toISOString().replace(/\D/g, "").slice(0, 14)}_${name.replace(/\W+/g, "_")}`;
  const written = (["sqlite", "postgresql"] as const).map((d) =>
    writeMigration(d, dirName, sql[d] || `-- No change on ${d}: the schema change only affects the other dialect.\n`, current),
  );
  for (const w of written) console.log(`Wrote ${w}/migration.sql`);
  return written;
}

/**
 * `sync`: for every SQLite migration that has no PostgreSQL migration of the same name (oldest
 * first), writes one: the PostgreSQL diff between the previous SQLite migration's snapshot and
 * this one's. A SQLite migration whose SQL is not what its snapshots imply (hand-written SQL, such
 * as triggers) is reported: its PostgreSQL counterpart gets the schema part only, plus a comment,
 * and must be completed by hand. Returns the directories written.
 */
export async function syncPostgres(quiet = false): Promise<string[]> {
  const sqlite = migrationDirs("sqlite");
  const have = new Set(migrationDirs("postgresql"));
  const written: string[] = [];
  for (let i = 0; i < sqlite.length; i++) {
    const name = sqlite[i];
    if (have.has(name)) continue;
    const to = snapshot("sqlite", name);
    if (to === null) throw new Error(`prisma/migrations/${name} has no schema.prisma snapshot; write its PostgreSQL migration by hand`);
    const from = snapshot("sqlite", sqlite[i - 1]);
    const expected = await diffSql("sqlite", from, to);
    const actual = fs.readFileSync(path.join(MIGRATIONS.sqlite, name, "migration.sql"), "utf8");
    let sql = await diffSql("postgresql", from, to);
    if (expected.trim() !== actual.trim()) {
      console.warn(`sync: prisma/migrations/${name}/migration.sql has SQL beyond the schema diff; add its PostgreSQL equivalent by hand.`);
      sql = `-- TODO: prisma/migrations/${name}/migration.sql has hand-written SQL; add its PostgreSQL equivalent here.\n${sql}`;
    }
    const w = writeMigration("postgresql", name, sql || "-- No schema change on PostgreSQL.\n", to);
    console.log(`Wrote ${w}/migration.sql`);
    written.push(w);
  }
  if (!written.length && !quiet) console.log("Every SQLite migration has its PostgreSQL migration.");
  return written;
}

async function main() {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === "new") return void (await createMigration(arg ?? "change"));
  if (cmd === "sync") return void (await syncPostgres());
  if (cmd === "deploy" || !cmd) {
    const applied = await deploy();
    console.log(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database is up to date.");
    // Data the new schema expects of rows written before it (run_step of older runs).
    const { prisma } = await import("../lib/server/db/db");
    const { backfillRunSteps } = await import("../lib/server/ownership/backfill-run-steps");
    try {
      const runs = await backfillRunSteps();
      if (runs) console.log(`Backfilled the queue's step rows of ${runs} run${runs === 1 ? "" : "s"}.`);
    } finally {
      await prisma.$disconnect();
    }
    return;
  }
  throw new Error(`Unknown command ${cmd}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  main().catch((e) => {
    console.error(`migrate: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
