/**
 * The claim → fence → write → outcome helper for one step (docs/design.md §9): the loop every
 * executor of an approved Plandesk step runs, for executors that are not one of the framework
 * adapters (those run it for you through `PlanExecutor`).
 */
import type { AgentClient, ApiError, Claim, Fence, FenceRefusalCode, RecordVersions, Result, StepOutcomeStatus } from "./client.js";

/** What a write reports: its outcome and a line for the console. */
export interface WriteOutcome {
  status: StepOutcomeStatus;
  detail?: string;
  /**
   * With `succeeded`: the versions your system of record gave the written records
   * (`{"invoice:in_74119": 9}`), reported with the outcome. Plandesk keeps the written amount on
   * hold until its local copy syncs that version (not counted twice, not available twice), and the
   * run's later steps on the same record expect it at their fence.
   */
  targetVersions?: RecordVersions;
}

/**
 * The fence a `write` calls inside its own transaction, right before committing. Pass
 * `targetVersions` — the live source versions of the records it is about to write, as your system
 * of record has them now (`{"invoice:in_74119": 8}`; compare the claim's `recordVersions`): a record
 * that moved since the approval is refused `target_changed` (409 {record, approvedVersion,
 * liveVersion}) and the run stops. Without them only the token is checked.
 */
export type FenceCheck = (opts?: { targetVersions?: RecordVersions }) => Promise<Result<{ fence: Fence }, FenceRefusalCode>>;

/** What `executeStep` did: claimed and wrote (with the outcome reported), or stopped with the typed reason, writing nothing. */
export type ExecuteResult =
  | { ok: true; claim: Claim; outcome: WriteOutcome; reported: boolean }
  | { ok: false; stage: "claim" | "fence"; error: ApiError<string>; claim?: Claim };

/**
 * Claim → write → report, the reference executor's loop for one step (docs/design.md §9):
 * claims the step with its approved `digest` and the bound `taskRevision`; hands `write` the claim
 * (its `recordVersions`: what the approval saw) and a `fence` (see `FenceCheck`) that asks the
 * console whether the token still holds and, given the live `targetVersions`, whether the target is
 * still as approved — call it inside the write's own transaction, right before committing; if it
 * does not hold (`claim_fenced`, `target_changed`…), write nothing and return `{status: "failed"}`
 * or throw: the helper reports `failed` ("not written") whatever `write` returns then. The outcome
 * `write` returns is reported, with its `targetVersions` (the versions after the write); a `write`
 * that throws after the fence held is reported `unknown` (a person finds out what happened —
 * never retried). A refused claim or fence stops with the typed reason (`stage`, `error.code`;
 * `target_changed` carries `record`, `approvedVersion`, `liveVersion`). Never throws for API refusals.
 */
export async function executeStep(
  client: AgentClient,
  step: { runId: string; stepId: string; digest: string; taskRevision: number; idempotencyKey: string },
  write: (ctx: { claim: Claim; fence: FenceCheck }) => Promise<WriteOutcome>,
): Promise<ExecuteResult> {
  const claimed = await client.claimStep(step.runId, step.stepId, { digest: step.digest, taskRevision: step.taskRevision }, { idempotencyKey: step.idempotencyKey });
  if (!claimed.ok) return { ok: false, stage: "claim", error: claimed.error };
  const claim = claimed.claim;
  let fenceRefusal: ApiError<string> | null = null;
  const fence: FenceCheck = async (opts) => {
    const f = await client.fenceClaim(claim.token, opts?.targetVersions ? { targetVersions: opts.targetVersions } : undefined);
    if (!f.ok) fenceRefusal = f.error;
    return f;
  };
  let outcome: WriteOutcome;
  try {
    outcome = await write({ claim, fence });
  } catch (e) {
    outcome = fenceRefusal ? { status: "failed", detail: `not written: ${(fenceRefusal as ApiError<string>).code}` } : { status: "unknown", detail: `the write threw: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (fenceRefusal && outcome.status === "succeeded") outcome = { status: "failed", detail: `not written: the fence refused (${(fenceRefusal as ApiError<string>).code})` };
  const versions = !fenceRefusal && outcome.status === "succeeded" && outcome.targetVersions ? { targetVersions: outcome.targetVersions } : {};
  const reported = await client.reportOutcome(step.runId, step.stepId, { token: claim.token, status: outcome.status, ...(outcome.detail ? { detail: outcome.detail } : {}), ...versions });
  if (fenceRefusal) return { ok: false, stage: "fence", error: fenceRefusal, claim };
  return { ok: true, claim, outcome, reported: reported.ok };
}
