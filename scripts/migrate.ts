/**
 * Applies and writes Prisma migrations with the WebAssembly schema engine, because the
 * native engine the `prisma` CLI downloads cannot be fetched here (../shared/PRISMA-OFFLINE.md).
 * Applied migrations are recorded in `_prisma_migrations`, exactly like `prisma migrate deploy`.
 *
 *   tsx scripts/migrate.ts deploy            apply pending migrations to DATABASE_URL
 *   tsx scripts/migrate.ts new <name>        write prisma/migrations/<ts>_<name>/migration.sql
 *                                           from the last migration's schema snapshot to prisma/schema.prisma
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { resolveDatabaseUrl } from "../lib/server/database-url";

const ROOT = path.resolve(__dirname, "..");
const SCHEMA = path.join(ROOT, "prisma", "schema.prisma");
const MIGRATIONS = path.join(ROOT, "prisma", "migrations");
const FILTERS = { externalTables: [], externalEnums: [] };

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
 * can be closed after the engine is freed (the engine does not close them itself, and an open
 * connection would keep the SQLite file locked for the rest of this process).
 */
function sqliteFactory(url: string) {
  const inner = new PrismaBetterSqlite3({ url, timeout: 15000 });
  const opened: { dispose(): Promise<void> }[] = [];
  const tracked = {
    provider: "sqlite" as const,
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
    factory: bindMigrationAwareSqlAdapterFactory(tracked),
    dispose: async () => {
      await Promise.all(opened.splice(0).map((a) => a.dispose()));
    },
  };
}

/** Datamodel text with the datasource provider set for `provider`. */
function datamodelFor(text: string, provider: "sqlite" | "postgresql"): string {
  return text.replace(/provider\s*=\s*"(sqlite|postgresql)"/, `provider = "${provider}"`);
}

function migrationDirs(): string[] {
  if (!fs.existsSync(MIGRATIONS)) return [];
  return fs
    .readdirSync(MIGRATIONS)
    .filter((d) => fs.existsSync(path.join(MIGRATIONS, d, "migration.sql")))
    .sort();
}

/**
 * Applies every pending migration in prisma/migrations to `databaseUrl` (SQLite file URL).
 * Creates the data directory when missing. Returns the names applied (empty when up to date).
 * Errors: throws with the path and reason when the directory cannot be created or written.
 */
export async function deploy(databaseUrl = resolveDatabaseUrl().url): Promise<string[]> {
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: databaseUrl });
  if (provider !== "sqlite") throw new Error("Only SQLite migrations ship so far");
  ensureWritableDir(path.dirname(file!));
  // WAL lets readers proceed during a write; the setting persists in the file.
  const db = new Database(file!, { timeout: 15000 });
  if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
  db.close();
  const conn = sqliteFactory(`file:${file}`);
  const engine = await loadEngine(conn.factory, datamodelFor(fs.readFileSync(SCHEMA, "utf8"), provider));
  try {
    const dirs = migrationDirs();
    const out = await engine.applyMigrations({
      migrationsList: {
        baseDir: MIGRATIONS,
        lockfile: { path: "migration_lock.toml", content: fs.readFileSync(path.join(MIGRATIONS, "migration_lock.toml"), "utf8") },
        shadowDbInitScript: "",
        migrationDirectories: dirs.map((d) => ({
          path: d,
          migrationFile: {
            path: "migration.sql",
            content: { tag: "ok", value: fs.readFileSync(path.join(MIGRATIONS, d, "migration.sql"), "utf8") },
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

async function createMigration(name: string) {
  const current = fs.readFileSync(SCHEMA, "utf8");
  const dirs = migrationDirs();
  const last = dirs.at(-1);
  const prev = last ? fs.readFileSync(path.join(MIGRATIONS, last, "schema.prisma"), "utf8") : null;
  const tmp = path.join(ROOT, "data", `.diff-${process.pid}.db`);
  ensureWritableDir(path.dirname(tmp));
  const conn = sqliteFactory(`file:${tmp}`);
  const engine = await loadEngine(conn.factory, current);
  try {
    const res = await engine.diff({
      from: prev ? { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: prev }] } : { tag: "empty" },
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: current }] },
      script: true,
      exitCode: null,
      filters: FILTERS,
    });
    const sql = res.stdout ?? "";
    if (!sql.trim() || /This is an empty migration/.test(sql)) {
      console.log("No schema changes.");
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const dir = path.join(MIGRATIONS, `${stamp}_${name.replace(/\W+/g, "_")}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), sql);
    fs.writeFileSync(path.join(dir, "schema.prisma"), current);
    const lock = path.join(MIGRATIONS, "migration_lock.toml");
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, '# Do not edit by hand\nprovider = "sqlite"\n');
    console.log(`Wrote ${path.relative(ROOT, dir)}/migration.sql`);
  } finally {
    engine.free();
    await conn.dispose();
    fs.rmSync(tmp, { force: true });
  }
}

async function main() {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === "new") return createMigration(arg ?? "change");
  if (cmd === "deploy" || !cmd) {
    const applied = await deploy();
    console.log(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database is up to date.");
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
