/**
 * Secrets Plandesk must keep and use again (an upstream MCP server's credential),
 * encrypted at rest with AES-256-GCM (node:crypto) under one key from the environment:
 *
 * - `PLANDESK_SECRETS_KEY`: 32 bytes, base64 (e.g. `openssl rand -base64 32`). Keep it stable:
 *   a secret sealed under one key cannot be opened under another (it must be registered again).
 * - Unset in demo mode (PLANDESK_DEMO != "0", which tests run in): a fixed development key derived
 *   from a public phrase (`DEMO_SECRETS_KEY_PHRASE`). It protects nothing — anyone with this
 *   repository can derive it — and exists so the demo desk works on a fresh clone.
 * - Unset (or malformed) in production mode: sealing is refused with 409 `secrets_key_missing`;
 *   nothing is stored.
 *
 * A sealed secret is `v1.<iv>.<tag>.<ciphertext>` (base64url; 12-byte random IV, 16-byte tag) with
 * additional authenticated data naming what it belongs to (e.g. the upstream row's id and desk),
 * so a ciphertext changed, or moved to another row, is refused when opened
 * (409 `credential_unreadable`). Nothing here logs; error messages never carry the secret.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { DomainError } from "../../errors/domain-error";

/** The public phrase the demo/test key is derived from (SHA-256 of it). Not a secret. */
export const DEMO_SECRETS_KEY_PHRASE = "plandesk-demo-secrets-key-not-for-production";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where the key came from: the environment, or the demo's fixed development key. */
export type SecretsKey = { key: Buffer; source: "environment" | "demo" };

/**
 * The key secrets are sealed under, read from `env`: `PLANDESK_SECRETS_KEY` (base64 of exactly 32
 * bytes); unset in demo mode, the fixed development key (SHA-256 of DEMO_SECRETS_KEY_PHRASE).
 * Errors: 409 `secrets_key_missing` when it is unset outside demo mode or is not base64 of 32
 * bytes (in any mode: a wrong key is never replaced silently by the demo key).
 */
export function secretsKey(env: Record<string, string | undefined> = process.env): SecretsKey {
  const raw = env.PLANDESK_SECRETS_KEY?.trim();
  if (raw) {
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, "base64") : Buffer.alloc(0);
    if (key.length !== 32) {
      throw new DomainError("secrets_key_missing", "PLANDESK_SECRETS_KEY must be 32 bytes in base64 (e.g. `openssl rand -base64 32`); it is not, so no credential can be stored or used.");
    }
    return { key, source: "environment" };
  }
  if (env.PLANDESK_DEMO !== "0") return { key: createHash("sha256").update(DEMO_SECRETS_KEY_PHRASE, "utf8").digest(), source: "demo" };
  throw new DomainError("secrets_key_missing", "This server has no PLANDESK_SECRETS_KEY, so it cannot store a credential. Set it to 32 random bytes in base64 (e.g. `openssl rand -base64 32`) and restart.");
}

const b64 = (b: Buffer) => b.toString("base64url");

/**
 * Seals `plaintext` (UTF-8) under `key`, bound to `aad` (what the secret belongs to, e.g.
 * "mcp_upstream:<id>:<desk>"). Returns `v1.<iv>.<tag>.<ciphertext>`; a fresh random IV each time.
 */
export function sealSecret(plaintext: string, aad: string, key: SecretsKey = secretsKey()): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, b64(iv), b64(cipher.getAuthTag()), b64(ct)].join(".");
}

/**
 * Opens a secret sealed by {@link sealSecret} with the same `aad`.
 * Errors: 409 `credential_unreadable` when the text is not a sealed secret, was changed, belongs
 * to other `aad`, or was sealed under another key (the message says which cannot be told apart);
 * 409 `secrets_key_missing` as {@link secretsKey}.
 */
export function openSecret(sealed: string, aad: string, key: SecretsKey = secretsKey()): string {
  const unreadable = () =>
    new DomainError("credential_unreadable", "The stored credential cannot be read: it was changed, or sealed under another PLANDESK_SECRETS_KEY. Register the server again with its credential.");
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) throw unreadable();
  const [iv, tag, ct] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw unreadable();
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString("utf8");
  } catch {
    throw unreadable();
  }
}
