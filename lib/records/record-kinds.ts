import { z } from "zod";
import { SHIPMENT_STATUSES } from "../desk/snapshot";
import { currencySchema, MAX_MONEY_MINOR } from "../money/money";

/*
 * The records door's kinds (docs/design.md "Systems of record: the one door"): what a system of
 * record may push into Plandesk's local copy — the built-in kinds, one table of kind → field
 * schema, and the kinds a desk declares as data (lib/records/record-kind-declaration.ts, whose
 * records' envelopes are read here and fields in lib/records/declared-records.ts). Plain data and
 * zod schemas, no I/O (lib/server/records/apply-records.ts writes them). Dates are ISO
 * `YYYY-MM-DD`, times ISO-8601 UTC, money integer minor units.
 */

/** A record id as the API names it: 1–200 characters of letters, digits and `._:~-`, starting with a letter or digit (e.g. `in_74119`). */
export const recordIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:~-]*$/, "A record id is letters, digits and . _ : ~ - (starting with a letter or digit)");

/** An ISO calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
const isoDate = z.iso.date();

/** Non-empty text of at most `max` characters. */
const text = (max: number) => z.string().min(1).max(max);

/** An amount in minor units a money column holds (0 … MAX_MONEY_MINOR). */
const minor = z.number().int().min(0).max(MAX_MONEY_MINOR);

/** The envelope every put and delete carries: the source's version (a non-negative safe integer) and when the source changed the record (ISO-8601 UTC, `Z`). */
export const envelopeShape = {
  sourceVersion: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  sourceUpdatedAt: z.iso.datetime({ offset: false }),
};

/** A customer account; its desk is the desk the records are sent for (the key's, or `?desk=`). */
const accountFields = z.strictObject({ name: text(200), tags: z.array(text(64)).max(50).optional() });

/** An invoice of an account on the same desk; `openMinor` ≤ `totalMinor`; fees in the invoice's currency. */
const invoiceFields = z
  .strictObject({
    accountId: recordIdSchema,
    status: z.enum(["open", "paid", "void"]),
    currency: currencySchema,
    totalMinor: minor,
    openMinor: minor,
    fees: z.array(z.strictObject({ code: text(64), amount: z.strictObject({ minor, currency: currencySchema }) })).max(100),
    dueDate: isoDate,
  })
  .refine((f) => f.openMinor <= f.totalMinor, { message: "openMinor may not exceed totalMinor", path: ["openMinor"] });

/** A shipment of an account on the same desk; its window is inclusive, `windowFrom` ≤ `windowTo`. */
const shipmentFields = z
  .strictObject({
    accountId: recordIdSchema,
    destination: text(32),
    windowFrom: isoDate,
    windowTo: isoDate,
    status: z.enum(SHIPMENT_STATUSES),
    address: text(500),
  })
  .refine((f) => f.windowFrom <= f.windowTo, { message: "windowFrom may not be after windowTo", path: ["windowTo"] });

/** A holiday of a destination on the sending desk's own calendar. */
const holidayFields = z.strictObject({ destination: text(32), date: isoDate, name: text(200) });

/**
 * The kinds the door accepts, each with the schema of its fields (the envelope apart) and
 * whether its records belong to an account (the desk of such a record is its account's desk).
 */
export const RECORD_KINDS = {
  account: { fields: accountFields, ofAccount: false },
  invoice: { fields: invoiceFields, ofAccount: true },
  shipment: { fields: shipmentFields, ofAccount: true },
  holiday: { fields: holidayFields, ofAccount: false },
} as const;

/** A kind of record the door accepts. */
export type RecordKind = keyof typeof RECORD_KINDS;
/** The kinds, in the order a chunk applies them (accounts first, so a chunk's invoices may name a chunk's accounts). */
export const RECORD_KIND_NAMES = Object.keys(RECORD_KINDS) as RecordKind[];
/** The fields of a record of kind `K`, as parsed. */
export type RecordFields<K extends RecordKind> = z.output<(typeof RECORD_KINDS)[K]["fields"]>;

/** Whether `kind` is one the door accepts. */
export function isRecordKind(kind: string): kind is RecordKind {
  return Object.prototype.hasOwnProperty.call(RECORD_KINDS, kind);
}

/**
 * Per-record refusal codes of the door (one line of a batch, or the single routes' 4xx):
 * - `unknown_kind`: a kind the door does not accept;
 * - `invalid_record`: a field missing, mistyped, out of range, or one the kind does not have;
 * - `currency_mismatch`: a fee in another currency than its invoice;
 * - `unknown_account`: the account named is not on this desk (absent or another desk's: the same words);
 * - `unknown_owner`: a record of a declared kind names an owner record (of the declared kind its owner role names) this desk does not have, or has tombstoned;
 * - `not_found`: a delete of a record this desk does not have;
 * - `invalid_json`, `invalid_utf8`, `line_too_long`, `truncated_line`, `payload_too_large`: a batch line that could not be read.
 * Ids are per desk for every kind, built in or declared: another desk's record of the same id is
 * another record, never a refusal, so no answer says whether another desk holds an id.
 */
