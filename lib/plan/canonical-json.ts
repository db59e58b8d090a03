/**
 * RFC 8785 canonical JSON (docs/design.md §4): one implementation, the client package's (an
 * agent computes the digest it claims with the same code the console approves with).
 */
export { canonicalJson } from "../../packages/client/src/canonical-json";
