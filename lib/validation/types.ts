import type { ValidationStage } from "./stages";
import type { AccountSnapshot } from "../desk/snapshot";
import type { Grant } from "../people/grants";
import type { Plan, Step } from "../plan/schema";
import type { GateDefault, ToolDefinition } from "../tools/types";
import type { ToolCatalog } from "../tools/versioned-catalog";
import type { GatePolicy } from "../gate-policy/rules";
import type { Intent, TaskContract, TaskTextPart } from "../task-contract/schema";
import type { DeskRule } from "../desk-rules/rules";

export { VALIDATION_STAGES, type ValidationStage } from "./stages";

/**
 * One problem found in a plan. Errors block; warnings are shown on the card and in the diff,
 * and those with `needsAcknowledgement` must be acknowledged by the approver of that step.
 * `path` is a dotted path from the plan root, e.g. "steps.3.args.amount.minor" (use
 * {@link argPathOf} for the part inside `args`); `code` is stable (ISSUE_CODES in ./codes.ts);
 * `message` is written for people and names records and amounts. The API's schema of it is
 * `validationIssueSchema` (./issue-schema.ts), held to this type there. Source: docs/design.md §1.
 */
export interface ValidationIssue {
  stage: ValidationStage;
  code: string;
  severity: "error" | "warning";
  stepId?: string;
  path?: string;
  message: string;
  needsAcknowledgement?: boolean;
  details?: Record<string, unknown>;
}

/** Gate decision per step id. Source: docs/design.md §1.8, docs/api.md (`gate`). */
export const GATE_DECISIONS = ["approval_required", "auto"] as const;
export type GateDecision = (typeof GATE_DECISIONS)[number];

/** Who is editing and what they may do (an operator edit). Source: docs/design.md §1.7. */
export interface EditorContext {
  userId: string;
  grants: Grant[];
}

/**
 * Everything `validatePlan` consults besides the plan. All plain data; `now` is the UTC clock.
 * - `agentAllowedTools`: the allowlist of the agent that owns the run;
 * - `editor` + `basePlan`: given together for an operator edit (authorship stage);
 * - `maxSteps`: defaults to MAX_PLAN_STEPS;
 * - `gatePolicy`: per-tool override of the default gate (ignored for irreversible tools);
 * - `gateRules`: the gate policy as data with the run's desk, account and account
 *   tags; when given it decides instead of `gatePolicy`;
 * - `runId`: the run being validated, when it exists (its own approvals are not money in flight
 *   against it);
 * - `taskText`: the task's live text (user_literal provenance is checked against it);
 * - `catalog`: the tools to validate against — built-in plus the imported tools of the run's
 *   catalog version (lib/tools/versioned-catalog.ts); defaults to the built-in tools;
 * - `task`: the task's contract, its resolved intent and its text parts with their sources
 *   (lib/validation/contract-rules.ts); absent = checked against the account only;
 * - `deskRules`: the desk's enabled desk rules (stage `desk_rule`, lib/validation/desk-rules.ts);
 *   absent = none;
 * - `phase`: who the validation is for — "submit" (the agent's new plan: claims that do not hold
 *   and missing required fields are errors), "edit" (a person's edit: missing required fields of
 *   the steps they added or changed are errors, claims and untouched steps warnings) or "recheck"
 *   (a stored plan checked again at approval or dispatch): there they are warnings. Absent: "edit" when `editor`
 *   is given, else "recheck" when `runId` is, else "submit".
 */
export interface ValidationContext {
  desk: AccountSnapshot;
  now: Date;
  runId?: string;
  taskText?: string;
  agentAllowedTools: string[];
  editor?: EditorContext;
  basePlan?: Plan;
  maxSteps?: number;
  gatePolicy?: Partial<Record<string, GateDefault>>;
  gateRules?: GateRulesContext;
  catalog?: ToolCatalog;
  task?: Omit<TaskContractContext, "supervisorMayAllow">;
  phase?: ValidationPhase;
  deskRules?: DeskRulesContext;
  /** A date horizon (days after today, UTC) for steps no gate rule gives one (dispatch passes the widest: the horizon was judged at the decision). */
  dateHorizonDays?: number;
  /** Wraps the gate stage's evaluation (the server records it as a `gate` trace span); absent: the stage is simply run. */
  observeGate?: <T>(evaluate: () => T) => T;
}

