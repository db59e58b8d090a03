/**
 * The claim → fence → write → outcome helper for one step (docs/design.md §9): the loop every
 * executor of an approved Plandesk step runs, for executors that are not one of the framework
 * adapters (those run it for you through `PlanExecutor`).
 */
import type { AgentClient, ApiError, Claim, Fence, FenceRefusalCode, Result, StepOutcomeStatus } from "./client.js";

/** What a write reports: its outcome and a line for the console. */
export interface WriteOutcome {
  status: StepOutcomeStatus;
  detail?: string;
}

/** What `executeStep` did: claimed and wrote (with the outcome reported), or stopped with the typed reason, writing nothing. */
export type ExecuteResult =
  | { ok: true; claim: Claim; outcome: WriteOutcome; reported: boolean }
  | { ok: false; stage: "claim" | "fence"; error: ApiError<string>; claim?: Claim };

/**
 * Claim → write → report, the reference executor's loop for one step (docs/design.md §9):
 * claims the step with its approved `digest` and the bound `taskRevision`; hands `write` the claim
 * and a `fence` that asks the console whether the token still holds — call it inside the write's
 * own transaction, right before committing; if it does not hold, write nothing and return
 * `{status: "failed"}` or throw. The outcome `write` returns is reported; a `write` that throws
 * after the fence held is reported `unknown` (a person finds out what happened — never retried).
 * A refused claim or fence stops with the typed reason. Never throws for API refusals.
 */
export async function executeStep(
  client: AgentClient,
  step: { runId: string; stepId: string; digest: string; taskRevision: number; idempotencyKey: string },
  write: (ctx: { claim: Claim; fence: () => Promise<Result<{ fence: Fence }, FenceRefusalCode>> }) => Promise<WriteOutcome>,
): Promise<ExecuteResult> {
  const claimed = await client.claimStep(step.runId, step.stepId, { digest: step.digest, taskRevision: step.taskRevision }, { idempotencyKey: step.idempotencyKey });
  if (!claimed.ok) return { ok: false, stage: "claim", error: claimed.error };
  const claim = claimed.claim;
  let fenceRefusal: ApiError<string> | null = null;
  const fence = async () => {
    const f = await client.fenceClaim(claim.token);
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
  const reported = await client.reportOutcome(step.runId, step.stepId, { token: claim.token, status: outcome.status, ...(outcome.detail ? { detail: outcome.detail } : {}) });
  if (fenceRefusal) return { ok: false, stage: "fence", error: fenceRefusal, claim };
  return { ok: true, claim, outcome, reported: reported.ok };
}
