import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/**
 * The digest an approval binds to and a claim must present: lowercase hex SHA-256 (64
 * characters) of the RFC 8785 canonical JSON of `{tool, args}` (docs/design.md §4). Key order
 * never changes it; any value change at any depth does. Throws `Error` when `args` is not
 * representable as JSON (NaN, ±Infinity, lone surrogate, circular reference, BigInt).
 */
export function digest(step: { tool: string; args: unknown }): string {
  return createHash("sha256").update(canonicalJson({ tool: step.tool, args: step.args }), "utf8").digest("hex");
}
