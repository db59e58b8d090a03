/**
 * One value as one line of NDJSON / JSON Lines: `JSON.stringify(value)` with the three characters
 * that common line splitters treat as line ends escaped as well — U+2028 LINE SEPARATOR, U+2029
 * PARAGRAPH SEPARATOR (ES2019 `JSON.stringify` leaves both raw, and e.g. Python's
 * `str.splitlines` and many editors break lines there) and U+0085 NEXT LINE — so each value is
 * exactly one line whatever text it carries, and `JSON.parse` of the line gives the value back.
 * No trailing newline. Throws what `JSON.stringify` throws (a cycle, a BigInt).
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029\u0085]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
