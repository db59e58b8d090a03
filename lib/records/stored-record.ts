import { z } from "zod";
import { RECORD_KIND_NAMES } from "./record-kinds";

/**
 * A record as Plandesk holds it (the records door's GET and its PUT/DELETE answers): its kind,
 * id and desk, its fields as stored (the kind's fields, lib/records/record-kinds.ts), the source's
 * version and time (null for a record written before the door), when Plandesk last applied a
 * version (`syncedAt`, UTC; null likewise) and the tombstone (`deletedAt`: when the source deleted
 * it, null while it lives). Times are ISO-8601 UTC.
 */
export const storedRecordSchema = z.object({
  kind: z.enum(RECORD_KIND_NAMES as [string, ...string[]]),
  id: z.string(),
  desk: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()),
  sourceVersion: z.number().int().nullable(),
  sourceUpdatedAt: z.string().nullable(),
  syncedAt: z.string().nullable(),
  deletedAt: z.string().nullable(),
});
/** See {@link storedRecordSchema}. */
export type StoredRecord = z.output<typeof storedRecordSchema>;
