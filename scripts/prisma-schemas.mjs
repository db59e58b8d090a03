#!/usr/bin/env node
// Writes the PostgreSQL variant of the one source schema (prisma/schema.prisma) to
// prisma/postgresql/schema.prisma: the same models with `provider = "postgresql"` and the client
// generated to lib/generated/prisma-pg. Prisma 7's generated client is provider-specific (a
// client built for SQLite refuses a PostgreSQL driver adapter), so `npm run db:generate` builds
// both clients from the one source; app code imports the SQLite client's types and lib/server/db/db.ts
// picks the client that matches DATABASE_URL. The written file is derived: never edit it.
// Plain Node (no dependencies): it runs in postinstall.
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/**
 * The datamodel of `source` for PostgreSQL: provider "postgresql", and every `Json` field stored as
 * `json` (`@db.Json`), not Prisma's default `jsonb`. `json` keeps the text as written — object key
 * order included — like SQLite does, so an idempotent replay, a saved plan or an audit event reads
 * back exactly as it was stored on both databases (jsonb would re-order keys). Plandesk never
 * filters inside JSON (the facts it queries are columns), so jsonb's operators are not needed.
 * Used for the generated client and by scripts/migrate.ts for every PostgreSQL diff.
 */
export function postgresDatamodel(source) {
  return source
    .replace(/provider\s*=\s*"(sqlite|postgresql)"/, 'provider = "postgresql"')
    .replace(/^(\s+\w+\s+Json\??)(?![^\n]*@db\.)/gm, "$1 @db.Json");
}

/**
 * The PostgreSQL variant of `source` (the text of prisma/schema.prisma): `postgresDatamodel`, the
 * generator's output moved to lib/generated/prisma-pg (relative to prisma/postgresql/).
 * Throws when the source has no `provider = "sqlite"` datasource or no generator output (the
 * rewrite would silently produce a wrong client).
 */
export function postgresVariant(source) {
  const datasource = /(datasource\s+db\s*\{[^}]*?provider\s*=\s*)"sqlite"/;
  const output = /(generator\s+client\s*\{[^}]*?output\s*=\s*)"\.\.\/lib\/generated\/prisma"/;
  if (!datasource.test(source)) throw new Error('prisma/schema.prisma: expected a datasource db with provider = "sqlite"');
  if (!output.test(source)) throw new Error('prisma/schema.prisma: expected generator client with output = "../lib/generated/prisma"');
  return (
    "// GENERATED from prisma/schema.prisma by scripts/prisma-schemas.mjs — do not edit.\n" +
    postgresDatamodel(source.replace(output, '$1"../../lib/generated/prisma-pg"'))
  );
}

/** Writes prisma/postgresql/schema.prisma when its content changed; returns its path. */
export function writePostgresSchema() {
  const target = path.join(root, "prisma", "postgresql", "schema.prisma");
  const text = postgresVariant(fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8"));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== text) fs.writeFileSync(target, text);
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  writePostgresSchema();
}
