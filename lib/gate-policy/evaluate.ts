import type { Money } from "../money/format-money";
import type { GateDefault, ToolEffect } from "../tools/types";
import type { GatePolicy, GateRule, GateRuleDecision } from "./rules";
import type { StepReasonKey } from "../plan/schema";

/**
 * The pure evaluation of the gate policy for one step. No I/O.
 *
 * Precedence: among the rules whose every set matcher holds, the MOST SPECIFIC wins — the one
 * with the most matchers set (tool, desk, account, account tag, amount band, currency; an
 * amount band with one or both bounds counts once) — and among equally specific rules the
 * lowest position. A rule with an amount band or currency never matches a step that moves no
 * money. When no rule matches, the tool's built-in default applies (`auto` → auto, else one
 * approver, the author may approve: today's behaviour).
 *
 * Fail closed: an irreversible tool is never `auto` whatever a rule says (docs/design.md §1.8) — such
 * a rule is read as `one`.
 */

/** What the evaluator knows about a step. Money in minor units. */
export interface GateSubject {
  tool: string;
  effect: ToolEffect;
  defaultGate: GateDefault;
  amount?: Money;
  desk: string;
  accountId: string;
  accountTags: readonly string[];
}

/** The governing decision for one step. */
export interface GateRequirement {
  decision: GateRuleDecision;
  /** 0 for auto, else the number of distinct people who must approve. */
  approvalsRequired: 0 | 1 | 2;
  authorMayApprove: boolean;
  expirySeconds: number | null;
  escalateSeconds: number | null;
  /** The rule that matched, or null for the built-in default. */
  ruleId: string | null;
  /** The policy version evaluated (0: built-in defaults, nothing saved). */
  policyVersion: number;
  /** True when a rule said `auto` for an irreversible tool and was read as `one`. */
  forcedByIrreversible: boolean;
  /** The step fields the governing rule requires ([] without a rule). */
  requiredFields: StepReasonKey[];
  /** "supervisor": the rule lets a supervisor decide a step outside the task contract; null: refused. */
  allowOutsideContract: "supervisor" | null;
  /** The rule's date horizon in days after today (UTC); null: the default (lib/plan/policy.ts). */
  dateHorizonDays: number | null;
  /** Minutes since its last sync the step's target record may be at approval and claim; null: no bound. */
  maxRecordAgeMinutes: number | null;
  /** True when approving the step needs the approver's WebAuthn signature (the rule's `requireSignature`). */
  requireSignature: boolean;
}

/** Number of matchers a rule sets (its specificity). */
export function specificity(rule: GateRule): number {
  let n = 0;
  if (rule.tool !== null) n++;
  if (rule.desk !== null) n++;
  if (rule.accountId !== null) n++;
  if (rule.accountTag !== null) n++;
  if (rule.minAmountMinor !== null || rule.maxAmountMinor !== null) n++;
  if (rule.currency !== null) n++;
  return n;
}

/** True when every matcher `rule` sets holds for `subject`. */
export function ruleMatches(rule: GateRule, s: GateSubject): boolean {
  if (rule.tool !== null && rule.tool !== s.tool) return false;
  if (rule.desk !== null && rule.desk !== s.desk) return false;
  if (rule.accountId !== null && rule.accountId !== s.accountId) return false;
  if (rule.accountTag !== null && !s.accountTags.includes(rule.accountTag)) return false;
  const banded = rule.minAmountMinor !== null || rule.maxAmountMinor !== null || rule.currency !== null;
  if (banded) {
    if (!s.amount) return false;
    if (rule.currency !== null && rule.currency !== s.amount.currency) return false;
    if (rule.minAmountMinor !== null && s.amount.minor < rule.minAmountMinor) return false;
    if (rule.maxAmountMinor !== null && s.amount.minor >= rule.maxAmountMinor) return false;
  }
  return true;
}

/** The rule that governs `subject` under `policy` (see precedence above), or null. */
export function governingRule(policy: GatePolicy, subject: GateSubject): GateRule | null {
  let best: GateRule | null = null;
  let bestScore = -1;
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, subject)) continue;
    const score = specificity(rule);
    if (score > bestScore || (score === bestScore && best !== null && rule.position < best.position)) {
      best = rule;
      bestScore = score;
    }
  }
  return best;
}

