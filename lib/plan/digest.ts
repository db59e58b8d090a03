import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json";

/**
 * The payload an approval binds to: a tool name and its (parsed) arguments.
 * Provenance, author and step id are deliberately NOT part of it. Source: docs/design.md §4.
 */
export interface DigestInput {
  tool: string;
  args: unknown;
}

/**
 * `digest(step)` = lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of
 * `{tool, args}` — 64 hex characters. Canonical JSON comes from ./canonical-json.ts, which is
 * the `canonicalize` package behind guards for what RFC 8785 forbids. Key order never changes it; any value change at any
 * depth does (a number and the same digits as a string differ: `1` vs `"1"`).
 * Throws `Error` when `args` is not representable as JSON (NaN, ±Infinity, lone surrogate,
 * circular reference, BigInt); the validation pipeline reports such plans as
 * `invalid_json_value` before ever digesting them. Source: docs/design.md §4, docs/api.md (`digest`).
 */
export function digest(step: DigestInput): string {
  const json = canonicalJson({ tool: step.tool, args: step.args });
  return createHash("sha256").update(json, "utf8").digest("hex");
}

/**
 * `digest` that returns `null` instead of throwing for values that are not JSON.
 */
export function tryDigest(step: DigestInput): string | null {
  try {
    return digest(step);
  } catch {
    return null;
  }
}

/**
 * True when `b` is a different operation than `a`: another tool, or the same tool with a
 * different digest. This is the "changed" test for authorship and approval invalidation
 * (docs/design.md §1.7, §6). Steps with non-JSON args count as changed.
 */
export function stepChanged(a: DigestInput, b: DigestInput): boolean {
  if (a.tool !== b.tool) return true;
  const da = tryDigest(a);
  const db = tryDigest(b);
  return da === null || db === null || da !== db;
}