export type RecordErrorCode =
  | "unknown_kind"
  | "invalid_record"
  | "currency_mismatch"
  | "unknown_account"
  | "unknown_owner"
  | "not_found"
  | "invalid_json"
  | "invalid_utf8"
  | "line_too_long"
  | "truncated_line"
  | "payload_too_large";

/** A typed per-record refusal: `{code, message, path?}` (path: the dotted field, e.g. `fees.0.amount.currency`). */
export interface RecordError {
  code: RecordErrorCode;
  message: string;
  path?: string;
}

/** What became of one record the door applied: applied (a newer version), ignored (`not_newer`: the stored `sourceVersion` is at least the one sent), or a typed refusal. */
export type RecordOutcome = { ok: true; applied: true; sourceVersion: number } | { ok: true; applied: false; reason: "not_newer"; sourceVersion: number | null } | { ok: false; error: RecordError };

/** A record as the door applies it: a put (fields parsed by its kind) or a delete (a tombstone), with the source's version and time. */
export type RecordInput =
  | { op: "put"; kind: RecordKind; id: string; sourceVersion: number; sourceUpdatedAt: Date; fields: Record<string, unknown> }
  | { op: "delete"; kind: RecordKind; id: string; sourceVersion: number; sourceUpdatedAt: Date };

/** `{ok: true, record}` or the typed refusal. */
export type ParsedRecord = { ok: true; record: RecordInput } | { ok: false; error: RecordError };

/**
 * A record of a kind a desk declared (lib/records/record-kind-declaration.ts) as the door applies
 * it: the envelope checked, the fields (a put's body without the envelope) not yet — they are
 * validated against the desk's declaration inside the applying transaction
 * (lib/server/records/apply-declared-records.ts), which also says `unknown_kind` when the desk
 * declared no such kind.
 */
export type DeclaredRecordInput =
  | { op: "put"; declared: true; kind: string; id: string; sourceVersion: number; sourceUpdatedAt: Date; fields: Record<string, unknown> }
  | { op: "delete"; declared: true; kind: string; id: string; sourceVersion: number; sourceUpdatedAt: Date };

/** Any record the door applies: of a built-in kind (`RecordInput`) or of a declared kind (`DeclaredRecordInput`). */
export type DoorRecordInput = RecordInput | DeclaredRecordInput;

/** Whether `r` is of a declared kind. */
export function isDeclaredRecord(r: DoorRecordInput): r is DeclaredRecordInput {
  return "declared" in r && r.declared === true;
}

/** A declared kind's name: 2–40 lower-case letters, digits and `_`, starting with a letter (e.g. `order`, `payout_batch`); lib/records/record-kind-declaration.ts refuses the reserved ones. */
export const DECLARED_KIND_NAME = /^[a-z][a-z0-9_]{1,39}$/;

/**
 * Parses one record of any kind the door may accept: a built-in kind through `parseRecord`; a
 * name a declared kind may have (lower-case letters, digits, `_`) as a `DeclaredRecordInput` whose
 * envelope is checked and whose fields wait for the desk's declaration; anything else
 * `unknown_kind`. Never throws.
 */
export function parseDoorRecord(kind: unknown, id: unknown, op: unknown, body: Record<string, unknown>): { ok: true; record: DoorRecordInput } | { ok: false; error: RecordError } {
  if (typeof kind !== "string" || isRecordKind(kind) || !DECLARED_KIND_NAME.test(kind)) return parseRecord(kind, id, op, body);
  const e = parseEnvelope(id, op, body);
  if (!e.ok) return e;
  const { id: recordId, sourceVersion, sourceUpdatedAt } = e.envelope;
  if (e.envelope.op === "delete") return { ok: true, record: { op: "delete", declared: true, kind, id: recordId, sourceVersion, sourceUpdatedAt } };
  return { ok: true, record: { op: "put", declared: true, kind, id: recordId, sourceVersion, sourceUpdatedAt, fields: e.envelope.fields } };
}

const opSchema = z.enum(["put", "delete"]);
const deleteSchema = z.strictObject(envelopeShape);
const envelopeSchema = z.strictObject(envelopeShape);

/** A record's envelope as every kind carries it: id, op, source version and time, and (a put's) fields not yet checked. */
type Envelope = { id: string; sourceVersion: number; sourceUpdatedAt: Date } & ({ op: "delete" } | { op: "put"; fields: Record<string, unknown> });

