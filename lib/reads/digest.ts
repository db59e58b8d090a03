import { createHash } from "node:crypto";
import { canonicalJson } from "../plan/canonical-json";

/**
 * The digest of what a read saw: lowercase hex sha256 of the RFC 8785 canonical JSON of the
 * observed fields (lib/reads/catalog.ts `observe`). Throws `Error` for values that are not JSON.
 */
export function observedDigest(observed: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(observed), "utf8").digest("hex");
}
