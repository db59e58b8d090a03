import canonicalizeModule from "canonicalize";

type Serialize = (input: unknown) => string | undefined;
/**
 * The package's function: `canonicalize` is CommonJS (`module.exports = serialize`), which Node's
 * ESM loader hands over as the default import and bundlers as `.default`; both are accepted.
 */
const canonicalize: Serialize = ((canonicalizeModule as unknown as { default?: Serialize }).default ?? canonicalizeModule) as Serialize;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) text of `value`, by the `canonicalize` package
 * (v2, its CommonJS build, so the server, seeds, tsx scripts and tests all load it).
 * Object keys sorted by UTF-16 code units; no whitespace; numbers in ECMAScript shortest
 * round-trip form; strings escaped as `JSON.stringify` does.
 *
 * Before serialising we refuse what RFC 8785 (§3.2.2.2, I-JSON) does not allow and the package
 * does not check: lone surrogates; and circular references (which would otherwise overflow the
 * stack). Throws `Error` for NaN, ±Infinity, lone surrogates and cycles; `TypeError` for BigInt.
 * Source: docs/design.md §4, RFC 8785.
 */
export function canonicalJson(value: unknown): string {
  assertJcsSafe(value, new Set());
  const out = canonicalize(value);
  if (out === undefined) throw new Error("Value has no JSON representation");
  return out;
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : -1;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return true;
    }
  }
  return false;
}

function assertJcsSafe(value: unknown, path: Set<object>): void {
  if (typeof value === "string") {
    if (hasLoneSurrogate(value)) throw new Error("Lone surrogate is not allowed");
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (path.has(value)) throw new Error("Circular reference detected");
  path.add(value);
  if (Array.isArray(value)) for (const v of value) assertJcsSafe(v, path);
  else for (const [k, v] of Object.entries(value)) {
    if (hasLoneSurrogate(k)) throw new Error("Lone surrogate is not allowed");
    assertJcsSafe(v, path);
  }
  path.delete(value);
}
