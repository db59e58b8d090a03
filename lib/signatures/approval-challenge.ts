import { createHash } from "node:crypto";
import { canonicalJson } from "../plan/canonical-json";

/**
 * What a signed approval's WebAuthn challenge binds: the run, the plan version the card showed,
 * each signed step's id and digest (lib/plan/digest.ts), the approver's user id and the server's
 * single-use nonce. Source: docs/security.md "Passkeys and signed approvals" (dynamic linking: a change of any
 * of these invalidates the signature).
 */
export interface SignedPayload {
  runId: string;
  planVersion: number;
  /** In plan order. */
  steps: { stepId: string; digest: string }[];
  approverId: string;
  nonce: string;
}

/** The RFC 8785 canonical JSON of `payload` with a fixed domain tag: the bytes whose hash is the challenge. */
export function payloadJson(payload: SignedPayload): string {
  return canonicalJson({
    purpose: "plandesk-approval-v1",
    runId: payload.runId,
    planVersion: payload.planVersion,
    steps: payload.steps.map((s) => ({ stepId: s.stepId, digest: s.digest })),
    approverId: payload.approverId,
    nonce: payload.nonce,
  });
}

/**
 * The WebAuthn challenge of `payload`: base64url (no padding) of SHA-256 of `payloadJson` —
 * 43 characters; the value the authenticator's clientDataJSON carries as `challenge`. Anyone
 * with the payload recomputes it, offline (docs/security.md "Checking a signature offline").
 */
export function challengeOf(payload: SignedPayload): string {
  return createHash("sha256").update(payloadJson(payload), "utf8").digest("base64url");
}

/** The words the approval card shows for what a signature covers, e.g. for the step list `["Step 4 (issue_refund, $1,600.00)"]`. */
export function describeSignedCoverage(p: { runId: string; planVersion: number; approverName: string; steps: string[] }): string {
  return (
    `Your passkey signs: run ${p.runId}, plan version ${p.planVersion}, and exactly ${p.steps.length === 1 ? "this step" : "these steps"} as shown — ` +
    `${p.steps.join("; ")} — approved by ${p.approverName}, with a single-use code from the server. ` +
    `Any change to a step's tool or arguments, or a new plan version, makes the signature invalid.`
  );
}
