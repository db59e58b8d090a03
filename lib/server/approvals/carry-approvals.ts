import type { ToolCatalog } from "../../tools/versioned-catalog";
import { nanoid } from "nanoid";
import type { Prisma } from "../../generated/prisma/client";
import type { Plan } from "../../plan/schema";
import type { AccountSnapshot } from "../../desk/snapshot";
import type { GateRequirement } from "../../gate-policy/evaluate";
import type { GateDecision } from "../../validation/types";
import { settleReview } from "../lifecycle/run-lifecycle";
import type { Tx } from "../db/transaction";
import { createPolicyApprovals } from "./policy-approvals";
import { giveApprovals, moveApprovals, type ApprovalInput } from "../lifecycle/approval-lifecycle";

/**
 * The active approvals of `prev`, as `decideReapproval` (lib/diff/reapproval.ts) reads them.
 * Read inside the edit's transaction, so the diff and the carry-over see the same approvals.
 */
export async function activeApprovals(tx: Tx, runId: string, version: number) {
  return tx.approval.findMany({ where: { runId, planVersion: version, state: "active" } });
}

/**
 * After a new plan version `next` replaces `prev`: an approval carries over (a new record bound
 * to `next`, the old one marked `superseded`) exactly when its step is NOT in
 * `reapprovalRequired` — the list `diffPlans(prev, next, desk, {issues, approvals})` computed
 * with `decideReapproval` (lib/diff/reapproval.ts: added, changed digest, moved relative to the
 * other steps, prerequisites changed, or a new warning its approver did not acknowledge). Every
 * other active approval of `prev` is marked `invalidated` (docs/design.md §6). `prevApprovals` must
 * be the approvals that list was computed from (`activeApprovals`, same transaction).
 * Returns the step ids whose approvals were invalidated and carried.
 */
export async function carryOrInvalidateApprovals(
  tx: Tx,
  runId: string,
  prev: Plan,
  next: Plan,
  prevApprovals: Awaited<ReturnType<typeof activeApprovals>>,
  reapprovalRequired: readonly string[],
): Promise<{ invalidated: string[]; carried: string[] }> {
  const required = new Set(reapprovalRequired);
  const stillConsented = (a: (typeof prevApprovals)[number]) => next.steps.some((s) => s.id === a.stepId) && !required.has(a.stepId);
  const invalidated: string[] = [];
  const carried: string[] = [];
  const carriedRecords: ApprovalInput[] = [];
  for (const a of prevApprovals) {
    if (stillConsented(a)) {
      carriedRecords.push({
        id: `apr_${nanoid(12)}`,
        runId,
        stepId: a.stepId,
        planVersion: next.version,
        tool: a.tool,
        target: (a.target ?? undefined) as Prisma.InputJsonValue | undefined,
        targetKind: a.targetKind,
        targetId: a.targetId,
        amountMinor: a.amountMinor,
        amountCurrency: a.amountCurrency,
        args: a.args as Prisma.InputJsonValue,
        digest: a.digest,
        boundTaskRevision: a.boundTaskRevision,
        approverId: a.approverId,
        authority: { ...(a.authority as object), carriedFrom: { approvalId: a.id, planVersion: prev.version } },
        acknowledged: a.acknowledged as Prisma.InputJsonValue,
        // the effect its approver saw travels with the consent
        expectedEffect: (a.expectedEffect ?? undefined) as Prisma.InputJsonValue | undefined,
        // and so do the record versions it saw: the fence compares the write's target with them
        recordVersions: (a.recordVersions ?? undefined) as Prisma.InputJsonValue | undefined,
        expiresAt: a.expiresAt,
        approverSlot: a.approverSlot,
        approvalsRequired: a.approvalsRequired,
        policyVersion: a.policyVersion,
        policyRuleId: a.policyRuleId,
      });
      if (!carried.includes(a.stepId)) carried.push(a.stepId);
    } else if (!invalidated.includes(a.stepId)) {
      // Four eyes: a changed step loses all of its approvals at once.
      invalidated.push(a.stepId);
    }
  }
  await giveApprovals(tx, carriedRecords);
  const ids = (stepIds: string[]) => prevApprovals.filter((a) => stepIds.includes(a.stepId)).map((a) => a.id);
  if (carried.length) await moveApprovals(tx, "carry", { id: { in: ids(carried) } });
  if (invalidated.length) await moveApprovals(tx, "invalidate", { id: { in: ids(invalidated) } });
  return { invalidated, carried };
}

/**
 * The approvals of a run after a person's new plan version `next` replaced `prev` (an edit or a
 * discarded edit), in the caller's transaction: approvals carry or are invalidated
 * ({@link carryOrInvalidateApprovals}), the steps the gate policy decides alone get their policy
 * approvals again (`gate` "auto", not carried), and the run settles to `approved` or back to
 * review (lifecycle `settleReview`). `expiresAt` (UTC) bounds the new approvals like the run's.
 * Returns the step ids whose approvals were invalidated and carried.
 */
export async function approvalsForNewVersion(
  tx: Tx,
  run: { id: string; boundTaskRevision: number; expiresAt: Date },
  change: {
    prev: Plan;
    next: Plan;
    prevApprovals: Awaited<ReturnType<typeof activeApprovals>>;
    reapprovalRequired: readonly string[];
    gate: Record<string, GateDecision>;
    requirements: Readonly<Record<string, GateRequirement>>;
    desk: AccountSnapshot;
    /** The run's tool catalog (an imported tool's target and money columns); default: the built-in tools. */
    catalog?: Pick<ToolCatalog, "get">;
  },
): Promise<{ invalidated: string[]; carried: string[] }> {
  const { invalidated, carried } = await carryOrInvalidateApprovals(tx, run.id, change.prev, change.next, change.prevApprovals, change.reapprovalRequired);
  const fresh = Object.fromEntries(Object.entries(change.gate).filter(([id]) => !carried.includes(id)));
  await createPolicyApprovals(tx, run.id, change.next, fresh, change.desk, run.boundTaskRevision, run.expiresAt, change.requirements, change.catalog);
  await settleReview(tx, run.id, change.next.version, change.next.steps.map((s) => s.id));
  return { invalidated, carried };
}
