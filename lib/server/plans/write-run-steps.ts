import { nanoid } from "nanoid";
import type { Step } from "../../plan/schema";
import { getTool } from "../../tools/builtin-tools";
import { atStakeSortKey, OTHER_ACCOUNT_CODES } from "../../queue/risk";
import type { Currency } from "../../money/format-money";
import type { Tx } from "../db/transaction";
import { Prisma } from "../../generated/prisma/client";
import { insertRows } from "../db/insert-rows";

/** Every column of `run_step`, as `writeRunSteps` inserts them. */
const RUN_STEP_COLUMNS = Object.values(Prisma.RunStepScalarFieldEnum);

/** One row of `run_step` as written for a plan version (queue filters in SQL). */
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
  /** The tool's effect is irreversible (an unknown tool counts as irreversible). */
  irreversible: boolean;
  /** The validator warned that the step's target belongs to another account or ticket. */
  crossAccount: boolean;
}

/** The issues of a validation result this reads: which step reaches another account. */
export type RunStepIssue = { code: string; stepId?: string };

/**
 * The `run_step` rows of one plan version: one per step, with the money it moves (the tool's
 * `amount`, minor units; null for tools that move none or imported tools) and whether it needs a
 * person's approval (`gate[stepId] !== "auto"`), whether it is irreversible (the tool's effect) and
 * whether it reaches another account or ticket (a `cross_account_target` / `other_ticket_target`
 * issue of `issues` on it). Pure.
 */
export function runStepRows(
  runId: string,
  version: number,
  steps: readonly Pick<Step, "id" | "tool" | "args">[],
  gate: Record<string, string>,
  issues: readonly RunStepIssue[] = [],
): RunStepRow[] {
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
      irreversible: (getTool(s.tool)?.effect ?? "irreversible") === "irreversible",
      crossAccount: issues.some((i) => i.stepId === s.id && OTHER_ACCOUNT_CODES.includes(i.code)),
    };
  });
}

/**
 * The run's at-stake facts from its `run_step` rows: `atStakeMinor` (the largest per-currency total
 * of the money its steps move, minor units, capped to 32 bits) and `riskyStepCount` (steps that are
 * irreversible, move money or reach another account). Pure.
 */
export function atStakeFacts(rows: readonly RunStepRow[]): { atStakeMinor: number; riskyStepCount: number } {
  const amounts = rows.filter((r) => r.amountMinor !== null && r.amountCurrency).map((r) => ({ minor: r.amountMinor!, currency: r.amountCurrency as Currency }));
  return {
    atStakeMinor: atStakeSortKey(amounts),
    riskyStepCount: rows.filter((r) => r.irreversible || r.crossAccount || (r.amountMinor ?? 0) > 0).length,
  };
}

/**
 * Replaces a run's `run_step` rows with those of its new current plan version, inside
 * the transaction that stores the version (submit, edit, discard), so the rows never disagree with
 * `run.planVersion`; rewrites the run's at-stake facts (`atStakeFacts`) with them. `issues` are the
 * version's validation issues (which steps reach another account). Returns the facts written.
 */
export async function writeRunSteps(
  tx: Tx,
  runId: string,
  version: number,
  steps: readonly Pick<Step, "id" | "tool" | "args">[],
  gate: Record<string, string>,
  issues: readonly RunStepIssue[] = [],
): Promise<{ atStakeMinor: number; riskyStepCount: number }> {
  await tx.runStep.deleteMany({ where: { runId } });
  const rows = runStepRows(runId, version, steps, gate, issues);
  if (rows.length) await insertRows(tx, "run_step", RUN_STEP_COLUMNS, rows);
  const facts = atStakeFacts(rows);
  await tx.run.update({ where: { id: runId }, data: facts });
  return facts;
}
