/** The PostgreSQL variant of the source schema text (see prisma-schemas.mjs). */
export function postgresVariant(source: string): string;
/** Writes prisma/postgresql/schema.prisma when its content changed; returns its path. */
export function writePostgresSchema(): string;
/** The datamodel of the source schema text for PostgreSQL: provider swapped, Json fields as `json` (see prisma-schemas.mjs). */
export function postgresDatamodel(source: string): string;
