import type { RuleEffect } from "@/lib/server/desk-rules/list-desk-rules";
import { formatInstant } from "@/lib/text/format";

/** "Since the rule (…): the edit happened 1 time on 1 of 12 runs; 4 times in as long before." */
export function RuleEffectText({ effect }: { effect: RuleEffect | null }) {
  if (!effect) return <span className="text-slate-500">written by hand</span>;
  return (
    <span data-testid="rule-effect">
      Since {formatInstant(effect.since)}: the edit happened {effect.edits} time{effect.edits === 1 ? "" : "s"} on {effect.runs} of {effect.runsSubmitted} run{effect.runsSubmitted === 1 ? "" : "s"} submitted
      {` · ${effect.editsBefore} in as long before`}
    </span>
  );
}
