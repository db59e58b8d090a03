import { z } from "zod";

/**
 * A record as Plandesk holds it (the records door's GET and its PUT/DELETE answers): its kind
 * (a built-in one or one the desk declared), id and desk, its fields as stored (the kind's fields,
 * lib/records/record-kinds.ts, or its declaration's; then `kindVersion`, the declaration version
 * they were validated against), the source's
 * version and time (null for a record written before the door), when Plandesk last applied a
 * version (`syncedAt`, UTC; null likewise) and the tombstone (`deletedAt`: when the source deleted
 * it, null while it lives). Times are ISO-8601 UTC.
 */
export const storedRecordSchema = z.object({
  kind: z.string(),
  id: z.string(),
  desk: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()),
  kindVersion: z.number().int().optional().meta({ description: "A declared kind's record: the version of the desk's declaration its fields were validated against." }),
  sourceVersion: z.number().int().nullable(),
  sourceUpdatedAt: z.string().nullable(),
  syncedAt: z.string().nullable(),
  deletedAt: z.string().nullable(),
});
/** See {@link storedRecordSchema}. */
export type StoredRecord = z.output<typeof storedRecordSchema>;
