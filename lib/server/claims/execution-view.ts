import type { Prisma } from "../../generated/prisma/client";
import type { RecordVersions } from "../../records/record-key";

/**
 * A claim stored without a lease (before leases were kept) and with no outcome report after this
 * many seconds may be reconciled by a supervisor. Source: docs/design.md §10 — every waiting
 * state has an owner, a deadline and a way out.
 */
export const STALE_CLAIM_SECONDS = 15 * 60;

/**
 * Whether a claim with no outcome report is a person's to settle now: its lease has ended
 * (`leaseExpiresAt` ≤ `now`, UTC) — from then on the token fences no write, so the executor can
 * no longer write the step and a supervisor reconciles it — or, for a claim stored without a
 * lease, STALE_CLAIM_SECONDS have passed since it was made. False for any other status.
 */
export function claimAwaitsReconciliation(exec: { status: string; claimedAt: Date; leaseExpiresAt: Date | null }, now: Date): boolean {
  if (exec.status !== "claimed") return false;
  if (exec.leaseExpiresAt) return exec.leaseExpiresAt.getTime() <= now.getTime();
  return now.getTime() - exec.claimedAt.getTime() >= STALE_CLAIM_SECONDS * 1000;
}

/** The answer to a successful claim: `{token, stepId, digest}` of docs/api.md plus what it is bound to. Times ISO UTC. */
export interface ClaimView {
  token: string;
  stepId: string;
  digest: string;
  runId: string;
  planVersion: number;
  taskRevision: number;
  approvalId: string;
  claimedAt: string;
  /** Until when the token fences writes (the claim's lease, ISO UTC); a write after it is refused. */
  leaseExpiresAt: string;
  /**
   * When the executor must NOT write this step, as the agent stated it and the approver saw it
   * (the step's `stopCondition`), or null. An executor that finds it met reports the outcome with
   * `stopConditionMet: true` (status `failed`: nothing written), which stops the run.
   */
  stopCondition: string | null;
  /**
   * The source versions of the records the step's arguments name, as the approval saw them
   * (`{"invoice:in_74119": 8}`; records without a source version left out). Read the live
   * versions of your target right before the write and send them to the fence (`targetVersions`):
   * one that moved is refused `target_changed`.
   */
  recordVersions: RecordVersions;
}

/**
 * One step's claim as the API shows it (never the token). `status` is what the executor
 * reported (`claimed` until it reports); `outcome` is what counts: a person's `resolution`
 * when the step was reconciled, else `status`.
 */
export interface StepExecutionView {
  runId: string;
  stepId: string;
  status: "claimed" | "succeeded" | "failed" | "unknown";
  outcome: "claimed" | "succeeded" | "failed" | "unknown";
  detail: string | null;
  planVersion: number;
  digest: string;
  taskRevision: number;
  claimedAt: string;
  reportedAt: string | null;
  resolution: "succeeded" | "failed" | null;
  reconciledBy: string | null;
  reconciledAt: string | null;
  /** Why a recorded report still needs a person (e.g. "reported_after_stopped"), or null. */
  flag: string | null;
}

/** A step waiting for a person: an `unknown` outcome, a claim never reported on, or a flagged report. */
export interface ReconciliationItem extends StepExecutionView {
  reason: "unknown_outcome" | "no_report" | "flagged_report";
  ticketId: string;
  tool: string;
  runStatus: string;
}

/** A claim row (table `step_execution`). */
export type ExecutionRow = Prisma.StepExecutionGetPayload<object>;

/** Builds the API view of a claim row (the token is never shown). */
export function toStepExecutionView(e: ExecutionRow): StepExecutionView {
  const status = e.status as StepExecutionView["status"];
  const resolution = (e.resolution as StepExecutionView["resolution"]) ?? null;
  return {
    runId: e.runId,
    stepId: e.stepId,
    status,
    outcome: resolution ?? status,
    detail: e.detail,
    planVersion: e.planVersion,
    digest: e.digest,
    taskRevision: e.taskRevision,
    claimedAt: e.claimedAt.toISOString(),
    reportedAt: e.reportedAt?.toISOString() ?? null,
    resolution,
    reconciledBy: e.reconciledBy,
    reconciledAt: e.reconciledAt?.toISOString() ?? null,
    flag: e.flag,
  };
}

/** What counts for a step: a person's resolution, else the executor's report. */
export function outcomeOf(e: Pick<ExecutionRow, "status" | "resolution">): string {
  return e.resolution ?? e.status;
}

/** True while a claim still waits for someone: claimed without report, unknown, or a flagged report — and not reconciled. */
export function isOutstanding(e: Pick<ExecutionRow, "status" | "resolution"> & { flag?: string | null }): boolean {
  return !e.resolution && (e.status === "claimed" || e.status === "unknown" || !!e.flag);
}
