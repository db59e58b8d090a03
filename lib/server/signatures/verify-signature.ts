import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { DomainError } from "../../errors/domain-error";
import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import { challengeOf, type SignedPayload } from "../../signatures/approval-challenge";
import type { OfferedSignature, SignedApproval } from "../../signatures/schema";
import type { Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import type { Tx } from "../db/transaction";
import { relyingParty } from "../auth/passkey-plugin";

const mismatch = (message: string, details: Record<string, unknown> = {}) => new DomainError("signature_mismatch", message, details);

/**
 * Verifies the signature `offered` with an approval of `signed` (the target steps whose gate rule
 * requires one) of run `runId` at plan version `planVersion`, by `viewer`, BEFORE any approval
 * exists: the challenge is the viewer's own for this run, unused and unexpired; it was made for
 * this plan version; every signed step is in it with the digest it has now, and every step in it
 * still has the digest it was signed with; the credential is a passkey the viewer has registered
 * (a removed one is refused); the assertion verifies with @simplewebauthn/server (origin, RP id,
 * user verification required). Returns the record the approval stores, with the passkey and the
 * assertion's signature counter: `consumeSignature`, in the approval's transaction, uses the nonce
 * up and moves the counter on (so a racing replay is told `signature_replayed`).
 * Errors: 403 `signature_required` {stepIds} (nothing offered); 409 `signature_replayed` (the nonce
 * was used); 403 `signature_mismatch` (anything else).
 */
export async function verifyOfferedSignature(
  viewer: Pick<Viewer, "id">,
  runId: string,
  planVersion: number,
  signed: readonly Step[],
  planSteps: readonly Step[],
  offered: OfferedSignature | undefined,
  now: Date,
): Promise<VerifiedSignature> {
  if (!offered) {
    throw new DomainError(
      "signature_required",
      `The gate policy requires your passkey's signature to approve ${signed.length === 1 ? `step ${signed[0].id}` : `steps ${signed.map((s) => s.id).join(", ")}`}. Nothing was approved.`,
      { stepIds: signed.map((s) => s.id) },
    );
  }
  const row = await prisma.signatureChallenge.findFirst({ where: { id: offered.nonce, runId, userId: viewer.id } });
  if (!row) throw mismatch("This signature was not made over a challenge issued to you for this run. Sign again.");
  if (row.usedAt) throw new DomainError("signature_replayed", "This signature was already used for an approval; each signature approves once. Sign again.", { usedAt: row.usedAt.toISOString() });
  if (row.expiresAt.getTime() <= now.getTime()) throw mismatch("The signing challenge expired; sign again.", { expiresAt: row.expiresAt.toISOString() });
  const payload: SignedPayload = { runId, planVersion: row.planVersion, steps: row.steps as SignedPayload["steps"], approverId: viewer.id, nonce: row.id };
  if (row.planVersion !== planVersion) {
    throw mismatch(`The signature covers plan version ${row.planVersion}; you are approving version ${planVersion}. Review the plan and sign again.`, { signedPlanVersion: row.planVersion, planVersion });
  }
  for (const step of signed) {
    const inPayload = payload.steps.find((s) => s.stepId === step.id);
    if (!inPayload || inPayload.digest !== digest(step)) {
      throw mismatch(`The signature does not cover step ${step.id} as it stands now. Review it and sign again.`, { stepId: step.id });
    }
  }
  for (const s of payload.steps) {
    const now_ = planSteps.find((p) => p.id === s.stepId);
    if (!now_ || digest(now_) !== s.digest) throw mismatch(`Step ${s.stepId} changed since you signed. Review it and sign again.`, { stepId: s.stepId });
  }
  const passkey = await prisma.passkey.findFirst({ where: { credentialID: offered.response.id, userId: viewer.id } });
  if (!passkey) throw mismatch("The signing credential is not a passkey registered to you (it may have been removed).", { credentialId: offered.response.id });
  const rp = relyingParty();
  const challenge = challengeOf(payload);
  const publicKey = Buffer.from(passkey.publicKey, "base64").toString("base64url");
  let newCounter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response: { ...offered.response, clientExtensionResults: offered.response.clientExtensionResults ?? {} } as never,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      // the counter is judged in the approval's transaction (consumeSignature), after the nonce
      credential: { id: passkey.credentialID, publicKey: new Uint8Array(Buffer.from(publicKey, "base64url")), counter: 0 },
      requireUserVerification: true,
    });
    if (!result.verified) throw new Error("not verified");
    newCounter = result.authenticationInfo.newCounter;
  } catch {
    throw mismatch("The signature does not verify for exactly this run, plan version, steps and approver. Nothing was approved.");
  }
  const r = offered.response.response;
  const record: SignedApproval = {
    format: "webauthn-assertion-v1",
    payload,
    challenge,
    rpID: rp.rpID,
    origin: rp.origin,
    credentialId: passkey.credentialID,
    publicKey,
    authenticatorData: r.authenticatorData,
    clientDataJSON: r.clientDataJSON,
    signature: r.signature,
    userHandle: r.userHandle ?? null,
  };
  return { record, passkeyId: passkey.id, counter: newCounter };
}

/** A verified signature: what the approval stores, and the passkey and counter `consumeSignature` records. */
export interface VerifiedSignature {
  record: SignedApproval;
  passkeyId: string;
  /** The assertion's signature counter (0: the authenticator keeps none). */
  counter: number;
}

/**
 * In the approval's transaction: marks the signature's challenge used, one conditional update
 * (`usedAt IS NULL` in its WHERE) — of two approvals racing with one assertion exactly one wins,
 * the loser is 409 `signature_replayed` — then moves the passkey's signature counter on, again
 * conditionally (`counter < new`): an authenticator that keeps a counter and did not advance it
 * (a cloned key) is 403 `signature_mismatch`. Source: WebAuthn Level 2 §7.2 step 21 (signature counter).
 */
export async function consumeSignature(tx: Tx, s: VerifiedSignature, now: Date): Promise<void> {
  const used = await tx.signatureChallenge.updateMany({ where: { id: s.record.payload.nonce, usedAt: null }, data: { usedAt: now } });
  if (used.count !== 1) throw new DomainError("signature_replayed", "This signature was already used for an approval; each signature approves once. Sign again.");
  if (s.counter === 0) return;
  const moved = await tx.passkey.updateMany({ where: { id: s.passkeyId, counter: { lt: s.counter } }, data: { counter: s.counter } });
  if (moved.count !== 1) throw mismatch("The passkey's signature counter did not advance; the authenticator may have been cloned. Nothing was approved.");
}
