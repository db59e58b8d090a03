import type { ClaimBody } from "../../api/bodies";
import type { ErrorCode } from "../../errors/domain-error";
import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import type { RunStatus } from "../../lifecycle/run-state";
import { outcomeOf } from "./execution-view";
import { storedDecisionReason, type DecisionReason } from "../../lifecycle/needs-decision";

/**
 * The pure decision of a claim (docs/design.md §9, docs/api.md claim refusals): given everything the
 * server read about the run, the step and its approval at `now` (UTC), either a typed refusal
 * (with the side effect the refusal implies: stop the run for a stale task, persist an expiry)
 * or the go-ahead for the dispatch-time checks and the conditional writes. No I/O; tested
 * without a database (decide-claim.test.ts). The order of checks is the order of docs/api.md's
 * refusals, most specific first.
 */

/** What the claim reads before deciding. Absent rows are `null`. */
export interface ClaimSnapshot {
  now: Date;
  agentId: string;
  runId: string;
  stepId: string;
  body: ClaimBody;
  run: null | {
    id: string;
    agentId: string;
    taskId: string;
    ticketId: string;
    /** The run's tenant desk: every record its steps target must belong to it. */
    desk: string;
    /** The tool catalog version the run was validated against (null: built-in tools only). */
    catalogVersion: number | null;
    status: RunStatus;
    planVersion: number;
    approvedVersion: number | null;
    boundTaskRevision: number;
    expiresAt: Date;
    stopReason: unknown;
    /** Why a `needs_decision` run waits for a person (`run.decisionReason`), when it does. */
    decisionReason?: unknown;
  };
  /** The task's live revision and text. */
  liveTaskRevision: number;
  taskText: string;
  /** Steps of the run's current plan version, in order. */
  steps: Step[];
  /** True when `stepId` is in an earlier version of the plan but not the current one. */
  stepInEarlierVersion: boolean;
  /** Every claim of the run so far (`resolution`: what a person recorded for an unknown outcome). */
  executions: { stepId: string; status: string; resolution: string | null; claimedAt: Date }[];
  /** The latest approval of (run, approvedVersion, step), when there is an approved version. */
  approval: null | { id: string; state: string; digest: string; expiresAt: Date; boundTaskRevision: number; approverId: string | null; createdAt: Date; recordVersions?: unknown };
  /**
   * Four eyes: every approval of (run, approvedVersion, step) — `approval` is the one
   * the claim records (the first approver's). Absent: `approval` alone is the set.
   */
  approvals?: { approverId: string | null; state: string; digest: string; approvalsRequired: number }[];
}

/** The typed refusal a claim gets; `effect` is what the refusal changes besides being recorded. */
export interface ClaimRefusal {
  kind: "refuse";
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  /**
   * `none`: recorded only; `stop_stale_task`: the run stops; `expire`: the passed deadline is
   * persisted; `needs_decision`: the run moves to a person (lib/lifecycle/needs-decision.ts) with `decisionReason`.
   */
  effect: "none" | "stop_stale_task" | "expire" | "needs_decision";
  /** With effect `needs_decision`: the reason stored on the run. */
  decisionReason?: DecisionReason;
  /** Not found: neither audited nor saved under the idempotency key (the caller has no such step). */
  unrecorded?: boolean;
}

/** All claim conditions hold: go on with the dispatch-time checks, then write. */
export interface ClaimGoAhead {
  kind: "go";
  step: Step;
  version: number;
  approval: NonNullable<ClaimSnapshot["approval"]>;
  /** True when this is the run's first claim (approved → executing). */
  firstClaim: boolean;
}

export type ClaimDecision = ClaimRefusal | ClaimGoAhead;

const refuse = (code: ErrorCode, message: string, details: Record<string, unknown> = {}, effect: ClaimRefusal["effect"] = "none"): ClaimRefusal => ({
  kind: "refuse",
  code,
  message,
  details,
  effect,
});

/**
 * `stopped_stale_task` details (docs/api.md): bound and live revision, the steps that succeeded under
 * the old revision (`executedStepIds`), the steps claimed but not reported (`claimedStepIds`),
 * every claim with its outcome in plan order (`executions`), and the step that was blocked.
 */
