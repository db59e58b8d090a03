import type { Prisma } from "../../generated/prisma/client";
import type { RunView } from "../plans/run-view";

/** One approval contract as the API returns it (docs/design.md §5). `expiresAt` is ISO UTC. */
export interface ApprovalView {
  id: string;
  runId: string;
  stepId: string;
  planVersion: number;
  tool: string;
  digest: string;
  boundTaskRevision: number;
  approverId: string | null;
  state: string;
  expiresAt: string;
  acknowledged: { code: string; stepId: string }[];
}

/** Response of an approval: the active approvals of the version and the run after them. */
export interface ApproveResult {
  approvals: ApprovalView[];
  run: RunView;
  /**
   * Listed steps that were already fully approved before this decision: nothing was added for
   * them (the answer is 200 instead of 201 when nothing at all was added).
   */
  alreadyApproved?: string[];
  /** How many approvals this decision added (0: everything listed was already approved). */
  added?: number;
}

/** The API view of an approval row. */
export function toApprovalView(a: Prisma.ApprovalGetPayload<object>): ApprovalView {
  return {
    id: a.id,
    runId: a.runId,
    stepId: a.stepId,
    planVersion: a.planVersion,
    tool: a.tool,
    digest: a.digest,
    boundTaskRevision: a.boundTaskRevision,
    approverId: a.approverId,
    state: a.state,
    expiresAt: a.expiresAt.toISOString(),
    acknowledged: Array.isArray(a.acknowledged) ? (a.acknowledged as { code: string; stepId: string }[]) : [],
  };
}
