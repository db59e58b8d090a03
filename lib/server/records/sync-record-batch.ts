import { readNdjsonLines, type NdjsonReadState } from "../../records/ndjson-lines";
import { parseDoorRecord, type DoorRecordInput, type RecordError } from "../../records/record-kinds";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { inTransaction, ok, type Db } from "../db/transaction";
import { nulPath } from "../http/http";
import { yieldToForeground } from "../load/foreground";
import { applyRecordChunk } from "./apply-records";

/** Records per transaction of a batch request: small, so decisions on the same instance wait for at most one short write (bench:import measures both). */
export const BATCH_CHUNK = 250;

/** The longest a batch waits between two chunks for the instance's foreground requests to finish (milliseconds; lib/server/load/foreground.ts). */
export const FOREGROUND_WAIT_MS = 200;

/** The longest line a batch reads (64 KiB); a longer one is `line_too_long`, skipped unread. */
export const MAX_RECORD_LINE_BYTES = 64 * 1024;
/** At most this many per-line errors are listed in a batch's answer (`moreErrors` counts the rest). */
export const MAX_LISTED_ERRORS = 100;
/** The default bound of one batch request's bytes (PLANDESK_RECORDS_BATCH_MAX_BYTES overrides it): 256 MiB, the custom server's bound for this path too (lib/net/body-limit.mjs). */
export const DEFAULT_BATCH_MAX_BYTES = 256 * 1024 * 1024;

/** The bound of one batch request's bytes: PLANDESK_RECORDS_BATCH_MAX_BYTES (a positive integer), else DEFAULT_BATCH_MAX_BYTES. */
export function batchMaxBytes(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.PLANDESK_RECORDS_BATCH_MAX_BYTES);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_BATCH_MAX_BYTES;
}

/** One line's refusal in a batch answer: its 1-based line number and the typed error. */
export type LineError = { line: number } & RecordError;

/**
 * A batch's answer: `lines` read (the last line number seen; blank lines count), how many records
 * were `applied` (a newer version) or `ignored` (`not_newer`), the per-line `errors` (at most
 * MAX_LISTED_ERRORS, in line order) and how many more there were (`moreErrors`), and, when the
 * body passed its byte bound, `stoppedAtBytes` (reading stopped there; lines after were not read).
 */
export interface BatchResult {
  lines: number;
  applied: number;
  ignored: number;
  errors: LineError[];
  moreErrors: number;
  stoppedAtBytes?: number;
}

/**
 * Applies an NDJSON stream of records for `desk`
 * (docs/design.md "Systems of record: the one door"): one record per line, `{kind, id, op?: "put"|"delete", sourceVersion, sourceUpdatedAt,
 * ...fields}`, read line by line with bounded memory (lib/records/ndjson-lines.ts) and applied in
 * transactions of `chunkSize` records. A line that cannot be read or parsed gets its typed error
 * (`line_too_long`, `invalid_utf8`, `invalid_json`, `truncated_line` for a final line without its
 * newline that does not parse, `invalid_record`, `unknown_kind`, `currency_mismatch`,
 * `unknown_account`, `unknown_owner`, `not_found`) and writes nothing; the good
 * lines land. A line of a kind the desk declared is validated against the declaration in force
 * when its chunk is applied.
 * When the stream passes `maxBytes`, reading stops (`stoppedAtBytes`; a `payload_too_large`
 * error names the line being read) — the chunks before it are kept. One `records_synced` audit
 * event for the whole batch (desk and counts). Errors: the database's.
 */
export async function syncRecordBatch(
  desk: string,
  stream: ReadableStream<Uint8Array> | null,
  actor: Actor,
  opts: { db?: Db; now?: () => Date; chunkSize?: number; maxBytes?: number } = {},
): Promise<BatchResult> {
  const db = opts.db ?? prisma;
  const chunkSize = opts.chunkSize ?? BATCH_CHUNK;
  const result: BatchResult = { lines: 0, applied: 0, ignored: 0, errors: [], moreErrors: 0 };
  const fail = (line: number, e: RecordError) => {
    if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push({ line, ...e });
    else result.moreErrors++;
  };
  let chunk: DoorRecordInput[] = [];
  let chunkLines: number[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const records = chunk;
    const lines = chunkLines;
    chunk = [];
    chunkLines = [];
    const outcomes = await inTransaction(async (tx) => ok(await applyRecordChunk(tx, desk, records, opts.now?.() ?? new Date())), db, { isolation: "row-locks" });
    outcomes.forEach((o, i) => {
      if (!o.ok) fail(lines[i], o.error);
      else if (o.applied) result.applied++;
      else result.ignored++;
    });
    // Let the instance's other requests (decisions) run between two chunks: an import never holds
    // the event loop, or SQLite's write lock, for more than one short transaction at a time, and
    // waits (at most FOREGROUND_WAIT_MS) while a decision is in flight on the instance.
    await yieldToForeground(FOREGROUND_WAIT_MS);
  };
  const state: NdjsonReadState = { bytes: 0, overLimit: false };
  if (stream) {
    for await (const l of readNdjsonLines(stream, { maxLineBytes: MAX_RECORD_LINE_BYTES, maxTotalBytes: opts.maxBytes ?? batchMaxBytes(), state })) {
      result.lines = l.line;
      if (!l.ok) {
        fail(l.line, { code: l.code, message: l.code === "line_too_long" ? `The line is longer than ${MAX_RECORD_LINE_BYTES} bytes; it was skipped.` : "The line is not valid UTF-8 text." });
        continue;
      }
      const parsed = parseLine(l.text, l.terminated);
      if (!parsed.ok) {
        fail(l.line, parsed.error);
        continue;
      }
      chunk.push(parsed.record);
      chunkLines.push(l.line);
      if (chunk.length >= chunkSize) await flush();
    }
  }
  await flush();
  if (state.overLimit) {
    result.stoppedAtBytes = state.bytes;
    fail(result.lines + 1, { code: "payload_too_large", message: `The batch passed its bound of ${opts.maxBytes ?? batchMaxBytes()} bytes; reading stopped at this line. Send the rest in another request.` });
  }
  result.errors.sort((a, b) => a.line - b.line);
  await appendAudit(db, {
    type: "records_synced",
    actor,
    data: { desk, via: "batch", lines: result.lines, applied: result.applied, ignored: result.ignored, errors: result.errors.length + result.moreErrors },
  });
  return result;
}

/** One line's record: JSON (a final line without its newline that does not parse is `truncated_line`), an object, no NUL character, then `parseDoorRecord` (a declared kind's fields are checked when its chunk is applied). */
function parseLine(text: string, terminated: boolean): { ok: true; record: DoorRecordInput } | { ok: false; error: RecordError } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return terminated
      ? { ok: false, error: { code: "invalid_json", message: "The line is not valid JSON." } }
      : { ok: false, error: { code: "truncated_line", message: "The last line ends without a newline and does not parse: it was cut mid-way." } };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, error: { code: "invalid_record", message: "A line is one JSON object: {kind, id, op?, sourceVersion, sourceUpdatedAt, ...fields}." } };
  // a NUL is in the text as an escape or a raw byte; only then is the object walked to name where
  const nul = text.includes("\\u0000") || text.includes("\u0000") ? nulPath(raw) : null;
  if (nul !== null) return { ok: false, error: { code: "invalid_record", message: `Text may not contain NUL characters (U+0000); found one at ${nul}.`, path: nul } };
  const { kind, id, op, ...body } = raw as Record<string, unknown>;
  return parseDoorRecord(kind, id, op, body);
}
