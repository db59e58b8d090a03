import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import { checkSignedApproval } from "../../signatures/signed-approval";
import { signedApprovalSchema } from "../../signatures/schema";
import type { ClaimRefusal } from "./decide-claim";
import type { Db } from "../db/transaction";
import { relyingParty } from "../auth/passkey-plugin";
import { requirementsOf } from "../../gate-policy/evaluate";
import { gateRulesFor } from "../gate-policy/load-gate-policy";
import { catalogAt } from "../tools/imported-tools";

/**
 * The claim's check of signed approvals: when the gate policy the run was gated under (its
 * `policyVersion`, evaluated again for the step with its tool catalog) or the rule an active approval
 * of `step` names (`policyRuleId`) requires a signature, every active approval of the step's
 * digest must carry one that verifies now, without trusting the row — its payload names this run,
 * plan version `version`, the approver and this step's digest; its challenge is the payload's hash;
 * the assertion verifies for this instance's relying party with user verification; and its public
 * key is the one of a passkey the approver has registered. So a database edit alone (an approval
 * row inserted or changed, a signature copied from another step) cannot make a step claimable.
 * Returns the refusal `approval_missing` {stepId, planVersion, signature: "missing" | "invalid"} or null.
 */
export async function unsignedApprovalRefusal(db: Db, runId: string, step: Pick<Step, "id" | "tool" | "args">, version: number): Promise<ClaimRefusal | null> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { desk: true, accountId: true, policyVersion: true, catalogVersion: true } });
  if (!run) return null; // the claim's own reading answers not_found
  const stepDigest = digest(step);
  const approvals = await db.approval.findMany({
    where: { runId, planVersion: version, stepId: step.id, state: "active", digest: stepDigest },
    select: { id: true, approverId: true, policyRuleId: true, signature: true },
  });
  if (!(await signatureRequired(db, run, step, approvals))) return null;
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

/** Whether `step` of `run` needs signed approvals: under the run's recorded gate policy, or by the rule an approval names. */
async function signatureRequired(
  db: Db,
  run: { desk: string; accountId: string; policyVersion: number | null; catalogVersion: number | null },
  step: Pick<Step, "id" | "tool" | "args">,
  approvals: { policyRuleId: string | null }[],
): Promise<boolean> {
  const ruleIds = [...new Set(approvals.map((a) => a.policyRuleId).filter((r): r is string => r !== null))];
  if (ruleIds.length && (await db.gatePolicyRule.count({ where: { id: { in: ruleIds }, requireSignature: true } })) > 0) return true;
  if (!run.policyVersion) return false;
  // Only a policy version with a signed rule can require one: most claims stop at this count.
  if ((await db.gatePolicyRule.count({ where: { policyVersion: run.policyVersion, requireSignature: true } })) === 0) return false;
  const [ctx, catalog] = await Promise.all([gateRulesFor(db, run, run.policyVersion), catalogAt(run.catalogVersion, db)]);
  return requirementsOf([{ id: step.id, tool: step.tool, args: step.args }], (name) => catalog.get(name), ctx)[step.id]?.requireSignature === true;
}
