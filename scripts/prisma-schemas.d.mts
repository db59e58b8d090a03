/** The PostgreSQL variant of the source schema text (see prisma-schemas.mjs). */
export function postgresVariant(source: string): string;
/** Writes prisma/postgresql/schema.prisma when its content changed; returns its path. */
export function writePostgresSchema(): string;
