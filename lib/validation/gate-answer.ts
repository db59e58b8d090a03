import type { GateRequirement } from "../gate-policy/evaluate";
import { describeAsks, describeDecision } from "../gate-policy/rules";
import { SUPERVISOR_DECIDABLE_CODES } from "./contract-rules";
import type { ValidationResult } from "./types";

/** Codes whose refusal depends on the gate policy: outside the task contract (a rule may let a supervisor decide) and beyond a rule's date horizon. */
const POLICY_REFUSAL_CODES: readonly string[] = [...SUPERVISOR_DECIDABLE_CODES, "window_beyond_horizon"];

const REFUSAL_WORDS: Record<string, string> = {
  outside_task_intent: "outside the task's intent",
  outside_task_accounts: "outside the task's accounts",
  window_beyond_horizon: "beyond the date horizon",
};

/**
 * What the gate gives one step of a plan validated under some gate policy, in people's words — the
 * answer the gate-policy dry-run compares between the live policy and a draft (docs/api-extensions.md
 * "The task contract", "Required fields"). `requirement` is what the policy's governing rule asks of
 * the step (lib/gate-policy/evaluate.ts `requirementsOf` under the same policy); `result` the one
 * validator's answer for the whole plan under that policy (lib/validation/pipeline.ts).
 *
 * - A step the policy makes a refusal — outside the task's intent or accounts without a rule that
 *   lets a supervisor decide it (`outside_task_intent`, `outside_task_accounts` as errors), or a
 *   date beyond the rule's horizon (`window_beyond_horizon`) — reads "refused: outside the task's
 *   intent". Other errors (e.g. an open balance that changed since) do not depend on the policy and
 *   are left out, so they never hide a change the policy makes.
 * - Otherwise the decision as the gate applies it: "auto" only when the gate let the policy approve
 *   the step; a rule's `auto` that the gate overrode (a warning to acknowledge, text derived from a
 *   customer's message: lib/validation/gate.ts) is "1 approver", as the approval then needs one
 *   person; then "a supervisor decides (outside the task contract)" when such a step waits for a
 *   supervisor, and the rule's required fields, date horizon and record-age bound (describeAsks).
 *   `allowOutsideContract` on a step inside the contract changes nothing the gate does, so it is
 *   not mentioned.
 * Pure.
 */
export function describeGateAnswer(stepId: string, requirement: GateRequirement | undefined, result: Pick<ValidationResult, "issues" | "gate">): string {
  const mine = result.issues.filter((i) => i.stepId === stepId);
  const refusals = [...new Set(mine.filter((i) => i.severity === "error" && POLICY_REFUSAL_CODES.includes(i.code)).map((i) => REFUSAL_WORDS[i.code]))];
  if (refusals.length) return `refused: ${refusals.join(", ")}`;
  const req = requirement ?? { decision: "one" as const, authorMayApprove: true, allowOutsideContract: null, requiredFields: [], dateHorizonDays: null, maxRecordAgeMinutes: null };
  const gated = result.gate[stepId] !== "auto";
  const parts: string[] = [];
  if (!gated) parts.push("auto");
  else parts.push(describeDecision({ decision: req.decision === "auto" ? "one" : req.decision, authorMayApprove: req.authorMayApprove }));
  if (mine.some((i) => i.details?.decisionBy === "supervisor" && (SUPERVISOR_DECIDABLE_CODES as readonly string[]).includes(i.code))) parts.push("a supervisor decides (outside the task contract)");
  parts.push(...describeAsks(req));
  return parts.join(" · ");
}