/** The gate policy version and the facts of the run it is evaluated for. */
export interface GateRulesContext {
  policy: GatePolicy;
  desk: string;
  accountId: string;
  accountTags: readonly string[];
}

/**
 * Result of `validatePlan`: `ok` iff there is no error issue; ALL issues found by all stages
 * that could run; the gate decision per step id; the parsed plan and each step's digest when
 * the shape stage passed. Source: docs/design.md §1.
 */
export interface ValidationResult {
  ok: boolean;
  issues: ValidationIssue[];
  gate: Record<string, GateDecision>;
  plan?: Plan;
  /** stepId → digest (lib/plan/digest.ts) of each step, present when `plan` is. */
  digests?: Record<string, string>;
}

/**
 * The pipeline's working view of one submitted step. Stages after `shape` look only at steps
 * with `shapeOk` (except where a stage needs nothing but the tool name, see each stage).
 */
export interface StepView {
  /** Position in `plan.steps`. */
  index: number;
  /** Dotted path of the step, e.g. "steps.2". */
  path: string;
  /** The raw `id` when it is a string (possibly invalid; used for duplicate detection). */
  rawId?: string;
  /** The id when it is a valid step id (used as `stepId` on issues and gate keys). */
  id?: string;
  /** The known tool, when `tool` names one in the catalog. */
  tool?: ToolDefinition;
  /** The submitted `args` when it is an object (unparsed; used to detect changes). */
  rawArgs?: Record<string, unknown>;
  /** True when the step envelope and its args passed their schemas. */
  shapeOk: boolean;
  /** The parsed step (args parsed by the tool's schema) when `shapeOk`. */
  step?: Step;
}

/** A step that passed the shape stage: its parsed step and tool are present. */
export type ParsedStepView = StepView & { shapeOk: true; id: string; tool: ToolDefinition; step: Step };

/** Narrows to steps whose shape passed. */
export function parsedSteps(steps: readonly StepView[]): ParsedStepView[] {
  return steps.filter((s): s is ParsedStepView => s.shapeOk && s.id !== undefined && s.tool !== undefined && s.step !== undefined);
}

/** "steps.3.args.amount.minor" → "amount.minor"; `undefined` when the issue is not about an argument. */
export function argPathOf(issue: Pick<ValidationIssue, "path">): string | undefined {
  const m = /^steps\.\d+\.args(?:\.(.*))?$/.exec(issue.path ?? "");
  return m ? (m[1] ?? "") : undefined;
}

/**
 * What the validator knows about the task beyond its ticket: its contract (null: the integration
 * posted none), the intent resolved from the desk's catalog — the contract's intent (null when the
 * contract names an intent the catalog no longer has: nothing is permitted) or, without a contract,
 * the desk's default intent (null when the desk declares none: the built-in intent that permits
 * only replies and notes, lib/validation/contract-rules.ts) — the
 * task's text parts with their sources, and whether the gate-policy rule governing a step lets a
 * supervisor decide a step outside the contract (`allowOutsideContract: "supervisor"`).
 */
export interface TaskContractContext {
  contract: TaskContract | null;
  intent: Intent | null;
  parts: readonly TaskTextPart[];
  supervisorMayAllow?: (step: ParsedStepView) => boolean;
}

/** Who the validation is for: a new submission by the agent, a person's edit, or a re-check of a stored plan (approval, dispatch). */
export type ValidationPhase = "submit" | "edit" | "recheck";

/**
 * The desk rules a validation applies (stage `desk_rule`, lib/validation/desk-rules.ts;
 * docs/design.md §1 and "Did the edit help?"): the desk's enabled rules as data, and — when a step
 * is validated alone (dispatch) — the tools of the steps before it in the plan, so
 * `step_requires_prior` still sees them.
 */
export interface DeskRulesContext {
  rules: readonly DeskRule[];
  /** stepId → tools of the plan's steps before it, when the plan validated is not the whole plan. */
  earlierTools?: Readonly<Record<string, readonly string[]>>;
}
