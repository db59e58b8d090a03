import { nanoid } from "nanoid";
import type { Prisma } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import type { Plan } from "../../plan/schema";
import type { ValidationIssue } from "../../validation/types";
import type { Tx } from "../transaction";

/**
 * After a new plan version `next` replaces `prev`: an approval carries over (a new record bound
 * to `next`, the old one marked `superseded`) only when what the approver consented to is
 * unchanged — same digest, same position in the plan, and no warning on that step needing an
 * acknowledgement the approver did not give. Every other active approval of `prev` is marked
 * `invalidated` (DESIGN.md §6: an edit invalidates the approval of every step whose digest
 * changed; a reorder or a new warning changes what the step means too).
 * Returns the step ids whose approvals were invalidated and carried.
 */
export async function carryOrInvalidateApprovals(
  tx: Tx,
  runId: string,
  prev: Plan,
  next: Plan,
  nextIssues: readonly ValidationIssue[] = [],
): Promise<{ invalidated: string[]; carried: string[] }> {
  const prevApprovals = await tx.approval.findMany({ where: { runId, planVersion: prev.version, state: "active" } });
  const nextDigest = new Map(next.steps.map((s) => [s.id, digest(s)]));
  const nextPos = new Map(next.steps.map((s, i) => [s.id, i]));
  const prevPos = new Map(prev.steps.map((s, i) => [s.id, i]));
  const stillConsented = (a: (typeof prevApprovals)[number]) => {
    if (nextDigest.get(a.stepId) !== a.digest || nextPos.get(a.stepId) !== prevPos.get(a.stepId)) return false;
    const acked = (a.acknowledged as { code: string; stepId: string }[] | null) ?? [];
    return nextIssues
      .filter((i) => i.needsAcknowledgement && i.stepId === a.stepId)
      .every((i) => acked.some((k) => k.code === i.code && k.stepId === a.stepId));
  };
  const invalidated: string[] = [];
  const carried: string[] = [];
  for (const a of prevApprovals) {
    if (stillConsented(a)) {
      await tx.approval.create({
        data: {
          id: `apr_${nanoid(12)}`,
          runId,
          stepId: a.stepId,
          planVersion: next.version,
          tool: a.tool,
          target: (a.target ?? undefined) as Prisma.InputJsonValue | undefined,
          args: a.args as Prisma.InputJsonValue,
          digest: a.digest,
          boundTaskRevision: a.boundTaskRevision,
          approverId: a.approverId,
          authority: { ...(a.authority as object), carriedFrom: { approvalId: a.id, planVersion: prev.version } },
          acknowledged: a.acknowledged as Prisma.InputJsonValue,
          state: "active",
          expiresAt: a.expiresAt,
        },
      });
      carried.push(a.stepId);
    } else {
      invalidated.push(a.stepId);
    }
  }
  const ids = (stepIds: string[]) => prevApprovals.filter((a) => stepIds.includes(a.stepId)).map((a) => a.id);
  if (carried.length) await tx.approval.updateMany({ where: { id: { in: ids(carried) } }, data: { state: "superseded" } });
  if (invalidated.length) await tx.approval.updateMany({ where: { id: { in: ids(invalidated) } }, data: { state: "invalidated" } });
  return { invalidated, carried };
}