const REQUIRED: Record<GateRuleDecision, 0 | 1 | 2> = { auto: 0, one: 1, two: 2 };

/** Evaluates `policy` for `subject` (module comment: precedence, fail closed). */
export function evaluateGate(policy: GatePolicy, subject: GateSubject): GateRequirement {
  const rule = governingRule(policy, subject);
  let decision: GateRuleDecision = rule ? rule.decision : subject.defaultGate === "auto" ? "auto" : "one";
  let forcedByIrreversible = false;
  if (decision === "auto" && subject.effect === "irreversible") {
    decision = "one";
    forcedByIrreversible = rule !== null;
  }
  return {
    decision,
    approvalsRequired: REQUIRED[decision],
    authorMayApprove: rule ? rule.authorMayApprove : true,
    expirySeconds: rule?.expirySeconds ?? null,
    escalateSeconds: rule?.escalateSeconds ?? null,
    ruleId: rule?.id ?? null,
    policyVersion: policy.version,
    forcedByIrreversible,
    requiredFields: [...(rule?.requiredFields ?? [])],
    allowOutsideContract: rule?.allowOutsideContract ?? null,
    dateHorizonDays: rule?.dateHorizonDays ?? null,
    maxRecordAgeMinutes: rule?.maxRecordAgeMinutes ?? null,
    requireSignature: rule?.requireSignature ?? false,
  };
}

/** "1 of 2 approvals"-style progress of one step: who approved, how many more are needed. */
export interface ApprovalProgress {
  required: number;
  given: number;
  approverIds: string[];
  missing: number;
}

/** Progress of a step from its distinct active approvers and the required count. */
export function approvalProgress(required: number, approverIds: readonly (string | null)[]): ApprovalProgress {
  const people = [...new Set(approverIds.filter((a): a is string => a !== null))];
  const given = required === 0 ? 0 : people.length;
  return { required, given, approverIds: people, missing: Math.max(0, required - given) };
}

/** A step as `requirementsOf` reads it. */
interface StepLike {
  id: string;
  tool: string;
  args: unknown;
}

/** The tool facts `requirementsOf` needs (a ToolDefinition satisfies it). */
interface ToolLike {
  effect: ToolEffect;
  gate: GateDefault;
  amount(args: never): Money | undefined;
}

/**
 * The governing requirement of every step of a plan under `ctx.policy`, by step id.
 * A step whose tool `toolOf` does not know is treated as irreversible (fail closed: never auto).
 */
export function requirementsOf(
  steps: readonly StepLike[],
  toolOf: (name: string) => ToolLike | undefined,
  ctx: { policy: GatePolicy; desk: string; accountId: string; accountTags: readonly string[] },
): Record<string, GateRequirement> {
  const out: Record<string, GateRequirement> = {};
  for (const s of steps) {
    const tool = toolOf(s.tool);
    let amount: Money | undefined;
    try {
      amount = tool?.amount(s.args as never);
    } catch {
      amount = undefined;
    }
    out[s.id] = evaluateGate(ctx.policy, {
      tool: s.tool,
      effect: tool?.effect ?? "irreversible",
      defaultGate: tool?.gate ?? "approval",
      amount,
      desk: ctx.desk,
      accountId: ctx.accountId,
      accountTags: ctx.accountTags,
    });
  }
  return out;
}

/**
 * The run deadlines the policy asks for: the shortest `expirySeconds` and
 * `escalateSeconds` among the rules governing gated steps (`approvalsRequired` > 0), or null
 * where no such rule sets one. lib/plan/policy.ts `runDeadlines` still caps them.
 */
export function policyDeadlines(requirements: Readonly<Record<string, GateRequirement>>): { expirySeconds: number | null; escalateSeconds: number | null } {
  let expirySeconds: number | null = null;
  let escalateSeconds: number | null = null;
  for (const r of Object.values(requirements)) {
    if (r.approvalsRequired === 0) continue;
    if (r.expirySeconds !== null) expirySeconds = expirySeconds === null ? r.expirySeconds : Math.min(expirySeconds, r.expirySeconds);
    if (r.escalateSeconds !== null) escalateSeconds = escalateSeconds === null ? r.escalateSeconds : Math.min(escalateSeconds, r.escalateSeconds);
  }
  return { expirySeconds, escalateSeconds };
}
