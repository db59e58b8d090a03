import type { Tx } from "../db/transaction";
import { moveApprovals } from "../lifecycle/approval-lifecycle";

/**
 * Four eyes: when the claimed approval of a step is consumed, the other approvals of
 * the same step and plan version that the claim took with it (state `claimed`) are consumed too.
 * `exec` is the step execution row. Returns how many rows changed.
 */
export async function consumeCoApprovals(tx: Tx, exec: { runId: string; stepId: string; planVersion: number; approvalId: string }): Promise<number> {
  return moveApprovals(tx, "consume", { runId: exec.runId, stepId: exec.stepId, planVersion: exec.planVersion, NOT: { id: exec.approvalId } });
}
