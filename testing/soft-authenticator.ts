/**
 * A software WebAuthn authenticator for tests: an ECDSA P-256 key pair (COSE alg -7) that makes
 * assertions exactly as a platform authenticator does (authenticator data = SHA-256 of the RP id,
 * flags user-present and user-verified, a growing signature counter; the signature over
 * authenticator data ‖ SHA-256 of the client data JSON, DER-encoded). Its passkey row is what
 * better-auth's passkey plugin stores (COSE public key, standard base64). Test code only.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { nanoid } from "nanoid";
import { prisma } from "@/lib/server/db/db";

/** A browser's assertion JSON (what @simplewebauthn/browser `startAuthentication` returns). */
export interface AssertionJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: { authenticatorData: string; clientDataJSON: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, unknown>;
}

/** One credential: `assert` signs a challenge; `register` stores it as `userId`'s passkey. */
export interface SoftAuthenticator {
  credentialId: string;
  /** COSE public key, standard base64 (as the passkey table holds it). */
  publicKey: string;
  register(userId: string): Promise<string>;
  assert(challenge: string, opts: { rpID: string; origin: string; userVerified?: boolean }): AssertionJSON;
}

/** A new credential with its own P-256 key. */
export function softAuthenticator(): SoftAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
  const cose = new Map<number, number | Uint8Array>([
    [1, 2], // kty: EC2
    [3, -7], // alg: ES256
    [-1, 1], // crv: P-256
    [-2, new Uint8Array(Buffer.from(jwk.x, "base64url"))],
    [-3, new Uint8Array(Buffer.from(jwk.y, "base64url"))],
  ]);
  const coseKey = Buffer.from(isoCBOR.encode(cose)).toString("base64");
  const credentialId = randomBytes(16).toString("base64url");
  let counter = 0;
  return {
    credentialId,
    publicKey: coseKey,
    async register(userId) {
      const id = `pk_${nanoid(10)}`;
      await prisma.passkey.create({ data: { id, userId, credentialID: credentialId, publicKey: coseKey, counter: 0, deviceType: "singleDevice", backedUp: false, transports: "internal", createdAt: new Date() } });
      return id;
    },
    assert(challenge, { rpID, origin, userVerified = true }) {
      counter += 1;
      return assertion(privateKey, credentialId, challenge, rpID, origin, userVerified, counter);
    },
  };
}

function assertion(privateKey: KeyObject, credentialId: string, challenge: string, rpID: string, origin: string, uv: boolean, counter: number): AssertionJSON {
  const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }));
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const authData = Buffer.concat([createHash("sha256").update(rpID).digest(), Buffer.from([0x01 | (uv ? 0x04 : 0)]), count]);
  const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientDataJSON).digest()]), privateKey);
  return {
    id: credentialId,
    rawId: credentialId,
    type: "public-key",
    response: { authenticatorData: authData.toString("base64url"), clientDataJSON: clientDataJSON.toString("base64url"), signature: signature.toString("base64url") },
    clientExtensionResults: {},
  };
}
