import { z } from "zod";
import type { RunStatus } from "./run-state";

/**
 * What an agent is told about a run that will not move on by itself: the typed end of the run
 * (`GET /api/v1/runs/{id}` field `outcome`). Pure; no I/O.
 *
 * Every status an agent can meet either has a decision path (someone or something will move it:
 * `pending_review`, `approved`, `needs_decision` (a person decides again), `executing` → `outcome: null`) or ends with one of these codes:
 * - `completed`: every step succeeded;
 * - `superseded` {supersededById}: the same agent submitted a newer plan for the task;
 * - `stopped_stale_task` {boundRevision, liveRevision}: the task was revised — while the run
 *   waited (nothing can approve it any more) or before a claim; submit a plan for the new revision;
 * - `stopped` {reason}: stopped for another reason (the `stopReason.code`);
 * - `rejected` {reason}: an operator rejected it with that reason;
 * - `expired` {expiresAt}: nobody decided (or claimed) before the deadline;
 * - `failed` {stepId, detail}: a step was reported (or reconciled as) failed — nothing was written
 *   for it;
 * - `cannot_execute` {stepId, tool, detail}: the executor reported it cannot run that step (a tool
 *   it does not implement, typically added by an operator's edit); the run ended and the step is
 *   listed for reconciliation.
 * Every outcome carries a human-readable `message` written for the model.
 */
export const runOutcomeSchema = z.discriminatedUnion("code", [
  z.object({ code: z.literal("completed"), message: z.string() }),
  z.object({ code: z.literal("superseded"), supersededById: z.string().nullable(), message: z.string() }),
  z.object({ code: z.literal("stopped_stale_task"), boundRevision: z.number().int().nullable(), liveRevision: z.number().int().nullable(), message: z.string() }),
  z.object({ code: z.literal("stopped"), reason: z.string(), message: z.string() }),
  z.object({ code: z.literal("rejected"), reason: z.string(), message: z.string() }),
  z.object({ code: z.literal("expired"), expiresAt: z.string(), message: z.string() }),
  z.object({ code: z.literal("failed"), stepId: z.string().nullable(), detail: z.string().nullable(), message: z.string() }),
  z.object({ code: z.literal("cannot_execute"), stepId: z.string(), tool: z.string().nullable(), detail: z.string().nullable(), message: z.string() }),
]);
/** A run's typed end, as {@link runOutcomeSchema} defines it (`expiresAt` ISO UTC). */
export type RunOutcome = z.output<typeof runOutcomeSchema>;

/** The outcome codes, for schemas and exhaustive tests. */
export const RUN_OUTCOME_CODES = ["completed", "superseded", "stopped_stale_task", "stopped", "rejected", "expired", "failed", "cannot_execute"] as const;

/** Flag of a step execution the executor reported it cannot run (stored with status `failed`). */
export const CANNOT_EXECUTE_FLAG = "cannot_execute";

/** What {@link runOutcomeOf} reads of a run. Times are UTC. */
export interface OutcomeFacts {
  id: string;
  status: RunStatus;
  supersededById: string | null;
  rejectionReason: string | null;
  stopReason: unknown;
  expiresAt: Date;
  /** Claims of the run: step id, reported status, flag, detail, a person's resolution. */
  executions: readonly { stepId: string; status: string; flag: string | null; detail: string | null; resolution: string | null }[];
  /** Tool of each step id (for `cannot_execute`). */
  toolOf?: (stepId: string) => string | null;
}

/**
 * The typed outcome of a run in status `facts.status` (already the effective status: a waiting
 * run past its deadline is `expired`), or null while the run still has a decision path.
 */
export function runOutcomeOf(facts: OutcomeFacts): RunOutcome | null {
  const stop = (facts.stopReason ?? {}) as { code?: unknown; boundRevision?: unknown; liveRevision?: unknown };
  switch (facts.status) {
    case "pending_review":
    case "approved":
    case "needs_decision":
    case "executing":
      return null;
    case "completed":
      return { code: "completed", message: `Run ${facts.id} completed: every step succeeded.` };
    case "superseded":
      return {
        code: "superseded",
        supersededById: facts.supersededById,
        message: `Run ${facts.id} was superseded by ${facts.supersededById ?? "a newer plan"} for the same task; nothing of it will run. Wait on the newer run instead.`,
      };
    case "stopped": {
      if (stop.code === "stopped_stale_task") {
        const bound = typeof stop.boundRevision === "number" ? stop.boundRevision : null;
        const live = typeof stop.liveRevision === "number" ? stop.liveRevision : null;
        return {
          code: "stopped_stale_task",
          boundRevision: bound,
          liveRevision: live,
          message: `Run ${facts.id} was stopped: the task moved from revision ${bound ?? "?"} to ${live ?? "?"}, so nothing can approve or run this plan any more. Read the task again and submit a new plan.`,
        };
      }
      const reason = typeof stop.code === "string" ? stop.code : "stopped";
      if (reason === "target_changed") {
        const { record, approvedVersion, liveVersion } = facts.stopReason as { record?: unknown; approvedVersion?: unknown; liveVersion?: unknown };
        return { code: "stopped", reason, message: `Run ${facts.id} was stopped before a write: ${String(record ?? "a record")} is at version ${String(liveVersion ?? "?")} at its source, not the version ${String(approvedVersion ?? "?")} its approval saw. Nothing of that step was written; read the record again and submit a new plan.` };
      }
      return { code: "stopped", reason, message: `Run ${facts.id} was stopped (${reason}); nothing more of it will run.` };
    }
    case "rejected": {
      const reason = facts.rejectionReason ?? "The operator rejected the plan.";
      return { code: "rejected", reason, message: `The operator rejected the plan: ${reason}` };
    }
    case "expired":
      return {
        code: "expired",
        expiresAt: facts.expiresAt.toISOString(),
        message: `Nobody decided on run ${facts.id} before it expired at ${facts.expiresAt.toISOString()}; nothing more of it will run.`,
      };
    case "failed": {
      const cannot = facts.executions.find((e) => e.flag === CANNOT_EXECUTE_FLAG);
      if (cannot) {
        const tool = facts.toolOf?.(cannot.stepId) ?? null;
        return {
          code: "cannot_execute",
          stepId: cannot.stepId,
          tool,
          detail: cannot.detail,
          message: `The executor cannot run step ${cannot.stepId}${tool ? ` (tool ${tool})` : ""}; the run ended and the step waits for a person.${cannot.detail ? ` ${cannot.detail}` : ""}`,
        };
      }
      const failed = facts.executions.find((e) => (e.resolution ?? e.status) === "failed");
      return {
        code: "failed",
        stepId: failed?.stepId ?? null,
        detail: failed?.detail ?? null,
        message: `Run ${facts.id} failed${failed ? ` at step ${failed.stepId}` : ""}: nothing was written for that step.${failed?.detail ? ` ${failed.detail}` : ""}`,
      };
    }
  }
}
