import { nanoid } from "nanoid";
import type { Plan } from "../../plan/schema";
import { toJsonColumn } from "../db/json-column";
import type { Tx } from "../db/transaction";
import type { StoredValidation } from "./stored-plan";
import { writeRunSteps } from "./write-run-steps";

/**
 * Stores plan version `plan.version` of run `runId`, in the caller's transaction: the immutable
 * `plan_version` row (steps, the reads when there are any, the validation it passed) and the
 * per-step `run_step` rows the queue filters on, with the run's at-stake facts. The one writer of
 * plan versions, used by submission, edit and a discarded edit (docs/design.md, "The plan": a
 * version is never changed, a new decision writes a new one). `createdById`: the person who made
 * it (null: the agent). `now`: its UTC creation time.
 * Returns the row written and the at-stake facts `{atStakeMinor, riskyStepCount}` (minor units).
 * Errors: a unique-key failure when the version exists already (a lost race; `inTransaction`
 * retries the decision).
 */
export async function storePlanVersion(
  tx: Tx,
  runId: string,
  plan: Pick<Plan, "version" | "steps" | "reads">,
  validation: StoredValidation,
  createdById: string | null,
  now: Date,
) {
  const row = await tx.planVersion.create({
    data: {
      id: nanoid(),
      runId,
      version: plan.version,
      steps: toJsonColumn(plan.steps),
      ...(plan.reads?.length ? { reads: toJsonColumn(plan.reads) } : {}),
      validation: toJsonColumn(validation),
      createdById,
      createdAt: now,
    },
  });
  const stake = await writeRunSteps(tx, runId, plan.version, plan.steps, validation.gate, validation.issues);
  return { row, stake };
}
