import type { BoundsContext } from "../tools/types";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

/**
 * Stage 4, *argument bounds* (DESIGN.md §1.4): each parsed step's arguments against account
 * data, via its tool's `checkBounds` — ids exist (`unknown_id`, with a lookalike-aware "did you
 * mean"), money > 0 and ≤ open balance of an open invoice in its currency, fee codes exist,
 * delivery windows ordered, in the future and off destination holidays. Codes are defined by
 * the tools (lib/tools/*.ts). Paths become "steps.N.args.<field>". Skips steps whose shape failed.
 */
export function checkArgumentBounds(steps: readonly StepView[], ctx: BoundsContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    for (const t of s.tool.checkBounds(s.step.args, ctx)) {
      issues.push({
        stage: "argument_bounds",
        code: t.code,
        severity: t.severity,
        stepId: s.id,
        path: t.path ? `${s.path}.args.${t.path}` : `${s.path}.args`,
        message: t.message,
        ...(t.needsAcknowledgement ? { needsAcknowledgement: true } : {}),
        ...(t.details ? { details: t.details } : {}),
      });
    }
  }
  return issues;
}
