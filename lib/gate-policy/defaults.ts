import type { ToolDefinition } from "../tools/types";
import { gateRule, type GateRuleInput } from "./rules";

/**
 * Today's gate policy as data (issue #17: "the demo desk seeds today's policy as data"): one rule
 * per built-in tool with the tool's default gate — `auto` for internal tools, one approver for
 * everything else — and the author allowed to approve, so a seeded desk behaves exactly as the
 * built-in defaults did. Irreversible tools stay gated whatever a rule says (evaluate.ts).
 */
export function defaultGateRules(tools: readonly Pick<ToolDefinition, "name" | "gate">[]): GateRuleInput[] {
  return tools.map((t) => gateRule({ tool: t.name, decision: t.gate === "auto" ? "auto" : "one", note: "Built-in default" }));
}
