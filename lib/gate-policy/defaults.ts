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

/** The tools whose steps move money that the demo desk's policy signs above a threshold. */
export const DEMO_SIGNED_MONEY_TOOLS = ["issue_refund", "apply_credit"] as const;

/**
 * The demo desk's signature threshold in minor units: a refund or credit of 150000 ($1,500.00) or
 * more needs the approver's passkey signature (the reference case's $1,489.00 refund stays unsigned).
 */
export const DEMO_SIGNATURE_THRESHOLD_MINOR = 150_000;

/**
 * The demo desk's gate policy: {@link defaultGateRules} plus, for each of
 * {@link DEMO_SIGNED_MONEY_TOOLS}, a rule for amounts of {@link DEMO_SIGNATURE_THRESHOLD_MINOR} and
 * more (any currency; the demo desk's invoices are USD) that keeps the tool's default gate and
 * required fields and adds `requireSignature`. The band makes it more specific than the tool's
 * own rule (evaluate.ts), so it governs exactly the large steps; an admin changes or removes it in
 * the gate-policy editor like any rule.
 */
export function demoDeskGateRules(tools: readonly Pick<ToolDefinition, "name" | "gate" | "effect">[]): GateRuleInput[] {
  const defaults = defaultGateRules(tools);
  const signed = DEMO_SIGNED_MONEY_TOOLS.flatMap((name) => {
    const base = defaults.find((r) => r.tool === name);
    if (!base) return [];
    return [{ ...base, minAmountMinor: DEMO_SIGNATURE_THRESHOLD_MINOR, requireSignature: true, note: "Demo desk: $1,500.00 or more needs the approver's passkey signature" }];
  });
  return [...defaults, ...signed];
}
