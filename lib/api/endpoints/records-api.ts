/** Declarations of the records door: systems of record push accounts, invoices, shipments, holidays and records of the kinds a desk declared into Plandesk's local copy (docs/api-extensions.md "Records door"). */
import { z } from "zod";
import { DECLARED_KIND_NAME, envelopeShape, RECORD_KIND_NAMES, recordIdSchema } from "../../records/record-kinds";
import { storedRecordSchema } from "../../records/stored-record";
import { defineEndpoint } from "../contract";

const INTEGRATION = { kind: "integration", scope: "records" } as const;
/** A kind as the door's paths and lines name it: a built-in kind or a kind the desk declared (lower-case letters, digits and `_`). */
const kindSchema = z
  .string()
  .regex(DECLARED_KIND_NAME, "A kind is lower-case letters, digits and _")
  .meta({ description: `A built-in kind (${RECORD_KIND_NAMES.join(", ")}) or a kind an admin declared for the desk (PUT /api/admin/desks/{deskId}/record-kinds/{kind}).` });
/** `{kind, id}` path params: a kind the door accepts for the desk (another is 404) and a record id. */
const recordParams = z.object({ kind: kindSchema, id: recordIdSchema });
/** `?desk=`: the desk the records belong to; required of a key bound to no desk, and only its own desk for a bound key. */
const deskQuery = { desk: z.string().min(1).max(64).optional() };
const WHO =
  "Needs an integration key (an agent key is refused, 403). A desk-bound key reaches only its desk's records (another desk's record is 404, the same as a missing one); a key bound to no desk names the desk with ?desk= (400 without, 422 unknown_desk for a desk that does not exist). Ids are per desk: two desks may each hold an account, invoice, shipment, holiday or declared-kind record of one id, independently.";

/** `PUT /api/v1/records/{kind}/{id}`: a system of record writes one record (integration key; docs/api-extensions.md "Records door"). */
export const putRecordEndpoint = defineEndpoint({
  id: "putRecord",
  method: "PUT",
  path: "/api/v1/records/{kind}/{id}",
  summary: "A system of record sends a version of one record (account, invoice, shipment, holiday or a kind declared for the desk); only a newer source version changes it",
  description: `${WHO} The body is the kind's fields plus sourceVersion (a non-negative safe integer) and sourceUpdatedAt (ISO-8601 UTC); an unknown field is refused (invalid_record). A declared kind's fields are validated against the desk's current declaration; its owner must be a live record of this desk (unknown_account, unknown_owner). A kind the desk neither has built in nor declared is 404. A version not newer than the stored one changes nothing: 200 {applied: false, reason: "not_newer"}. Another desk's record of the same id is neither read nor changed (this desk's put writes its own). 409 record_id_taken is no longer returned (holiday ids are per desk too); it stays listed so clients that handle it keep compiling.`,
  caller: INTEGRATION,
  params: recordParams,
  query: z.object(deskQuery),
  // checked by the kind's schema in the service (typed invalid_record), not here
  body: z.record(z.string(), z.unknown()).describe("The kind's fields (see docs/api-extensions.md \"Records door\") plus sourceVersion and sourceUpdatedAt"),
  success: {
    status: [200],
    schema: z.object({ record: storedRecordSchema, applied: z.boolean(), reason: z.literal("not_newer").optional() }),
    description: "{record, applied, reason?}",
  },
  // record_id_taken: no longer returned (every kind's ids are per desk); listed because the published contract lists it
  refusals: ["not_found", "invalid_record", "currency_mismatch", "unknown_account", "unknown_owner", "record_id_taken", "unknown_desk"],
});

/** `DELETE /api/v1/records/{kind}/{id}`: a tombstone at the source's version (integration key). */
export const deleteRecordEndpoint = defineEndpoint({
  id: "deleteRecord",
  method: "DELETE",
  path: "/api/v1/records/{kind}/{id}",
  summary: "A system of record deleted a record: Plandesk keeps a tombstone (a decision treats it as absent) unless a newer version is stored",
  description: `${WHO} The version and time go in the query: ?sourceVersion=&sourceUpdatedAt=. A later, newer PUT revives the record. A record this desk does not have is 404.`,
  caller: INTEGRATION,
  params: recordParams,
  query: z.object({ ...deskQuery, sourceVersion: z.string().max(20), sourceUpdatedAt: z.string().max(40) }),
  success: {
    status: [200],
    schema: z.object({ record: storedRecordSchema, applied: z.boolean(), reason: z.literal("not_newer").optional() }),
    description: "{record, applied, reason?}",
  },
  refusals: ["not_found", "invalid_record", "unknown_desk"],
});

/** `GET /api/v1/records/{kind}/{id}`: the stored record with its source version and sync time (integration key). */
export const getRecordEndpoint = defineEndpoint({
  id: "getRecord",
  method: "GET",
  path: "/api/v1/records/{kind}/{id}",
  summary: "The record as Plandesk holds it, with its source version and time, when it was synced, and its tombstone",
  description: WHO,
  caller: INTEGRATION,
  params: recordParams,
  query: z.object(deskQuery),
  success: { status: [200], schema: z.object({ record: storedRecordSchema }), description: "{record}" },
  refusals: ["not_found", "unknown_desk"],
});

/** One line of a batch: a record with its kind and id, `op` put (default) or delete. */
export const batchLineSchema = z.looseObject({
  kind: kindSchema,
  id: recordIdSchema,
  op: z.enum(["put", "delete"]).optional(),
  ...envelopeShape,
});

/** `POST /api/v1/records/batch`: NDJSON records streamed, answered per line (integration key). */
export const recordBatchEndpoint = defineEndpoint({
  id: "syncRecordBatch",
  method: "POST",
  path: "/api/v1/records/batch",
  summary: "A system of record sends many records at once: one JSON record per line (NDJSON), read as a stream, each line answered on its own",
  description: `${WHO} Content-Type: application/x-ndjson. Each line is {kind, id, op?: "put"|"delete", sourceVersion, sourceUpdatedAt, ...fields}; lines of at most 64 KiB; the body is bounded by PLANDESK_RECORDS_BATCH_MAX_BYTES (default 256 MiB; past it reading stops, the answer says where). A bad line gets its typed error and writes nothing; the good lines land. One records_synced audit event per batch.`,
  caller: INTEGRATION,
  query: z.object(deskQuery),
  streamBody: { contentType: "application/x-ndjson", lineSchema: batchLineSchema, description: "One record per line" },
  success: {
    status: [200],
    schema: z.object({
      lines: z.number().int(),
      applied: z.number().int(),
      ignored: z.number().int(),
      errors: z.array(z.object({ line: z.number().int(), code: z.string(), message: z.string(), path: z.string().optional() })),
      moreErrors: z.number().int(),
      stoppedAtBytes: z.number().int().optional(),
    }),
    description: "{lines, applied, ignored, errors: [{line, code, message, path?}] (at most 100), moreErrors, stoppedAtBytes?}",
  },
  refusals: ["not_found", "unknown_desk"],
});
