import { z } from "zod";
import { deskIdSchema } from "../desk/desks";
import { RECORD_ROLE_NAMES, storedRolesSchema } from "../records/record-kind-declaration";
import { defineEndpoint } from "./contract";
import { ADMIN } from "./endpoints/common";

/*
 * The record kinds a desk declares as data (lib/records/record-kind-declaration.ts,
 * docs/api-extensions.md "Declared record kinds"): an admin reads a desk's kinds and one kind's
 * version history, and saves a kind's next version. Declared once like every endpoint
 * (lib/api/contract.ts); listed in ENDPOINTS (lib/api/endpoints.ts).
 */

/** The body of a save: the fields' JSON Schema, the roles, the version the editor read (0: a new kind) and why. */
export const recordKindDraftSchema = z
  .object({
    schema: z.record(z.string(), z.unknown()).meta({ description: "The JSON Schema of a record's fields: {type: \"object\", properties, required}; an object without additionalProperties is closed." }),
    roles: z
      .record(z.string(), z.unknown())
      .default({})
      .meta({ description: `The roles Plandesk reasons with (${RECORD_ROLE_NAMES.join(", ")}): owner "<field>" | {field, kind?}, balance {available, currency}, status {field, closedValues}, window {start, end}, title "<field>" | {field}.` }),
    baseVersion: z.number().int().min(0).meta({ description: "The kind's version the editor read; 0 for a kind not declared yet (409 stale_record_kind otherwise)." }),
    note: z.string().trim().min(1, "Say why the kind changes.").max(500),
  })
  .strict();
/** A parsed {@link recordKindDraftSchema}. */
export type RecordKindDraft = z.output<typeof recordKindDraftSchema>;

const person = z.object({ id: z.string(), name: z.string() }).nullable();

/** One declared kind as the admin API shows it: its current version, fields' schema, roles, who saved it, when (ISO UTC) and why. */
export const recordKindViewSchema = z
  .object({
    desk: z.string(),
    kind: z.string(),
    version: z.number().int(),
    schema: z.record(z.string(), z.unknown()),
    roles: storedRolesSchema,
    note: z.string(),
    savedBy: person,
    savedAt: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: "RecordKind" });
/** A parsed {@link recordKindViewSchema}. */
export type RecordKindView = z.output<typeof recordKindViewSchema>;

/** One saved version of a kind, as its history lists it (newest first). */
export const recordKindVersionViewSchema = z.object({
  version: z.number().int(),
  schema: z.record(z.string(), z.unknown()),
  roles: storedRolesSchema,
  note: z.string(),
  savedBy: person,
  savedAt: z.string(),
});
/** A parsed {@link recordKindVersionViewSchema}. */
export type RecordKindVersionView = z.output<typeof recordKindVersionViewSchema>;

/** A desk's declared kinds: the desk, the built-in kinds every desk has, and its declared kinds by name. */
export const recordKindListSchema = z.object({
  desk: z.object({ id: z.string(), name: z.string() }),
  builtIn: z.array(z.string()),
  kinds: z.array(recordKindViewSchema),
});
/** A parsed {@link recordKindListSchema}. */
export type RecordKindList = z.output<typeof recordKindListSchema>;

/** One kind with its history: `inUse` says whether records of it exist on the desk (then no role may be removed or moved). */
export const recordKindDetailSchema = z.object({
  kind: recordKindViewSchema,
  inUse: z.boolean(),
  versions: z.array(recordKindVersionViewSchema),
});
/** A parsed {@link recordKindDetailSchema}. */
export type RecordKindDetail = z.output<typeof recordKindDetailSchema>;

const deskParams = z.object({ deskId: deskIdSchema });
/** A kind in a path: any short name (one that is not a valid kind name is refused by the save with `invalid_kind_name`, and found by no read). */
/** A kind as a path segment: 1–64 characters without control characters (a malformed one is 404); whether it can name a kind is the declaration check's (422 `invalid_kind_name`). */
const kindParams = z.object({ deskId: deskIdSchema, kind: z.string().min(1).max(64).regex(/^[^\u0000-\u001f\u007f]+$/, "A kind has no control characters") });

export const listRecordKindsEndpoint = defineEndpoint({
  id: "listRecordKinds",
  method: "GET",
  path: "/api/admin/desks/{deskId}/record-kinds",
  summary: "The record kinds a desk declared (their current versions), with the built-in kinds every desk has",
  caller: ADMIN,
  params: deskParams,
  success: { status: [200], schema: recordKindListSchema, description: "{desk, builtIn, kinds}" },
  refusals: ["not_found"],
});

export const getRecordKindEndpoint = defineEndpoint({
  id: "getRecordKind",
  method: "GET",
  path: "/api/admin/desks/{deskId}/record-kinds/{kind}",
  summary: "One declared record kind of a desk with its version history (newest first, at most 100)",
  caller: ADMIN,
  params: kindParams,
  success: { status: [200], schema: recordKindDetailSchema, description: "{kind, inUse, versions}" },
  refusals: ["not_found"],
});

export const saveRecordKindEndpoint = defineEndpoint({
  id: "saveRecordKind",
  method: "PUT",
  path: "/api/admin/desks/{deskId}/record-kinds/{kind}",
  summary: "Declare a record kind on a desk, or save its next version (audited); its records then arrive through the records door",
  description:
    "`baseVersion` must be the kind's current version (0 for a new kind; 409 `stale_record_kind` {version, savedBy, savedAt} otherwise). A declaration that cannot be used is 422 `validation_failed` {issues: [{path, code, message}]}, codes: invalid_kind_name, reserved_kind_name, invalid_schema, reserved_field, unknown_role, invalid_role, missing_field, wrong_field_type, optional_field, unknown_owner_kind, unowned_owner_kind, circular_owner, owner_chain_too_long, role_in_use (records of the kind exist, or another kind's owner names it). Nothing is saved on any refusal.",
  caller: ADMIN,
  params: kindParams,
  body: recordKindDraftSchema,
  success: { status: [200], schema: recordKindDetailSchema, description: "{kind, inUse, versions}" },
  refusals: ["not_found", "stale_record_kind", "validation_failed"],
});
