import { createHash, randomBytes } from "node:crypto";

/** SHA-256 hex of an agent API key: what the database stores (never the key itself). */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new random agent API key, `pd_` + 32 url-safe characters; shown once to the admin. */
export function generateApiKey(): string {
  return `pd_${randomBytes(24).toString("base64url")}`;
}

/** A new random ticketing-integration key, `pdi_` + 32 url-safe characters; shown once to the admin. */
export function generateIntegrationKey(): string {
  return `pdi_${randomBytes(24).toString("base64url")}`;
}

/** How many leading characters of a key are stored and shown to admins (`pd_` + 7). */
export const KEY_PREFIX_LENGTH = 10;

/** The part of a key safe to show and store next to its hash, e.g. "pd_Ab3dE9x". */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
