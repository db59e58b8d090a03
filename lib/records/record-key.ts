/**
 * A record's key as the API and the approval's record versions spell it: `"<kind>:<id>"`, e.g.
 * `"invoice:in_74119"` (the fence's `targetVersions`, the claim's `recordVersions`). The kind
 * never contains ":"; the id may.
 */
export function recordKey(kind: string, id: string): string {
  return `${kind}:${id}`;
}

/** The kind and id of a record key (the first ":" splits them); null when there is none or either part is empty. */
export function parseRecordKey(key: string): { kind: string; id: string } | null {
  const at = key.indexOf(":");
  if (at <= 0 || at === key.length - 1) return null;
  return { kind: key.slice(0, at), id: key.slice(at + 1) };
}

/**
 * The record versions an approval saw or an executor reports: record key → the system of
 * record's version (a non-negative safe integer). Plain data.
 */
export type RecordVersions = Record<string, number>;

/**
 * Stored or received record versions as `RecordVersions`: an object's entries whose key parses as
 * a record key and whose value is a non-negative safe integer; anything else (null, an older
 * approval's missing column, a malformed entry) is left out, so `{}` when there is nothing.
 */
export function readRecordVersions(value: unknown): RecordVersions {
  const out: RecordVersions = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (parseRecordKey(key) && typeof v === "number" && Number.isSafeInteger(v) && v >= 0) out[key] = v;
  }
  return out;
}
