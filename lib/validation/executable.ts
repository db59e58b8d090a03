import type { Step } from "../plan/schema";
import type { ValidationIssue } from "./types";

/**
 * Edits may not hand an agent work it cannot do: every step of the edited plan whose tool the
 * run's agent cannot execute (`executable`: its declared executesTools, else its allowlist) and
 * that the edit introduced — a new step, or a step whose tool changed from `base` — is an error
 * issue `tool_not_executable` (allowlist stage) naming the tool. Steps the agent itself proposed
 * are judged by the allowlist stage as before. Pure.
 */
export function notExecutableIssues(next: readonly Pick<Step, "id" | "tool">[], base: readonly Pick<Step, "id" | "tool">[], executable: readonly string[]): ValidationIssue[] {
  const before = new Map(base.map((s) => [s.id, s.tool]));
  const can = new Set(executable);
  return next.flatMap((s, index) =>
    before.get(s.id) === s.tool || can.has(s.tool)
      ? []
      : [
          {
            stage: "allowlist" as const,
            code: "tool_not_executable",
            severity: "error" as const,
            stepId: s.id,
            path: `steps.${index}.tool`,
            message: `The agent that runs this plan cannot execute ${s.tool}; a step with this tool would never run. Remove it or hand the work to a person.`,
          },
        ],
  );
}
