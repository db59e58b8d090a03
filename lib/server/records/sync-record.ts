import { DomainError, type ErrorCode } from "../../errors/domain-error";
import { parseDoorRecord, type RecordError } from "../../records/record-kinds";
import type { StoredRecord } from "../../records/stored-record";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { inTransaction, ok, type Db } from "../db/transaction";
import { prisma } from "../db/db";
import { applyRecordChunk } from "./apply-records";
import { readRecord } from "./read-record";

/** The HTTP refusal of a per-record error on the single-record routes. */
const STATUS_CODE: Record<RecordError["code"], ErrorCode> = {
  unknown_kind: "not_found",
  invalid_record: "invalid_record",
  currency_mismatch: "currency_mismatch",
  unknown_account: "unknown_account",
  unknown_owner: "unknown_owner",
  not_found: "not_found",
  invalid_json: "invalid_json",
  invalid_utf8: "invalid_encoding",
  line_too_long: "payload_too_large",
  truncated_line: "invalid_json",
  payload_too_large: "payload_too_large",
};

/** The answer of a single put or delete: the record as now stored, whether this version was applied, and why not (`not_newer`: the stored source version is at least the one sent). */
export interface SyncRecordResult {
  record: StoredRecord;
  applied: boolean;
  reason?: "not_newer";
}

/**
 * Applies one record a system of record sent for `desk`
 * (docs/design.md "Systems of record: the one door"): `op` put with `body` = the kind's fields plus `sourceVersion` and `sourceUpdatedAt`,
 * or delete (a tombstone) with `body` = the envelope only. `kind` is a built-in kind or one the
 * desk declared (validated against its current declaration). One transaction: the conditional write
 * (lib/server/records/apply-records.ts), the holds it releases, and one `records_synced` audit
 * event (counts only). Errors (DomainError): 422 `invalid_record`, `currency_mismatch`,
 * `unknown_account`, `unknown_owner`; 404 `not_found` (a delete of a record
 * this desk does not have, or a kind the desk neither has built in nor declared). A version not
 * newer than the stored one is no error: `applied: false`.
 */
export async function syncRecord(
  desk: string,
  kind: string,
  id: string,
  op: "put" | "delete",
  body: Record<string, unknown>,
  actor: Actor,
  opts: { db?: Db; now?: Date } = {},
): Promise<SyncRecordResult> {
  const parsed = parseDoorRecord(kind, id, op, body);
  if (!parsed.ok) throw asDomainError(parsed.error);
  const db = opts.db ?? prisma;
  return inTransaction(async (tx) => {
    const [outcome] = await applyRecordChunk(tx, desk, [parsed.record], opts.now ?? new Date());
    if (!outcome.ok) throw asDomainError(outcome.error);
    await appendAudit(tx, { type: "records_synced", actor, data: { desk, via: op, lines: 1, applied: outcome.applied ? 1 : 0, ignored: outcome.applied ? 0 : 1, errors: 0 } });
    const record = await readRecord(tx, desk, kind, id);
    if (!record) throw new DomainError("not_found", `There is no ${kind} ${id} on this desk.`);
    return ok(outcome.applied ? { record, applied: true } : { record, applied: false, reason: "not_newer" as const });
  }, db, { isolation: "row-locks" });
}

/** A per-record error as the single routes' typed refusal (its `path` kept as a detail). */
function asDomainError(e: RecordError): DomainError {
  return new DomainError(STATUS_CODE[e.code], e.message, e.path ? { path: e.path } : {});
}
