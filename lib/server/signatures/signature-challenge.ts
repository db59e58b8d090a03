import { randomBytes } from "node:crypto";
import { generateAuthenticationOptions, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { DomainError } from "../../errors/domain-error";
import { digest } from "../../plan/digest";
import { challengeOf, describeSignedCoverage, type SignedPayload } from "../../signatures/approval-challenge";
import { getTool } from "../../tools/builtin-tools";
import { formatMoney } from "../../money/format-money";
import { deskScope, type Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { toJsonColumn } from "../db/json-column";
import { loadRun } from "../plans/load-run";
import { storedSteps } from "../plans/stored-plan";
import { relyingParty } from "../auth/passkey-plugin";

/** How long a signature challenge may be answered (ms): long enough to read the card and touch the key. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** What `createSignatureChallenge` answers: the nonce, the payload and challenge it binds, the words the card shows and the WebAuthn request options for the browser. */
export interface SignatureChallengeView {
  nonce: string;
  challenge: string;
  payload: SignedPayload;
  /** In words, what the signature covers (lib/signatures/approval-challenge.ts `describeSignedCoverage`). */
  covers: string;
  expiresAt: string;
  /** WebAuthn `PublicKeyCredentialRequestOptionsJSON` (open: a browser library reads it). */
  options: { challenge: string; [k: string]: unknown };
}

/**
 * A single-use challenge for `viewer` to sign the approval of `stepIds` ("all": every step) of run
 * `runId` at plan version `planVersion` — the version the card shows. Stores the nonce with the
 * steps' digests (signature_challenge), valid CHALLENGE_TTL_MS; the WebAuthn options ask the
 * viewer's own passkeys, user verification required.
 * Errors: 404 `not_found` (not in the viewer's desk scope); 409 `stale_plan_version`
 * {currentVersion}; 400 `bad_request` {stepIds} for a step not in the plan; 403
 * `signature_required` when the viewer has no passkey (register one first).
 */
export async function createSignatureChallenge(viewer: Viewer, runId: string, body: { planVersion: number; stepIds: "all" | string[] }, now = new Date()): Promise<SignatureChallengeView> {
  const run = await loadRun(runId, deskScope(viewer));
  if (body.planVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed: it is now at version ${run.planVersion}; you reviewed version ${body.planVersion}.`, { currentVersion: run.planVersion });
  }
  const steps = storedSteps(run.planVersions.find((p) => p.version === run.planVersion)?.steps);
  const ids = body.stepIds === "all" ? steps.map((s) => s.id) : [...new Set(body.stepIds)];
  const unknown = ids.filter((id) => !steps.some((s) => s.id === id));
  if (unknown.length) throw new DomainError("bad_request", `No step ${unknown.join(", ")} in plan version ${run.planVersion}.`, { stepIds: unknown });
  const chosen = steps.filter((s) => ids.includes(s.id));
  const passkeys = await prisma.passkey.findMany({ where: { userId: viewer.id }, select: { credentialID: true, transports: true } });
  if (passkeys.length === 0) {
    throw new DomainError("signature_required", "Signing an approval needs a passkey: register one (account menu → Passkeys), then approve again.", { stepIds: ids, passkeyRegistered: false });
  }
  const nonce = randomBytes(32).toString("base64url");
  const payload: SignedPayload = { runId, planVersion: run.planVersion, steps: chosen.map((s) => ({ stepId: s.id, digest: digest(s) })), approverId: viewer.id, nonce };
  const challenge = challengeOf(payload);
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  await prisma.signatureChallenge.create({ data: { id: nonce, runId, userId: viewer.id, planVersion: run.planVersion, steps: toJsonColumn(payload.steps), expiresAt } });
  const rp = relyingParty();
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    challenge: new Uint8Array(Buffer.from(challenge, "base64url")),
    allowCredentials: passkeys.map((p) => ({ id: p.credentialID, ...(p.transports ? { transports: p.transports.split(",").filter(Boolean) as never } : {}) })),
    userVerification: "required",
    timeout: CHALLENGE_TTL_MS,
  });
  const stepWords = chosen.map((s) => {
    const amount = getTool(s.tool)?.amount(s.args as never);
    return `step ${s.id} (${s.tool}${amount ? `, ${formatMoney(amount)}` : ""}, digest ${digest(s).slice(0, 12)}…)`;
  });
  return { nonce, challenge, payload, covers: describeSignedCoverage({ runId, planVersion: run.planVersion, approverName: viewer.name, steps: stepWords }), expiresAt: expiresAt.toISOString(), options: options as PublicKeyCredentialRequestOptionsJSON & { [k: string]: unknown } };
}
