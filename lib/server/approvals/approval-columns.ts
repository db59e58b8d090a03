import type { AccountSnapshot } from "../../desk/snapshot";
import type { Step } from "../../plan/schema";
import { getTool } from "../../tools/builtin-tools";
import { toJsonColumn } from "../db/json-column";

/**
 * What an approval of `step` binds besides the digest: the record the step writes to (as JSON and
 * as indexed columns) and the money it lets move (minor units + currency), so money in flight on a
 * record is summed in SQL. `target` is null when the step's id does not resolve.
 */
export function approvalTargetColumns(step: Pick<Step, "tool" | "args">, desk: AccountSnapshot) {
  const tool = getTool(step.tool);
  const target = tool?.target(step.args as never, desk) ?? null;
  const amount = tool?.amount(step.args as never);
  return {
    target: toJsonColumn(target ?? null),
    targetKind: target?.kind ?? null,
    targetId: target?.id ?? null,
    amountMinor: amount?.minor ?? null,
    amountCurrency: amount?.currency ?? null,
  };
}
