import { nanoid } from "nanoid";
import type { Prisma } from "../generated/prisma/client";
import { digest } from "../plan/digest";
import type { Plan } from "../plan/schema";
import type { ValidationIssue, ValidationResult } from "../validation/types";
import { storedSteps } from "./runs";

type Tx = Prisma.TransactionClient;

/** The run's plan at `version` as stored, or throws when the version row is missing. */
export async function loadPlanVersion(tx: Tx, runId: string, version: number): Promise<{ plan: Plan; validation: Pick<ValidationResult, "issues" | "gate"> }> {
  const pv = await tx.planVersion.findUniqueOrThrow({ where: { runId_version: { runId, version } } });
  return {
    plan: { version, steps: storedSteps(pv.steps) },
    validation: (pv.validation ?? { issues: [], gate: {} }) as unknown as Pick<ValidationResult, "issues" | "gate">,
  };
}

/**
 * After a new plan version `next` replaces `prev`: an approval carries over (a new record bound
 * to `next`, the old one marked `superseded`) only when what the approver consented to is
 * unchanged — same digest, same position in the plan, and no warning on that step needing an
 * acknowledgement the approver did not give. Every other approval is marked `invalidated`
 * (DESIGN.md §6: an edit invalidates the approval of every step whose digest changed; a reorder
 * or a new warning changes what the step means too). Returns the invalidated step ids.
 */
export async function carryOrInvalidateApprovals(
  tx: Tx,
  runId: string,
  prev: Plan,
  next: Plan,
  nextIssues: readonly ValidationIssue[] = [],
): Promise<{ invalidated: string[]; carried: string[] }> {
  const prevVersion = prev.version;
  const prevApprovals = await tx.approval.findMany({ where: { runId, planVersion: prevVersion, state: "active" } });
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
          authority: { ...(a.authority as object), carriedFrom: { approvalId: a.id, planVersion: prevVersion } },
          acknowledged: a.acknowledged as Prisma.InputJsonValue,
          state: "active",
          expiresAt: a.expiresAt,
        },
      });
      await tx.approval.update({ where: { id: a.id }, data: { state: "superseded" } });
      carried.push(a.stepId);
    } else {
      await tx.approval.update({ where: { id: a.id }, data: { state: "invalidated" } });
      invalidated.push(a.stepId);
    }
  }
  return { invalidated, carried };
}

/**
 * Sets the run's status from its approvals: `approved` (with `approvedVersion`) when every step
 * of `version` has an active approval, else `pending_review`. Conditional on the run still being
 * at `version` and waiting, so a concurrent edit never gets approved by accident.
 * Returns true when the run is now approved.
 */
export async function settleRunStatus(tx: Tx, runId: string, plan: Plan): Promise<boolean> {
  const active = await tx.approval.findMany({ where: { runId, planVersion: plan.version, state: "active" }, select: { stepId: true } });
  const approvedIds = new Set(active.map((a) => a.stepId));
  const all = plan.steps.length > 0 && plan.steps.every((s) => approvedIds.has(s.id));
  await tx.run.updateMany({
    where: { id: runId, planVersion: plan.version, status: { in: ["pending_review", "approved"] } },
    data: all ? { status: "approved", approvedVersion: plan.version } : { status: "pending_review", approvedVersion: null },
  });
  return all;
}
