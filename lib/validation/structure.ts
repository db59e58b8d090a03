import { MAX_PLAN_STEPS } from "../plan/schema";
import type { StepView, ValidationIssue } from "./types";

/**
 * Stage 2, *structure* (docs/design.md §1.2): at least one step (`empty_plan`), no more than
 * `maxSteps` steps (`too_many_steps`, default MAX_PLAN_STEPS = 20), and unique step ids
 * (`duplicate_step_id`, reported on every repeat, naming the step numbers that share it), and
 * dependencies on earlier steps only (`invalid_dependency`).
 * Runs on every step whose `id` is a string, whether or not its args passed shape.
 */
export function checkStructure(steps: readonly StepView[], maxSteps: number = MAX_PLAN_STEPS): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (steps.length === 0) {
    issues.push({
      stage: "structure",
      code: "empty_plan",
      severity: "error",
      path: "steps",
      message: "The plan has no steps; it needs at least one",
    });
  }
  if (steps.length > maxSteps) {
    issues.push({
      stage: "structure",
      code: "too_many_steps",
      severity: "error",
      path: "steps",
      message: `The plan has ${steps.length} steps; at most ${maxSteps} are allowed`,
      details: { count: steps.length, max: maxSteps },
    });
  }
  const firstIndex = new Map<string, number>();
  for (const s of steps) {
    if (s.rawId === undefined) continue;
    const first = firstIndex.get(s.rawId);
    if (first === undefined) {
      firstIndex.set(s.rawId, s.index);
      continue;
    }
    issues.push({
      stage: "structure",
      code: "duplicate_step_id",
      severity: "error",
      ...(s.id !== undefined ? { stepId: s.id } : {}),
      path: `${s.path}.id`,
      message: `Steps ${first + 1} and ${s.index + 1} share the id ${JSON.stringify(s.rawId)}; every step needs its own id`,
      details: { id: s.rawId, firstIndex: first, index: s.index },
    });
  }
  issues.push(...checkDependencies(steps));
  return issues;
}

/**
 * Declared dependencies (`dependsOn`) name EARLIER steps of the same plan, each once
 * (`invalid_dependency`, error): an unknown id, the step itself, or a later step (which would allow
 * a cycle) is refused. Only steps that passed shape are checked.
 */
function checkDependencies(steps: readonly StepView[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const position = new Map<string, number>();
  steps.forEach((s) => s.id !== undefined && !position.has(s.id) && position.set(s.id, s.index));
  for (const s of steps) {
    const deps = s.step?.dependsOn;
    if (!deps || s.id === undefined) continue;
    const seen = new Set<string>();
    deps.forEach((dep, k) => {
      const at = position.get(dep);
      const why = seen.has(dep)
        ? `lists step ${JSON.stringify(dep)} twice`
        : at === undefined
          ? `depends on ${JSON.stringify(dep)}, which is not a step of this plan`
          : at >= s.index
            ? `depends on step ${at + 1} (${dep}), which does not come before it; a step may only depend on earlier steps`
            : null;
      seen.add(dep);
      if (why) {
        issues.push({
          stage: "structure",
          code: "invalid_dependency",
          severity: "error",
          stepId: s.id,
          path: `${s.path}.dependsOn.${k}`,
          message: `Step ${s.index + 1} ${why}`,
          details: { dependsOn: dep },
        });
      }
    });
  }
  return issues;
}