export function staleTaskDetails(snap: Pick<ClaimSnapshot, "steps" | "executions" | "liveTaskRevision">, boundRevision: number, blockedStepId: string) {
  const position = new Map(snap.steps.map((s, i) => [s.id, i]));
  const executions = [...snap.executions]
    .sort((a, b) => (position.get(a.stepId) ?? 1e9) - (position.get(b.stepId) ?? 1e9) || a.claimedAt.getTime() - b.claimedAt.getTime())
    .map((e) => ({ stepId: e.stepId, status: outcomeOf(e) }));
  return {
    boundRevision,
    liveRevision: snap.liveTaskRevision,
    executedStepIds: executions.filter((e) => e.status === "succeeded").map((e) => e.stepId),
    claimedStepIds: executions.filter((e) => e.status === "claimed" || e.status === "unknown").map((e) => e.stepId),
    executions,
    blockedStepId,
  };
}

/** Decides a claim from `snap` (see the module comment). Pure. */
export function decideClaim(snap: ClaimSnapshot): ClaimDecision {
  const { run, stepId, body, now } = snap;
  if (!run || run.agentId !== snap.agentId) return { ...refuse("not_found", `Run ${snap.runId} was not found.`), unrecorded: true };
  const step = snap.steps.find((s) => s.id === stepId);
  if (!step) {
    if (!snap.stepInEarlierVersion) return { ...refuse("not_found", `Run ${run.id} has no step ${stepId}.`), unrecorded: true };
    return refuse("approval_missing", `Step ${stepId} is no longer in the plan (current version ${run.planVersion}); nothing approves it.`, { stepId, planVersion: run.planVersion });
  }

  // 1. A step is claimed once, whatever else changed since.
  const execution = snap.executions.find((e) => e.stepId === stepId);
  if (execution) {
    return refuse("already_claimed", `Step ${stepId} was already claimed (${execution.claimedAt.toISOString()}); a step is claimed once and never replayed.`, {
      stepId,
      stepStatus: outcomeOf(execution),
      claimedAt: execution.claimedAt.toISOString(),
    });
  }

  // 2. The run's own state.
  const expired = () => refuse("expired", `This run's deadline (${run.expiresAt.toISOString()}) has passed; submit a new plan.`, { expiresAt: run.expiresAt.toISOString() });
  if (run.status === "stopped") {
    if ((run.stopReason as { code?: string } | null)?.code === "stopped_stale_task") {
      const details = staleTaskDetails(snap, run.boundTaskRevision, stepId);
      return refuse("stopped_stale_task", `This run was stopped: the task moved from revision ${details.boundRevision} to ${details.liveRevision}. Submit a new plan for the current task.`, details);
    }
    return refuse("run_not_approved", "This run was stopped; no step can be claimed.", { status: run.status });
  }
  if (run.status === "expired") return expired();
  if (run.status === "rejected" || run.status === "completed" || run.status === "failed" || run.status === "superseded") {
    const why = run.status === "superseded" ? "superseded by a newer plan for its task" : run.status;
    return refuse("run_not_approved", `This run is ${why}; no step can be claimed.`, { status: run.status });
  }
  if (run.expiresAt.getTime() <= now.getTime()) return { ...expired(), effect: "expire" };
  if (run.status === "pending_review") return refuse("run_not_approved", "This run is waiting for review; wait for a decision before claiming.", { status: run.status });
  if (run.status === "needs_decision") {
    const reason = storedDecisionReason(run.decisionReason);
    return refuse("run_not_approved", `This run waits for a person's new decision${reason ? ` (${reason.message.replace(/\.$/, "")})` : ""}; wait for the decision before claiming.`, {
      status: run.status,
      decisionReason: reason,
    });
  }

  // 3. The task it serves (approved | executing from here on).
  if (snap.liveTaskRevision !== run.boundTaskRevision) {
    const details = staleTaskDetails(snap, run.boundTaskRevision, stepId);
    const done = details.executedStepIds.length ? ` (already executed: ${details.executedStepIds.join(", ")}).` : " (nothing was executed).";
    return refuse(
      "stopped_stale_task",
      `The task changed: this run is bound to revision ${details.boundRevision}, the task is now at revision ${details.liveRevision}. Step ${stepId} was not claimed and the run is stopped${done} Submit a new plan for the current task.`,
      details,
      "stop_stale_task",
    );
  }
  if (body.taskRevision !== run.boundTaskRevision) {
    return refuse("stale_task", `This run is bound to task revision ${run.boundTaskRevision} (also the live one); the claim says ${body.taskRevision}. Re-read the run.`, {
      boundRevision: run.boundTaskRevision,
      liveRevision: snap.liveTaskRevision,
      requestedRevision: body.taskRevision,
    });
  }

  // 4. The approval contract.
  const version = run.approvedVersion;
  if (version === null || version !== run.planVersion) {
    return refuse("approval_missing", `Plan version ${run.planVersion} has not been approved${version !== null ? ` (approvals cover version ${version})` : ""}.`, {
      stepId,
      planVersion: run.planVersion,
      approvedVersion: version,
    });
  }
  const approval = snap.approval;
  if (!approval) return refuse("approval_missing", `Step ${stepId} of plan version ${version} has no approval.`, { stepId, planVersion: version });
  if (approval.state === "claimed" || approval.state === "consumed") {
    return refuse("already_claimed", `The approval of step ${stepId} was already ${approval.state}.`, { stepId, approvalState: approval.state });
  }
  if (approval.state !== "active") {
    return refuse("approval_missing", `The approval of step ${stepId} is ${approval.state}, not active.`, { stepId, planVersion: version, approvalState: approval.state });
  }
  if (approval.expiresAt.getTime() <= now.getTime()) {
    return refuse("expired", `The approval of step ${stepId} has expired (${approval.expiresAt.toISOString()}).`, { expiresAt: approval.expiresAt.toISOString(), stepId });
  }
  if (approval.boundTaskRevision !== run.boundTaskRevision) {
    return refuse("approval_missing", `The approval of step ${stepId} was given for task revision ${approval.boundTaskRevision}, not ${run.boundTaskRevision}.`, {
      stepId,
      planVersion: version,
      approvalTaskRevision: approval.boundTaskRevision,
    });
  }
  const storedDigest = digest(step);
  if (storedDigest !== approval.digest) {
    return refuse("digest_mismatch", `Step ${stepId} as stored does not match what was approved.`, { stepId, approvedDigest: approval.digest, storedDigest });
  }
  if (body.digest !== approval.digest) {
    return refuse("digest_mismatch", `The digest sent for step ${stepId} is not the digest of the approved step; do not write it.`, {
      stepId,
      approvedDigest: approval.digest,
      requestDigest: body.digest,
    });
  }
  // 4b. Four eyes: the full set of distinct active approvals of this digest.
  if (snap.approvals) {
    const need = Math.max(1, ...snap.approvals.map((a) => a.approvalsRequired));
    const given = snap.approvals.filter((a) => a.state === "active" && a.digest === approval.digest).length;
    if (given < need) {
      return refuse("approval_missing", `Step ${stepId} has ${given} of ${need} approvals; it needs ${need - given} more before it can be claimed.`, {
        stepId,
        planVersion: version,
        approvalsGiven: given,
        approvalsRequired: need,
      });
    }
  }
  // 5. Plan order: every prerequisite — the declared `dependsOn`, else every earlier step — succeeded.
  const order = prerequisiteRefusal(snap.steps, step, snap.executions);
  if (order) return order;
  return { kind: "go", step, version, approval, firstClaim: run.status === "approved" };
}

