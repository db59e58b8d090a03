import { builtinTools } from "../tools/builtin-tools";
import type { ValidationStage } from "./types";

/**
 * Every issue code the pipeline can emit, with its stage and severity — the reference for API
 * docs and UI copy. Source: docs/design.md §1 (stages), (rules). A test keeps this list in
 * sync with what the stages actually emit.
 */
const CORE_ISSUE_CODES = {
  // shape (docs/design.md §1.1)
  invalid_plan: { stage: "shape", severity: "error", meaning: "The plan is not an object {version, steps}." },
  invalid_step: { stage: "shape", severity: "error", meaning: "A step is not an object." },
  unknown_tool: { stage: "shape", severity: "error", meaning: "The tool name is not in the catalog (with a nearest-name hint)." },
  unknown_field: { stage: "shape", severity: "error", meaning: "A field the schema does not define (strict schemas; never dropped)." },
  missing_field: { stage: "shape", severity: "error", meaning: "A required field is absent, null, empty or blank (a cleared amount is missing, never 0)." },
  invalid_type: { stage: "shape", severity: "error", meaning: "A value of the wrong JSON type (e.g. an amount sent as a string)." },
  not_integer: { stage: "shape", severity: "error", meaning: "Minor units with a fractional part." },
  not_safe_integer: { stage: "shape", severity: "error", meaning: "An integer beyond ±(2^53 − 1), which JSON numbers cannot carry exactly." },
  invalid_value: { stage: "shape", severity: "error", meaning: "A value outside an enum or union (currency, team, provenance kind…)." },
  invalid_format: { stage: "shape", severity: "error", meaning: "A string in the wrong format (e.g. a step id with spaces)." },
  invalid_date: { stage: "shape", severity: "error", meaning: "Not a real calendar date as YYYY-MM-DD." },
  too_small: { stage: "shape", severity: "error", meaning: "Below a schema minimum (e.g. plan version < 1)." },
  too_big: { stage: "shape", severity: "error", meaning: "Above a schema maximum (e.g. text too long)." },
  invalid_json_value: { stage: "shape", severity: "error", meaning: "NaN, Infinity, a lone surrogate or a cycle: not canonical JSON." },
  unknown_read_tool: { stage: "shape", severity: "error", meaning: "A read step names a read tool Plandesk does not know (read_invoice, read_shipment, read_ticket)." },
  // structure (docs/design.md §1.2)
  empty_plan: { stage: "structure", severity: "error", meaning: "The plan has no steps." },
  too_many_steps: { stage: "structure", severity: "error", meaning: "More steps than maxSteps (default MAX_PLAN_STEPS)." },
  duplicate_step_id: { stage: "structure", severity: "error", meaning: "Two steps share an id." },
  invalid_dependency: { stage: "structure", severity: "error", meaning: "dependsOn names an unknown, repeated, or not-earlier step." },
  // allowlist (docs/design.md §1.3)
  tool_not_allowed: { stage: "allowlist", severity: "error", meaning: "This agent may not call the tool." },
  tool_not_executable: { stage: "allowlist", severity: "error", meaning: "An edit added a step whose tool the run's agent cannot execute." },
  // argument bounds (docs/design.md §1.4)
  unknown_id: { stage: "argument_bounds", severity: "error", meaning: "An invoice/shipment/ticket/account id (or a record id of a declared kind an imported tool binds) that does not exist exactly on this desk (lookalikes never resolve; hint names the nearest)." },
  amount_not_positive: { stage: "argument_bounds", severity: "error", meaning: "A refund, credit or waiver of zero or less." },
  invoice_not_open: { stage: "argument_bounds", severity: "error", meaning: "The invoice is paid or void." },
  currency_mismatch: { stage: "argument_bounds", severity: "error", meaning: "The amount's currency is not the invoice's." },
  amount_exceeds_balance: { stage: "argument_bounds", severity: "error", meaning: "More than the invoice's open balance (exactly the balance is allowed)." },
  amounts_exceed_balance: { stage: "argument_bounds", severity: "error", meaning: "Several steps together take more than one invoice's open balance (less money in flight)." },
  amount_exceeds_available: { stage: "argument_bounds", severity: "error", meaning: "More than the invoice's open balance less what other runs' approvals and claims already hold on it." },
  money_in_flight: { stage: "argument_bounds", severity: "warning", meaning: "Other runs' approved or claimed money draws on the same invoice; the step fits what is left." },
  date_beyond_horizon: { stage: "argument_bounds", severity: "error", meaning: "A date argument of an imported tool (format date or date-time) lies further ahead than the date horizon (the governing gate-policy rule's dateHorizonDays; one year by default)." },
  record_closed: { stage: "argument_bounds", severity: "error", meaning: "An imported tool bound to a declared kind takes money from a record whose status is one of the kind's closed values." },
  record_without_balance: { stage: "argument_bounds", severity: "error", meaning: "An imported tool bounds its money by a declared record's available amount, and the run's desk declares that kind without a balance: nothing bounds the money, so it is not moved." },
  outside_record_window: { stage: "argument_bounds", severity: "error", meaning: "A date an imported tool binds to a declared record's window (x-plandesk-window) lies outside it." },
  waivers_exceed_fee: { stage: "argument_bounds", severity: "error", meaning: "Several waivers of one fee together take more than the fee." },
  unverified_evidence: { stage: "argument_bounds", severity: "warning", meaning: "A step's evidence names a record that does not exist in account data, or a record type Plandesk cannot check." },
  // task contract (docs/design.md §1.5)
  cross_account_target: { stage: "task_contract", severity: "warning", meaning: "The target belongs to another account than the ticket's (needs acknowledgement)." },
  unverified_provenance: { stage: "task_contract", severity: "warning", meaning: "A stated origin (a source record, a quote of the task) that account data or the task text does not bear out." },
  other_ticket_target: { stage: "task_contract", severity: "warning", meaning: "The step acts on another ticket than the task's (needs acknowledgement)." },
  outside_task_intent: { stage: "task_contract", severity: "error", meaning: "The tool is not among the tools the task's intent permits (a gate-policy rule with allowOutsideContract: \"supervisor\" makes it a warning a supervisor decides)." },
  outside_task_window: { stage: "task_contract", severity: "error", meaning: "A delivery window outside the task's deliveryNotBefore / deliveryNotAfter constraint." },
  over_compensation_cap: { stage: "task_contract", severity: "error", meaning: "The plan's money (summed in step order) goes over the task's compensation cap, or is in another currency." },
  refund_forbidden_by_task: { stage: "task_contract", severity: "error", meaning: "A refund on a task whose contract says no refund." },
  outside_task_accounts: { stage: "task_contract", severity: "error", meaning: "A write to an account not among the task's accounts in scope — without a stated scope, an agent's submitted step writing beyond the ticket's account (a gate-policy rule may let a supervisor decide it)." },
  instruction_in_source: { stage: "task_contract", severity: "warning", meaning: "Instruction-like text (addressing the assistant, overriding instructions, claimed approvals or roles, chat-template markers; seven languages) in a part of any source; details give the part and span." },
  derived_from_untrusted_text: { stage: "task_contract", severity: "warning", meaning: "An argument copies a run of words of a customer or attachment part (or a part with flagged text), quotes one, or repeats flagged text: the gate policy alone never approves the step; details give the copied spans." },
  untrusted_authority: { stage: "task_contract", severity: "warning", meaning: "Money or a commitment rests on a customer's words (needs acknowledgement)." },
  missing_rationale: { stage: "task_contract", severity: "warning", meaning: "A write step (tool effect not internal) without a rationale from the agent." },
  provenance_mismatch: { stage: "task_contract", severity: "error", meaning: "A stated origin that does not hold: the formula gives another value or names no record field and no operation (a bare number restates the value), the quote is not in the task or lacks the value, the source record is missing, of another account or lacks the value. A warning on a person's edit or a re-check." },
  missing_required_field: { stage: "task_contract", severity: "error", meaning: "A step field the gate policy rule requires (title, rationale, risk, stop condition) is absent or blank — of the agent's step, or of a step a person added or changed in an edit (the edit is refused). A warning on a step an edit leaves as it was, or a re-check." },
  evidence_missing: { stage: "task_contract", severity: "error", meaning: "The gate policy requires evidence and the step has none usable, or evidence names a read step the plan does not have: the gate policy alone never approves the step. A warning where evidence is not required, on a step an edit leaves as it was or a re-check." },
  evidence_failed: { stage: "task_contract", severity: "warning", meaning: "Evidence is a read that failed (or a record whose read failed): not evidence, and the gate policy alone never approves the step. An error where the gate policy requires evidence of the agent's step or a person's added or changed one." },
  evidence_unrelated: { stage: "task_contract", severity: "warning", meaning: "Evidence names a record that is not about the step's target: a record of another account than the target's, or another ticket (needs acknowledgement)." },
  evidence_other_account: { stage: "task_contract", severity: "warning", meaning: "Evidence is a record of another account than the task's (needs acknowledgement). An error where the gate policy requires evidence." },
  read_outdated: { stage: "task_contract", severity: "warning", meaning: "What a read step says the agent saw differs from the record now (or the record no longer exists)." },
  read_other_account: { stage: "task_contract", severity: "warning", meaning: "A read step read a record of another account than the task's." },
  // content (docs/design.md §1.6)
  unbacked_commitment: { stage: "content", severity: "warning", meaning: "A reply promises money or a delivery date no step backs (needs acknowledgement)." },
  hidden_characters: { stage: "content", severity: "warning", meaning: "A text argument holds invisible or direction characters (shown as markers; needs acknowledgement)." },
  // desk rules (docs/design.md §1, "Did the edit help?"): the rule's own severity; listed as warnings (an error rule refuses)
  desk_rule_prior_missing: { stage: "desk_rule", severity: "warning", meaning: "A desk rule step_requires_prior: the step's tool needs a step of another tool earlier in the plan. An error where the rule says error." },
  desk_rule_date_excluded: { stage: "desk_rule", severity: "warning", meaning: "A desk rule no_date_in: the date (or a day of the window) is one the rule lists or a holiday of the shipment's destination. An error where the rule says error." },
  desk_rule_date_too_soon: { stage: "desk_rule", severity: "warning", meaning: "A desk rule date_min_offset_days: the date (a window's first day) is fewer days after today than the rule asks. An error where the rule says error." },
  // authorship (docs/design.md §1.7)
  authorship_denied: { stage: "authorship", severity: "error", meaning: "The editor may not author this tool (or not this amount)." },
  // any stage
  stage_failed: { stage: "gate", severity: "error", meaning: "A stage threw (bug or malformed context); reported on the stage that failed." },
} as const satisfies Record<string, { stage: ValidationStage; severity: "error" | "warning"; meaning: string }>;

/**
 * Every issue code: the pipeline's own (above) and each built-in tool's argument-bound codes
 * (`issueCodes` of lib/tools/<tool>/tool.ts), which the argument-bounds stage emits.
 */
export const ISSUE_CODES: Readonly<Record<string, { stage: ValidationStage; severity: "error" | "warning"; meaning: string }>> = {
  ...CORE_ISSUE_CODES,
  ...Object.fromEntries(builtinTools().flatMap((t) => Object.entries(t.issueCodes).map(([code, c]) => [code, { stage: "argument_bounds" as const, ...c }]))),
};

/** A known issue code: one of the pipeline's own, or a built-in tool's. */
export type IssueCode = keyof typeof CORE_ISSUE_CODES | (string & {});
