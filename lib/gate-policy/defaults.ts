import type { ToolDefinition } from "../tools/types";
import { gateRule, type GateRuleInput } from "./rules";
import type { StepReasonKey } from "../plan/schema";

/** What the seeded policy requires of an irreversible step (money moves): a title, evidence, the risk and a stop condition. */
export const IRREVERSIBLE_REQUIRED_FIELDS: readonly StepReasonKey[] = ["title", "evidence", "risk", "stopCondition"];

/**
 * Today's gate policy as data ("the demo desk seeds today's policy as data"): one rule
 * per built-in tool with the tool's default gate — `auto` for internal tools, one approver for
 * everything else — and the author allowed to approve, so a seeded desk behaves exactly as the
 * built-in defaults did. Irreversible tools stay gated whatever a rule says (evaluate.ts), and their
 * rules require {@link IRREVERSIBLE_REQUIRED_FIELDS} of the agent's steps.
 */
export function defaultGateRules(tools: readonly Pick<ToolDefinition, "name" | "gate" | "effect">[]): GateRuleInput[] {
  return tools.map((t) =>
    gateRule({
      tool: t.name,
      decision: t.gate === "auto" ? "auto" : "one",
      ...(t.effect === "irreversible" ? { requiredFields: [...IRREVERSIBLE_REQUIRED_FIELDS] } : {}),
      note: "Built-in default",
    }),
  );
}
