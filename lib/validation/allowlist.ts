import type { StepView, ValidationIssue } from "./types";

/**
 * Stage 3, *allowlist* (docs/design.md §1.3): every step's tool must be one this agent may call —
 * the agent executes the plan, including steps an operator added. Code `tool_not_allowed`.
 * Needs only the tool name, so it also runs on steps whose args failed shape (unknown tools
 * were already reported by the shape stage).
 */
export function checkAllowlist(steps: readonly StepView[], agentAllowedTools: readonly string[]): ValidationIssue[] {
  const allowed = new Set(agentAllowedTools);
  const issues: ValidationIssue[] = [];
  for (const s of steps) {
    if (!s.tool || allowed.has(s.tool.name)) continue;
    issues.push({
      stage: "allowlist",
      code: "tool_not_allowed",
      severity: "error",
      ...(s.id !== undefined ? { stepId: s.id } : {}),
      path: `${s.path}.tool`,
      message: `${s.tool.name} is not a tool this agent may call`,
      details: { tool: s.tool.name },
    });
  }
  return issues;
}
