import { checkGrant } from "../people/grants";
import { formatMoney, type Money } from "../money/format-money";
import { stepChanged } from "../plan/digest";
import type { Plan } from "../plan/schema";
import { parsedSteps, type EditorContext, type StepView, type ValidationIssue, type ValidationPhase } from "./types";

/** Why a step counts as authored by the editor. */
export type AuthoredReason = "added" | "changed";

/**
 * Which submitted steps the editor authored, relative to `basePlan` (docs/design.md §1.7, §6):
 * `added` when its id is not in the base plan, or the same id now names another tool (a new
 * step — never judged by the old tool's rules); `changed` when the tool is the same but the
 * digest of `{tool, args}` differs. Steps without a valid id or known tool are skipped (the
 * shape stage already failed them). Returns step index → reason.
 */
export function authoredSteps(steps: readonly StepView[], basePlan: Plan): Map<number, AuthoredReason> {
  const base = new Map(basePlan.steps.map((s) => [s.id, s] as const));
  const out = new Map<number, AuthoredReason>();
  for (const s of steps) {
    if (s.id === undefined || !s.tool) continue;
    const before = base.get(s.id);
    const args = s.step?.args ?? s.rawArgs ?? {};
    if (!before || before.tool !== s.tool.name) out.set(s.index, "added");
    else if (stepChanged(before, { tool: s.tool.name, args })) out.set(s.index, "changed");
  }
  return out;
}

/**
 * Stage 7, *authorship* (docs/design.md §1.7): for an operator edit (`editor` and `basePlan` both
 * given), every step the editor added or changed must be one they may AUTHOR:
 * `checkGrant(editor.grants, "author", tool, amount)` from lib/people/grants.ts, where `amount` is the
 * tool's `amount(args)` (only when the args parsed). Code `authorship_denied` (error), details
 * `{tool, reason: "added" | "changed", denial: "no_grant" | "over_limit", limit?, amount?}`.
 * Approving and authoring are different permissions: an approve grant does not help here.
 * Returns `[]` when either `editor` or `basePlan` is absent (not an edit).
 */
export function checkAuthorship(steps: readonly StepView[], editor?: EditorContext, basePlan?: Plan): ValidationIssue[] {
  if (!editor || !basePlan) return [];
  const issues: ValidationIssue[] = [];
  for (const [index, reason] of authoredSteps(steps, basePlan)) {
    const s = steps[index];
    const tool = s.tool!;
    const amount: Money | undefined = s.step ? tool.amount(s.step.args) : undefined;
    const denial = checkGrant(editor.grants, "author", tool.name, amount);
    if (!denial) continue;
    const message =
      denial.code === "over_limit"
        ? denial.amount.currency !== denial.limit.currency
          ? `You may author ${tool.name} steps only in ${denial.limit.currency}, up to ${formatMoney(denial.limit)}`
          : `You may not author ${tool.name} steps above ${formatMoney(denial.limit)} (this one is ${formatMoney(denial.amount)})`
        : `You may not author ${tool.name} steps`;
    issues.push({
      stage: "authorship",
      code: "authorship_denied",
      severity: "error",
      stepId: s.id,
      path: denial.code === "over_limit" ? `${s.path}.args.amount` : `${s.path}.tool`,
      message,
      details: {
        tool: tool.name,
        reason,
        userId: editor.userId,
        denial: denial.code,
        ...(denial.code === "over_limit" ? { limit: denial.limit, amount: denial.amount } : {}),
      },
    });
  }
  return issues;
}

/**
 * Which steps are held to the fields their gate-policy rule requires (a missing one is an error,
 * ./evidence.ts likewise for evidence), by step id: in the agent's submission (`phase` "submit")
 * every step the agent wrote (author model); in a person's edit (`phase` "edit", with the plan it
 * edits as `basePlan`) every step the person added or whose tool or arguments they changed
 * (`authoredSteps`) — the edit is refused until they give the reasons; reasons an
 * edit carries over from the base step (lib/plan/reasons.ts `keepReasons`) count. Steps an edit
 * leaves as they were, and every step of a re-check (a stored plan checked again at approval or
 * dispatch), are held to none: their missing fields stay warnings. Pure. Source:
 * docs/design.md "The task contract and what the agent saw".
 */
export function heldToRequiredFields(steps: readonly StepView[], phase: ValidationPhase, basePlan?: Plan): Set<string> {
  const held = new Set<string>();
  if (phase === "submit") for (const s of parsedSteps(steps)) if (s.step.author.kind === "model") held.add(s.id);
  if (phase === "edit" && basePlan) {
    for (const index of authoredSteps(steps, basePlan).keys()) {
      const id = steps[index]?.id;
      if (id !== undefined) held.add(id);
    }
  }
  return held;
}
