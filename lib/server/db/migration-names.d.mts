/** Types of migration-names.mjs (plain JavaScript so next.config.mjs loads it uncompiled). */

/** Where each dialect's migration history lives, relative to the checkout's root. */
export declare const MIGRATION_DIRS: { readonly sqlite: string; readonly postgresql: string };
/** Names of the migrations in `dir` (folders holding a `migration.sql`), oldest first; `[]` when the folder does not exist. */
export declare function migrationNames(dir: string): string[];
/** The migration names of both dialects under the checkout `root`. */
export declare function carriedMigrations(root: string): { sqlite: string[]; postgresql: string[] };
