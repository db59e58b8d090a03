import type { ToolDefinition } from "../tools/types";
import { gateRule, type GateRuleInput } from "./rules";
import type { StepReasonKey } from "../plan/schema";

/** What a desk typically requires of an irreversible step (money moves): a title, evidence, the risk and a stop condition. */
export const IRREVERSIBLE_REQUIRED_FIELDS: readonly StepReasonKey[] = ["title", "evidence", "risk", "stopCondition"];

/**
 * Today's gate policy as data (the demo desk seeds it as version 1): one rule per built-in tool
 * with the tool's default gate — `auto` for internal tools, one approver for everything else — and
 * the author allowed to approve, so a seeded desk behaves exactly as the built-in defaults did.
 * Irreversible tools stay gated whatever a rule says (evaluate.ts), and their rules require
 * {@link IRREVERSIBLE_REQUIRED_FIELDS} (completeness by policy, docs/design.md): a step the agent
 * submits without a title, evidence, the risk or a stop condition is refused
 * (`missing_required_field`, `evidence_missing`); a person's edit only gets a warning. An admin
 * removes or widens the requirement per rule in the gate-policy editor.
 */
export function defaultGateRules(tools: readonly Pick<ToolDefinition, "name" | "gate" | "effect">[]): GateRuleInput[] {
  return tools.map((t) =>
    gateRule({
      tool: t.name,
      decision: t.gate === "auto" ? "auto" : "one",
      requiredFields: t.effect === "irreversible" ? [...IRREVERSIBLE_REQUIRED_FIELDS] : [],
      note: t.effect === "irreversible" ? "Built-in default; irreversible: title, evidence, risk and stop condition required" : "Built-in default",
    }),
  );
}
