import { nanoid } from "nanoid";
import type { AccountSnapshot } from "../../desk/snapshot";
import type { Prisma } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import type { Plan } from "../../plan/schema";
import { approvalTargetColumns } from "./approval-columns";
import type { ToolCatalog } from "../../tools/versioned-catalog";
import type { GateDecision } from "../../validation/types";
import type { GateRequirement } from "../../gate-policy/evaluate";
import type { Tx } from "../db/transaction";
import { previewEffects } from "../../effects/preview";
import { getTool } from "../../tools/builtin-tools";
import { toJsonColumn } from "../db/json-column";
import { giveApprovals, type ApprovalInput } from "../lifecycle/approval-lifecycle";

/**
 * Records policy approvals for the auto-gated steps of `plan` listed in `gate` (docs/design.md §1.8):
 * the gate policy, not a person, consents; the record still binds digest, plan version and task
 * revision, and expires with the run (`expiresAt`, UTC). A built-in tool's approval also stores
 * the step's expected effect (`expectedEffect`, lib/effects/preview.ts). With
 * `requirements` each records the policy version and rule that made it auto.
 * Returns the approval rows created (one insert statement for all of them).
 */
export async function createPolicyApprovals(
  tx: Tx,
  runId: string,
  plan: Plan,
  gate: Record<string, GateDecision>,
  desk: AccountSnapshot,
  taskRevision: number,
  expiresAt: Date,
  requirements: Readonly<Record<string, GateRequirement>> = {},
  catalog?: Pick<ToolCatalog, "get">,
) {
  const inputs: ApprovalInput[] = [];
  const expected = new Map(previewEffects(plan.steps, desk).map((e) => [e.stepId, e]));
  for (const step of plan.steps) {
    if (gate[step.id] !== "auto") continue;
    const req = requirements[step.id];
    inputs.push({
      id: `apr_${nanoid(12)}`,
      runId,
      stepId: step.id,
      planVersion: plan.version,
      tool: step.tool,
      ...approvalTargetColumns(step, desk, catalog),
      args: step.args as Prisma.InputJsonValue,
      digest: digest(step),
      boundTaskRevision: taskRevision,
      approverId: null,
      authority: { kind: "policy", rule: "auto-gated tool", policyVersion: req?.policyVersion ?? null, ruleId: req?.ruleId ?? null },
      acknowledged: [],
      ...(getTool(step.tool) && expected.has(step.id) ? { expectedEffect: toJsonColumn(expected.get(step.id)) } : {}),
      expiresAt,
      policyVersion: req?.policyVersion || null,
      policyRuleId: req?.ruleId ?? null,
    });
  }
  return giveApprovals(tx, inputs);
}
