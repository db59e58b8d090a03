import type { ToolDefinition } from "../tools/types";
import { gateRule, type GateRuleInput } from "./rules";
import type { StepReasonKey } from "../plan/schema";

/** What a desk typically requires of an irreversible step (money moves): a title, evidence, the risk and a stop condition. */
export const IRREVERSIBLE_REQUIRED_FIELDS: readonly StepReasonKey[] = ["title", "evidence", "risk", "stopCondition"];

/**
 * Today's gate policy as data (the demo desk seeds it as version 1): one rule per built-in tool
 * with the tool's default gate — `auto` for internal tools, one approver for everything else — and
 * the author allowed to approve, so a seeded desk behaves exactly as the built-in defaults did.
 * Irreversible tools stay gated whatever a rule says (evaluate.ts). No rule requires step fields:
 * an admin adds `requiredFields` to a rule (e.g. {@link IRREVERSIBLE_REQUIRED_FIELDS} for the money
 * tools) when the desk's agents are expected to send them; a plan that lacks one is then refused
 * at submission (`missing_required_field`).
 */
export function defaultGateRules(tools: readonly Pick<ToolDefinition, "name" | "gate" | "effect">[]): GateRuleInput[] {
  return tools.map((t) => gateRule({ tool: t.name, decision: t.gate === "auto" ? "auto" : "one", note: "Built-in default" }));
}
