import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import { checkSignedApproval } from "../../signatures/signed-approval";
import { signedApprovalSchema } from "../../signatures/schema";
import type { ClaimRefusal } from "../claims/decide-claim";
import type { Db } from "../db/transaction";
import { relyingParty } from "../passkeys/passkey-plugin";

/**
 * The claim's check of signed approvals: when the gate-policy rule that governed an active
 * approval of `step` (its `policyRuleId`) requires a signature, every active approval of the step's
 * digest must carry one that verifies now, without trusting the row — its payload names this run,
 * plan version `version`, the approver and this step's digest; its challenge is the payload's hash;
 * the assertion verifies for this instance's relying party with user verification; and its public
 * key is the one of a passkey the approver has registered. So a database edit alone (an approval
 * row inserted or changed, a signature copied from another step) cannot make a step claimable.
 * Returns the refusal `approval_missing` {stepId, planVersion, signature: "missing" | "invalid"} or null.
 */
export async function unsignedApprovalRefusal(db: Db, runId: string, step: Pick<Step, "id" | "tool" | "args">, version: number): Promise<ClaimRefusal | null> {
  const stepDigest = digest(step);
  const approvals = await db.approval.findMany({
    where: { runId, planVersion: version, stepId: step.id, state: "active", digest: stepDigest },
    select: { id: true, approverId: true, policyRuleId: true, signature: true },
  });
  const ruleIds = [...new Set(approvals.map((a) => a.policyRuleId).filter((r): r is string => r !== null))];
  if (ruleIds.length === 0) return null;
  const signedRules = await db.gatePolicyRule.count({ where: { id: { in: ruleIds }, requireSignature: true } });
  if (signedRules === 0) return null;
  const rp = relyingParty();
  const refuse = (signature: "missing" | "invalid", approverId: string | null): ClaimRefusal => ({
    kind: "refuse",
    code: "approval_missing",
    message:
      signature === "missing"
        ? `Step ${step.id} needs its approver's signature and an approval has none; it cannot be claimed.`
        : `The signature on the approval of step ${step.id} does not verify for this run, plan version, step and approver; it cannot be claimed.`,
    details: { stepId: step.id, planVersion: version, signature, approverId },
    effect: "none",
  });
  for (const a of approvals) {
    if (!a.approverId || a.signature === null) return refuse("missing", a.approverId);
    const parsed = signedApprovalSchema.safeParse(a.signature);
    if (!parsed.success) return refuse("invalid", a.approverId);
    const s = parsed.data;
    const key = await db.passkey.findFirst({ where: { userId: a.approverId, credentialID: s.credentialId }, select: { publicKey: true } });
    if (!key) return refuse("invalid", a.approverId);
    const fault = await checkSignedApproval(s, {
      runId,
      planVersion: version,
      approverId: a.approverId,
      steps: [{ stepId: step.id, digest: stepDigest }],
      rpID: rp.rpID,
      origin: rp.origin,
      expectedPublicKey: Buffer.from(key.publicKey, "base64").toString("base64url"),
    });
    if (fault) return refuse("invalid", a.approverId);
  }
  return null;
}
