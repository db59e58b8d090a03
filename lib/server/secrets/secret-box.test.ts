/**
 * The secret box: a credential sealed under PLANDESK_SECRETS_KEY opens to itself, only with the
 * same key and the same owner; a changed ciphertext is refused; without a usable key outside demo
 * mode nothing is sealed.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { refused } from "@/testing/test-support";
import { openSecret, sealSecret, secretsKey } from "./secret-box";

const envKey = randomBytes(32).toString("base64");
const key = secretsKey({ PLANDESK_SECRETS_KEY: envKey, PLANDESK_DEMO: "0" });
const aad = "mcp_upstream:mcp_1:freight";
const secret = "tok_live_4f9a8b7c6d5e4f3a2b1c";

/** `sealed` with the character at `i` of its ciphertext part replaced by another base64url character. */
function flip(sealed: string, part: 1 | 2 | 3, i = 0): string {
  const parts = sealed.split(".");
  const chars = [...parts[part]];
  chars[i] = chars[i] === "A" ? "B" : "A";
  parts[part] = chars.join("");
  return parts.join(".");
}

const run = (f: () => unknown) => refused(Promise.resolve().then(f));

describe("the secret box (AES-256-GCM under PLANDESK_SECRETS_KEY)", () => {
  it("seals to a text that does not hold the secret and opens back to it; two seals differ (fresh IV)", () => {
    expect(key.source).toBe("environment");
    const a = sealSecret(secret, aad, key);
    const b = sealSecret(secret, aad, key);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain(secret);
    expect(a).not.toBe(b);
    expect(openSecret(a, aad, key)).toBe(secret);
    expect(openSecret(b, aad, key)).toBe(secret);
  });

  it("a changed IV, tag or ciphertext, another owner, another key or garbage is refused credential_unreadable", async () => {
    const sealed = sealSecret(secret, aad, key);
    for (const part of [1, 2, 3] as const) expect((await run(() => openSecret(flip(sealed, part), aad, key))).code).toBe("credential_unreadable");
    expect((await run(() => openSecret(sealed, "mcp_upstream:mcp_2:freight", key))).code).toBe("credential_unreadable");
    const other = secretsKey({ PLANDESK_SECRETS_KEY: randomBytes(32).toString("base64") });
    expect((await run(() => openSecret(sealed, aad, other))).code).toBe("credential_unreadable");
    for (const junk of ["", "v1", "v2.a.b.c", `${sealed}.x`, "v1.AAAA.AAAA.AAAA"]) expect((await run(() => openSecret(junk, aad, key))).code).toBe("credential_unreadable");
    const err = await run(() => openSecret(flip(sealed, 3), aad, key));
    expect(JSON.stringify({ message: err.message, details: err.details })).not.toContain(secret);
  });

  it("unset outside demo mode, or not 32 bytes of base64, the key is refused secrets_key_missing; demo mode derives the fixed development key", async () => {
    expect((await run(() => secretsKey({ PLANDESK_DEMO: "0" }))).code).toBe("secrets_key_missing");
    expect((await run(() => secretsKey({ PLANDESK_DEMO: "0", PLANDESK_SECRETS_KEY: randomBytes(16).toString("base64") }))).code).toBe("secrets_key_missing");
    expect((await run(() => secretsKey({ PLANDESK_SECRETS_KEY: "not base64 at all!" }))).code).toBe("secrets_key_missing");
    const demo = secretsKey({});
    expect(demo.source).toBe("demo");
    expect(demo.key.equals(secretsKey({ PLANDESK_DEMO: "1" }).key)).toBe(true);
    expect(openSecret(sealSecret(secret, aad, demo), aad, secretsKey({}))).toBe(secret);
    expect((await run(() => openSecret(sealSecret(secret, aad, demo), aad, key))).code).toBe("credential_unreadable");
  });
});
