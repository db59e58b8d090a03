import { MAX_PLAN_STEPS } from "../plan/schema";
import { digest } from "../plan/digest";
import { checkShape, type ShapeOutcome } from "./shape";
import { checkStructure } from "./structure";
import { checkAllowlist } from "./allowlist";
import { checkArgumentBounds } from "./argument-bounds";
import { checkTaskContract } from "./task-contract";
import { checkContent } from "./content";
import { checkAuthorship, heldToRequiredFields } from "./authorship";
import { checkDeskRules } from "./desk-rules";
import { decideGates } from "./gate";
import { checkContractRules, checkUntrustedText } from "./contract-rules";
import { governingRule } from "../gate-policy/evaluate";
import { checkEvidence, checkRationale } from "./reasons";
import { checkProvenance } from "./provenance";
import { checkReads } from "../reads/check-reads";
import { checkStepEvidence } from "./evidence";
import { checkRequiredFields, requiredFieldsByStep } from "./completeness";
import type { StepReasonKey } from "../plan/schema";
import type { GateDecision, GateRulesContext, ParsedStepView, StepView, TaskContractContext, ValidationContext, ValidationIssue, ValidationPhase, ValidationResult, ValidationStage } from "./types";

/**
 * Runs a stage; a stage that throws (a bug, or a malformed context such as an invalid `now`)
 * becomes an error issue `stage_failed` instead of an exception, so a plan is never accepted
 * because a check crashed.
 */
function run<T>(stage: ValidationStage, issues: ValidationIssue[], fallback: T, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    issues.push({
      stage,
      code: "stage_failed",
      severity: "error",
      message: `The ${stage.replace("_", " ")} check could not run; the plan cannot be accepted`,
      details: { error: err instanceof Error ? err.message : String(err) },
    });
    return fallback;
  }
}

/** The phase a validation runs in (ValidationContext `phase`, with its inference when absent). */
export function phaseOf(ctx: Pick<ValidationContext, "phase" | "editor" | "runId">): ValidationPhase {
  return ctx.phase ?? (ctx.editor ? "edit" : ctx.runId !== undefined ? "recheck" : "submit");
}

/**
 * THE validation pipeline (docs/design.md §1): one function for a plan the agent submitted, for
 * every operator edit (validated from scratch, never patched) and again at dispatch.
 *
 * `plan` is untrusted JSON expected to be `{version, steps: [{id, tool, args, provenance?,
 * author?}]}` (lib/plan/schema.ts). Stages run in this order — shape, structure, allowlist,
 * argument_bounds, task_contract, content, desk_rule, authorship, gate — and ALL issues of all stages
 * that can run are returned; stages after shape skip steps whose shape failed (allowlist and
 * authorship still look at any step whose tool is known). Issue codes: lib/validation/codes.ts.
 *
 * Returns `{ok, issues, gate, plan?, digests?}`: `ok` iff no issue is an error; `gate` maps
 * every step with a valid id to "approval_required" | "auto"; `plan` (the parsed plan) and
 * `digests` (stepId → lib/plan/digest.ts digest) only when shape passed.
 * Pure: reads only its arguments (`ctx.now` is the clock). Never throws.
 */
