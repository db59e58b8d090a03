import { approvalFromStates, approvalToState, type ApprovalEvent } from "../../lifecycle/approval-state";
import type { Prisma } from "../../generated/prisma/client";
import type { Tx } from "../db/transaction";

/**
 * The one writer of `approval.state` (docs/style.md §12), beside the run's lifecycle: an event of
 * lib/lifecycle/approval-state.ts applied as one conditional update `WHERE state IN (from) AND where`, in the
 * caller's transaction. `where` narrows the records (a run, a step, a digest, an id; for a claim
 * also `expiresAt`). Returns how many records moved — 0 when none was in a state the event may
 * start from (a lost race shows as a count, never as a second transition).
 */
export async function moveApprovals(tx: Tx, event: Exclude<ApprovalEvent, "give">, where: Prisma.ApprovalWhereInput): Promise<number> {
  const res = await tx.approval.updateMany({ where: { ...where, state: { in: approvalFromStates(event) } }, data: { state: approvalToState(event) } });
  return res.count;
}

/**
 * Creates an approval record in the state the `give` event leads to (`active`), in the caller's
 * transaction: a person's approval, the gate policy's, or one carried to a new plan version.
 * `data` is everything but the state. Returns the record.
 */
export async function giveApproval(tx: Tx, data: Omit<Prisma.ApprovalUncheckedCreateInput, "state">) {
  return tx.approval.create({ data: { ...data, state: approvalToState("give") } });
}