/**
 * The plan-order refusal of claiming `step`, or null: its prerequisites are `step.dependsOn` when
 * declared, else every earlier step of the plan. One that failed (reported or reconciled) blocks it
 * for good: `prerequisite_failed`; one not yet claimed, claimed without report, or with an unknown
 * outcome: `prerequisite_pending`. Both name the prerequisite step.
 */
export function prerequisiteRefusal(steps: ClaimSnapshot["steps"], step: ClaimSnapshot["steps"][number], executions: ClaimSnapshot["executions"]): ClaimRefusal | null {
  const at = steps.findIndex((s) => s.id === step.id);
  const prerequisites = step.dependsOn ?? steps.slice(0, at).map((s) => s.id);
  for (const id of prerequisites) {
    const e = executions.find((x) => x.stepId === id);
    const position = steps.findIndex((s) => s.id === id) + 1;
    const outcome = e ? outcomeOf(e) : "not claimed";
    if (outcome === "succeeded") continue;
    if (outcome === "failed") {
      return refuse("prerequisite_failed", `Step ${step.id} needs step ${position} (${id}) to succeed first, and it failed; this step will not run in this plan.`, {
        stepId: step.id,
        prerequisiteStepId: id,
        prerequisiteStatus: outcome,
      });
    }
    return refuse("prerequisite_pending", `Step ${step.id} needs step ${position} (${id}) to succeed first; it is ${outcome === "not claimed" ? "not claimed yet" : outcome === "claimed" ? "claimed but not reported" : "of unknown outcome"}. Claim and write it first.`, {
      stepId: step.id,
      prerequisiteStepId: id,
      prerequisiteStatus: outcome,
    });
  }
  return null;
}