export function validatePlan(plan: unknown, ctx: ValidationContext): ValidationResult {
  const issues: ValidationIssue[] = [];
  const shape = run<ShapeOutcome>("shape", issues, { issues: [], steps: null }, () => checkShape(plan, ctx.catalog));
  issues.push(...shape.issues);
  const steps: StepView[] = shape.steps ?? [];

  if (shape.steps) {
    issues.push(...run("structure", issues, [], () => checkStructure(steps, ctx.maxSteps ?? MAX_PLAN_STEPS)));
  }
  issues.push(...run("allowlist", issues, [], () => checkAllowlist(steps, ctx.agentAllowedTools)));
  issues.push(...run("argument_bounds", issues, [], () => checkArgumentBounds(steps, { desk: ctx.desk, now: ctx.now, runId: ctx.runId, dateHorizonDays: ctx.dateHorizonDays }, horizonFor(ctx))));
  issues.push(...run("argument_bounds", issues, [], () => checkEvidence(steps, ctx.desk)));
  issues.push(...run("task_contract", issues, [], () => checkTaskContract(steps, ctx.desk, ctx.taskText)));
  issues.push(...run("task_contract", issues, [], () => checkProvenance(steps, ctx.desk, ctx.taskText, phaseOf(ctx))));
  // What the agent saw: its reads re-read, the evidence of each write, the fields the policy requires.
  const reads = shape.reads ?? [];
  issues.push(...run("task_contract", issues, [], () => checkReads(reads, ctx.desk, steps.flatMap((s) => (s.id ? [s.id] : [])))));
  const required = run("task_contract", issues, new Map<string, StepReasonKey[]>(), () => requiredFieldsByStep(steps, ctx.gateRules));
  const held = run("task_contract", issues, new Set<string>(), () => heldToRequiredFields(steps, phaseOf(ctx), ctx.basePlan));
  issues.push(...run("task_contract", issues, [], () => checkStepEvidence(steps, reads, ctx.desk, (id) => required.get(id)?.includes("evidence") ?? false, held)));
  issues.push(...run("task_contract", issues, [], () => checkRequiredFields(steps, required, held)));
  issues.push(...run("task_contract", issues, [], () => checkRationale(steps)));
  if (ctx.task) {
    const task: TaskContractContext = { ...ctx.task, supervisorMayAllow: supervisorMayAllow(ctx) };
    issues.push(...run("task_contract", issues, [], () => checkContractRules(steps, ctx.desk, task, phaseOf(ctx))));
    issues.push(...run("task_contract", issues, [], () => checkUntrustedText(steps, task)));
  }
  issues.push(...run("content", issues, [], () => checkContent(steps, ctx.now)));
  issues.push(...run("desk_rule", issues, [], () => checkDeskRules(steps, ctx.deskRules, ctx.desk, ctx.now)));
  issues.push(...run("authorship", issues, [], () => checkAuthorship(steps, ctx.editor, ctx.basePlan)));
  const decide = () => run<Record<string, GateDecision>>("gate", issues, {}, () => decideGates(steps, issues, ctx.gatePolicy, ctx.gateRules));
  const gate = ctx.observeGate ? ctx.observeGate(decide) : decide();

  const result: ValidationResult = { ok: !issues.some((i) => i.severity === "error"), issues, gate };
  if (shape.plan) {
    const parsed = shape.plan;
    const digests = run<Record<string, string> | undefined>("shape", issues, undefined, () =>
      Object.fromEntries(parsed.steps.map((s) => [s.id, digest(s)])),
    );
    if (digests) {
      result.plan = parsed;
      result.digests = digests;
    }
    result.ok = !issues.some((i) => i.severity === "error");
  }
  return result;
}

/** The gate-policy rule governing a parsed step under `rules` (null: none matches; an amount that cannot be read matches no amount band). */
function ruleOf(rules: GateRulesContext, s: ParsedStepView) {
  let amount;
  try {
    amount = s.tool.amount(s.step.args as never);
  } catch {
    amount = undefined;
  }
  return governingRule(rules.policy, { tool: s.tool.name, effect: s.tool.effect, defaultGate: s.tool.gate, amount, desk: rules.desk, accountId: rules.accountId, accountTags: rules.accountTags });
}

/**
 * Whether the gate-policy rule governing a step lets a supervisor decide a step outside the task's
 * intent or accounts (`allowOutsideContract: "supervisor"`); without gate rules, never.
 */
function supervisorMayAllow(ctx: ValidationContext): TaskContractContext["supervisorMayAllow"] {
  const rules = ctx.gateRules;
  if (!rules) return undefined;
  return (s) => ruleOf(rules, s)?.allowOutsideContract === "supervisor";
}

/**
 * The date horizon of each step: its governing rule's `dateHorizonDays` when gate rules are
 * given and the rule sets one; otherwise undefined (then `ctx.dateHorizonDays`, else the default).
 */
function horizonFor(ctx: ValidationContext): ((s: ParsedStepView) => number | undefined) | undefined {
  const rules = ctx.gateRules;
  if (!rules) return undefined;
  return (s) => ruleOf(rules, s)?.dateHorizonDays ?? undefined;
}
