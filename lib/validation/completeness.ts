import { evaluateGate } from "../gate-policy/evaluate";
import type { StepReasons } from "../plan/schema";
import { STEP_REASON_KEYS, type StepReasonKey } from "../plan/step-reason-keys";
import { parsedSteps, type GateRulesContext, type StepView, type ValidationIssue } from "./types";

/**
 * Completeness by policy: a gate policy rule may require step fields (`requiredFields`: title,
 * rationale, evidence, risk, stopCondition). The seeded policy requires title, evidence, risk and
 * stop condition of irreversible tools. Pure.
 */

/** The fields the governing gate policy rule requires of each parsed step, by step id ({} without rules). */
export function requiredFieldsByStep(steps: readonly StepView[], rules?: GateRulesContext): Map<string, StepReasonKey[]> {
  const out = new Map<string, StepReasonKey[]>();
  if (!rules) return out;
  for (const s of parsedSteps(steps)) {
    const amount = s.tool.amount(s.step.args as never);
    const req = evaluateGate(rules.policy, { tool: s.tool.name, effect: s.tool.effect, defaultGate: s.tool.gate, amount, desk: rules.desk, accountId: rules.accountId, accountTags: rules.accountTags });
    if (req.requiredFields.length > 0) out.set(s.id, req.requiredFields);
  }
  return out;
}

/** Characters that show nothing: format and control characters, and the letters that render blank (Hangul fillers, the blank braille pattern). */
const INVISIBLE = /[\p{Cf}\p{Cc}\u115F\u1160\u3164\uFFA0\u2800]/gu;
/** What people type to get past a required field, compared after folding to lower-case words. */
const PLACEHOLDERS = new Set(["xx", "xxx", "xxxx", "na", "none", "nil", "null", "undefined", "tbd", "tba", "todo", "test", "placeholder", "asdf", "lorem ipsum", "same", "see above", "dito", "ditto"]);

/**
 * True when `text` says something a person can read: at least one word of two or more letters
 * or digits once invisible and blank-looking characters are removed (NFKC-folded), and not a
 * placeholder ("x", "n/a", "-", "TBD", "todo", "…"). A required field holding only such text is
 * not filled. Pure.
 */
export function hasVisibleWords(text: string): boolean {
  const words = (text.normalize("NFKC").replace(INVISIBLE, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) as string[];
  if (!words.some((w) => [...w].length >= 2)) return false;
  return !PLACEHOLDERS.has(words.join(" "));
}

/** True when a reason field holds something: text with visible words (`hasVisibleWords`), or at least one evidence reference. */
export function isFilled(step: StepReasons, key: StepReasonKey): boolean {
  const v = step[key];
  if (Array.isArray(v)) return v.length > 0;
  return typeof v === "string" && hasVisibleWords(v);
}

/** How complete a step's reasons are: "4 of 5 filled", and which required fields are missing. */
export interface Completeness {
  filled: number;
  total: number;
  /** Filled state per field, in display order. */
  fields: { key: StepReasonKey; filled: boolean; required: boolean }[];
  missingRequired: StepReasonKey[];
}

/** The completeness of `step` (the five reason fields) with `required` marked. */
export function completenessOf(step: StepReasons, required: readonly StepReasonKey[] = []): Completeness {
  const fields = STEP_REASON_KEYS.map((key) => ({ key, filled: isFilled(step, key), required: required.includes(key) }));
  return {
    filled: fields.filter((f) => f.filled).length,
    total: fields.length,
    fields,
    missingRequired: fields.filter((f) => f.required && !f.filled).map((f) => f.key),
  };
}

const LABEL: Record<StepReasonKey, string> = { title: "a title", rationale: "a rationale", evidence: "evidence", risk: "a risk", stopCondition: "a stop condition" };

/**
 * `missing_required_field` (task-contract stage): a required field (other than evidence, which
 * ./evidence.ts judges as `evidence_missing`) that is absent or blank (not {@link isFilled}). An
 * ERROR for a step in `held` (./authorship.ts `heldToRequiredFields`: the agent's submitted step, a step a
 * person added or changed in an edit), so the plan or the edit is refused; a warning otherwise (a
 * step an edit leaves as it was, a stored plan checked again). Path `steps.N.<field>`, details `{field, tool, filled, total}`.
 */
export function checkRequiredFields(steps: readonly StepView[], required: Map<string, StepReasonKey[]>, held: ReadonlySet<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    const fields = required.get(s.id);
    if (!fields) continue;
    const c = completenessOf(s.step, fields);
    const hard = held.has(s.id);
    for (const key of c.missingRequired) {
      if (key === "evidence") continue;
      issues.push({
        stage: "task_contract",
        code: "missing_required_field",
        severity: hard ? "error" : "warning",
        stepId: s.id,
        path: `${s.path}.${key}`,
        message: `Step ${s.index + 1} (${s.tool.name}) needs ${LABEL[key]} under the gate policy (${c.filled} of ${c.total} filled)`,
        details: { field: key, tool: s.tool.name, filled: c.filled, total: c.total, missing: c.missingRequired },
      });
    }
  }
  return issues;
}
