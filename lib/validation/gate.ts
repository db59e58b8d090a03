import { evaluateGate } from "../gate-policy/evaluate";
import type { GateDefault } from "../tools/types";
import { NEVER_AUTO_CODES } from "./contract-rules";
import type { GateDecision, GateRulesContext, StepView, ValidationIssue } from "./types";

/**
 * Stage 8, *gate policy* (docs/design.md §1.8): which steps need a human approval.
 * - irreversible tools: always `approval_required`, whatever the policy says;
 * - other tools: with `rules` (the gate policy as data) the governing rule's decision
 *   (lib/gate-policy/evaluate.ts: `auto` → auto, one or two approvers → approval_required);
 *   otherwise `policy[tool] ?? tool.gate` — by default reversible and customer-visible
 *   tools need approval and internal tools are `auto`;
 * - a step with a warning that needs acknowledgement: `approval_required` (someone must
 *   acknowledge it);
 * - a step whose arguments quote or repeat untrusted text (a customer's message, an attachment:
 *   `derived_from_untrusted_text`, `untrusted_authority`): `approval_required` whatever the rule
 *   says — the issue's message is the reason shown on the card;
 * - a step whose tool is unknown or whose shape failed: `approval_required` (fail closed).
 * Keyed by step id; with duplicate ids the strictest decision wins. Steps without a valid id
 * get no entry. Produces no issues of its own.
 */
export function decideGates(
  steps: readonly StepView[],
  issues: readonly ValidationIssue[],
  policy: Partial<Record<string, GateDefault>> = {},
  rules?: GateRulesContext,
): Record<string, GateDecision> {
  const needsAck = new Set(issues.filter((i) => (i.needsAcknowledgement || NEVER_AUTO_CODES.includes(i.code)) && i.stepId !== undefined).map((i) => i.stepId));
  // A Map, then Object.fromEntries: a valid step id may be "__proto__".
  const gate = new Map<string, GateDecision>();
  for (const s of steps) {
    if (s.id === undefined) continue;
    let decision: GateDecision;
    if (!s.tool || !s.shapeOk || s.tool.effect === "irreversible" || needsAck.has(s.id)) decision = "approval_required";
    else if (rules) {
      const amount = s.step ? s.tool.amount(s.step.args as never) : undefined;
      const req = evaluateGate(rules.policy, { tool: s.tool.name, effect: s.tool.effect, defaultGate: s.tool.gate, amount, desk: rules.desk, accountId: rules.accountId, accountTags: rules.accountTags });
      decision = req.decision === "auto" ? "auto" : "approval_required";
    } else {
      const rule = Object.prototype.hasOwnProperty.call(policy, s.tool.name) ? policy[s.tool.name] : undefined;
      decision = (rule ?? s.tool.gate) === "auto" ? "auto" : "approval_required";
    }
    if (gate.get(s.id) !== "approval_required") gate.set(s.id, decision);
  }
  return Object.fromEntries(gate);
}
