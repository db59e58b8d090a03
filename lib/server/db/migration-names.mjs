// The names of the migrations a checkout carries, per dialect: one listing for the migrator
// (scripts/migrate.ts), the build (next.config.mjs bakes them into the server bundle as
// PLANDESK_BUILD_MIGRATIONS, so a running build compares the database with the migrations it was
// built with) and the readiness probe (lib/server/health/probe-readiness.ts). Plain JavaScript:
// next.config.mjs loads it before anything is compiled.
import fs from "node:fs";
import path from "node:path";

/** Where each dialect's migration history lives, relative to the checkout's root. */
export const MIGRATION_DIRS = { sqlite: path.join("prisma", "migrations"), postgresql: path.join("prisma", "postgresql", "migrations") };

/**
 * Names of the migrations in `dir` (folders holding a `migration.sql`), oldest first (their names
 * start with a UTC stamp); `[]` when the folder does not exist.
 */
export function migrationNames(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((d) => fs.existsSync(path.join(dir, d, "migration.sql")))
    .sort();
}

/** `{sqlite: [...], postgresql: [...]}`: the migration names of both dialects under the checkout `root`. */
export function carriedMigrations(root) {
  return { sqlite: migrationNames(path.join(root, MIGRATION_DIRS.sqlite)), postgresql: migrationNames(path.join(root, MIGRATION_DIRS.postgresql)) };
}
