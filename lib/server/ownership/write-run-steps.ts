import { nanoid } from "nanoid";
import type { Step } from "../../plan/schema";
import { getTool } from "../../tools/builtin-tools";
import type { Tx } from "../transaction";

/** One row of `run_step` as written for a plan version (issue #16: queue filters in SQL). */
export interface RunStepRow {
  id: string;
  runId: string;
  planVersion: number;
  stepId: string;
  position: number;
  tool: string;
  amountMinor: number | null;
  amountCurrency: string | null;
  gated: boolean;
}

/**
 * The `run_step` rows of one plan version: one per step, with the money it moves (the tool's
 * `amount`, minor units; null for tools that move none or imported tools) and whether it needs a
 * person's approval (`gate[stepId] !== "auto"`). Pure.
 */
export function runStepRows(runId: string, version: number, steps: readonly Pick<Step, "id" | "tool" | "args">[], gate: Record<string, string>): RunStepRow[] {
  return steps.map((s, position) => {
    let amount: { minor: number; currency: string } | undefined;
    try {
      amount = getTool(s.tool)?.amount(s.args as never);
    } catch {
      amount = undefined;
    }
    return {
      id: nanoid(),
      runId,
      planVersion: version,
      stepId: s.id,
      position,
      tool: s.tool,
      amountMinor: amount ? amount.minor : null,
      amountCurrency: amount ? amount.currency : null,
      gated: gate[s.id] !== "auto",
    };
  });
}

/**
 * Replaces a run's `run_step` rows with those of its new current plan version (issue #16), inside
 * the transaction that stores the version (submit, edit, discard), so the rows never disagree with
 * `run.planVersion`.
 */
export async function writeRunSteps(tx: Tx, runId: string, version: number, steps: readonly Pick<Step, "id" | "tool" | "args">[], gate: Record<string, string>): Promise<void> {
  await tx.runStep.deleteMany({ where: { runId } });
  const rows = runStepRows(runId, version, steps, gate);
  if (rows.length) await tx.runStep.createMany({ data: rows });
}
