import type { Tx } from "../transaction";

/**
 * Four eyes: when the claimed approval of a step is consumed, the other approvals of
 * the same step and plan version that the claim took with it (state `claimed`) are consumed too.
 * `exec` is the step execution row. Returns how many rows changed.
 */
export async function consumeCoApprovals(tx: Tx, exec: { runId: string; stepId: string; planVersion: number; approvalId: string }): Promise<number> {
  const res = await tx.approval.updateMany({
    where: { runId: exec.runId, stepId: exec.stepId, planVersion: exec.planVersion, state: "claimed", NOT: { id: exec.approvalId } },
    data: { state: "consumed" },
  });
  return res.count;
}
