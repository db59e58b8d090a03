import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from "@simplewebauthn/server";
import { challengeOf } from "./approval-challenge";
import type { SignedApproval } from "./schema";

/** Why a stored or offered signature does not verify (`null`: it does). */
export type SignatureFault = "payload_mismatch" | "bad_signature";

/**
 * Checks `s` with @simplewebauthn/server against `expected` (what it must cover) alone — no
 * database: its challenge is `challengeOf(s.payload)`, the payload covers `expected` (same run,
 * plan version, approver, and every expected step with the same digest), and the assertion verifies
 * with `s.publicKey` for `s.rpID` and `s.origin` with user verification. `expectedPublicKey`, when
 * given, must equal `s.publicKey` (a key swapped in the export is detected). Returns the fault or null.
 * Used by the claim, and by anyone checking an export offline (docs/security.md).
 */
export async function checkSignedApproval(
  s: SignedApproval,
  expected: { runId: string; planVersion: number; approverId: string; steps: { stepId: string; digest: string }[]; rpID?: string; origin?: string; expectedPublicKey?: string },
): Promise<SignatureFault | null> {
  const p = s.payload;
  if (p.runId !== expected.runId || p.planVersion !== expected.planVersion || p.approverId !== expected.approverId) return "payload_mismatch";
  for (const step of expected.steps) {
    if (!p.steps.some((x) => x.stepId === step.stepId && x.digest === step.digest)) return "payload_mismatch";
  }
  if (challengeOf(p) !== s.challenge) return "payload_mismatch";
  if (expected.expectedPublicKey !== undefined && expected.expectedPublicKey !== s.publicKey) return "bad_signature";
  const ok = await verifyAssertion(s, s.challenge, expected.rpID ?? s.rpID, expected.origin ?? s.origin, s.publicKey);
  return ok ? null : "bad_signature";
}

/**
 * True when `assertion` verifies with `publicKey` (COSE, base64url) over `challenge` for `rpID` and
 * `origin`, user verification required; the signature counter is not judged here (offline checks have
 * no live counter; the approval path updates the passkey's counter itself).
 */
export async function verifyAssertion(
  a: Pick<SignedApproval, "credentialId" | "authenticatorData" | "clientDataJSON" | "signature" | "userHandle">,
  challenge: string,
  rpID: string,
  origin: string,
  publicKey: string,
): Promise<boolean> {
  const response: AuthenticationResponseJSON = {
    id: a.credentialId,
    rawId: a.credentialId,
    type: "public-key",
    response: { authenticatorData: a.authenticatorData, clientDataJSON: a.clientDataJSON, signature: a.signature, ...(a.userHandle ? { userHandle: a.userHandle } : {}) },
    clientExtensionResults: {},
  };
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: a.credentialId, publicKey: new Uint8Array(Buffer.from(publicKey, "base64url")), counter: 0 },
      requireUserVerification: true,
    });
    return result.verified;
  } catch {
    return false;
  }
}