/**
 * The envelope of one record of any kind: the id (`recordIdSchema`), `op` (`put`, the default, or
 * `delete`; a delete carries nothing but the envelope) and `sourceVersion` / `sourceUpdatedAt`;
 * a put's other body fields are handed on unchecked. Never throws: `invalid_record` with its path.
 */
function parseEnvelope(id: unknown, op: unknown, body: Record<string, unknown>): { ok: true; envelope: Envelope } | { ok: false; error: RecordError } {
  const idParsed = recordIdSchema.safeParse(id);
  if (!idParsed.success) return fail("invalid_record", `id: ${idParsed.error.issues[0]?.message ?? "not a record id"}`, "id");
  const opParsed = opSchema.safeParse(op ?? "put");
  if (!opParsed.success) return fail("invalid_record", `op: give "put" or "delete".`, "op");
  const { sourceVersion, sourceUpdatedAt, ...fields } = body;
  if (opParsed.data === "delete") {
    const d = deleteSchema.safeParse(body);
    if (!d.success) return zodFail(d.error);
    return { ok: true, envelope: { op: "delete", id: idParsed.data, sourceVersion: d.data.sourceVersion, sourceUpdatedAt: new Date(d.data.sourceUpdatedAt) } };
  }
  const env = envelopeSchema.safeParse({ sourceVersion, sourceUpdatedAt });
  if (!env.success) return zodFail(env.error);
  return { ok: true, envelope: { op: "put", id: idParsed.data, sourceVersion: env.data.sourceVersion, sourceUpdatedAt: new Date(env.data.sourceUpdatedAt), fields } };
}

/**
 * Parses one record as a system of record sends it: `kind`, `id`, `op` (`put`, the default, or
 * `delete`), the envelope (`sourceVersion`, `sourceUpdatedAt`) and, for a put, exactly the fields
 * of its kind (an unknown field is refused). Never throws: bad input is a typed `RecordError`
 * (`unknown_kind`, `invalid_record`, `currency_mismatch`).
 */
export function parseRecord(kind: unknown, id: unknown, op: unknown, body: Record<string, unknown>): ParsedRecord {
  if (typeof kind !== "string" || !isRecordKind(kind)) {
    return fail("unknown_kind", `The door accepts records of kind ${RECORD_KIND_NAMES.join(", ")} and of the kinds declared for the desk; not ${typeof kind === "string" ? JSON.stringify(kind.slice(0, 40)) : "that"}.`, "kind");
  }
  const e = parseEnvelope(id, op, body);
  if (!e.ok) return e;
  const { id: recordId, sourceVersion, sourceUpdatedAt } = e.envelope;
  if (e.envelope.op === "delete") return { ok: true, record: { op: "delete", kind, id: recordId, sourceVersion, sourceUpdatedAt } };
  const f = RECORD_KINDS[kind].fields.safeParse(e.envelope.fields);
  if (!f.success) return zodFail(f.error);
  if (kind === "invoice") {
    const inv = f.data as RecordFields<"invoice">;
    const at = inv.fees.findIndex((fee) => fee.amount.currency !== inv.currency);
    if (at >= 0) return fail("currency_mismatch", `Fee ${at + 1} is in ${inv.fees[at].amount.currency}; the invoice is in ${inv.currency}.`, `fees.${at}.amount.currency`);
  }
  return { ok: true, record: { op: "put", kind, id: recordId, sourceVersion, sourceUpdatedAt, fields: f.data as Record<string, unknown> } };
}

function fail(code: RecordErrorCode, message: string, path?: string): { ok: false; error: RecordError } {
  return { ok: false, error: { code, message, ...(path ? { path } : {}) } };
}

/** The first zod issue as `invalid_record` (an unknown field is named as the path). */
function zodFail(error: z.ZodError): { ok: false; error: RecordError } {
  return { ok: false, error: zodRecordError(error) };
}

/**
 * The first issue of a record's zod error as an `invalid_record` RecordError: `<path>: <message>`
 * with the dotted path (an unknown field is named as the path, "not a field of this kind of record").
 */
export function zodRecordError(error: z.ZodError): RecordError {
  const issue = error.issues[0];
  if (!issue) return { code: "invalid_record", message: "The record has the wrong shape." };
  if (issue.code === "unrecognized_keys") {
    const key = String(issue.keys[0]).slice(0, 64);
    return { code: "invalid_record", message: `${key}: not a field of this kind of record.`, path: key };
  }
  const path = issue.path.map(String).join(".");
  return { code: "invalid_record", message: `${path || "record"}: ${issue.message}`, ...(path ? { path } : {}) };
}
