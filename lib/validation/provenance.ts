import type { AccountSnapshot } from "../desk/snapshot";
import { parsedSteps, type StepView, type ValidationIssue, type ValidationPhase } from "./types";
import { valueAt, verifyProvenance } from "./provenance-check";


/**
 * Provenance is checked, not displayed on trust. Part of stage 5, *task contract*: each
 * argument's stated origin is verified by ./provenance-check.ts `verifyProvenance` (a formula is
 * recomputed, a quote must be in the task and hold the value, a source record must belong to the
 * task's account and hold the value). A claim that does not hold is `provenance_mismatch` — an
 * ERROR when the agent submits (`phase` "submit"), a warning when a person edits or a stored plan
 * is checked again (the data may have moved since; the approver sees it). Path
 * `steps.N.provenance.<arg>`, details `{arg, kind, reason, claimed?, computed?}`; the message
 * reads e.g. `"amount" is computed by the agent as "318000 * 2 / 6", but claimed $1,500.00,
 * formula gives $1,060.00`. A claim that cannot be checked at all (an unknown record type) keeps
 * the `unverified_provenance` warning; the card shows every unchecked claim as "unverified". Pure.
 */
export function checkProvenance(steps: readonly StepView[], desk: AccountSnapshot, taskText?: string, phase: ValidationPhase = "submit"): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    for (const [arg, p] of Object.entries(s.step.provenance ?? {})) {
      const check = verifyProvenance(p, valueAt(s.step.args, arg), { desk, taskText });
      if (!check || check.status === "checked") continue;
      const said =
        p.kind === "source"
          ? `was read from ${p.recordType} ${p.recordId}`
          : p.kind === "computed"
            ? `is computed${p.formula ? ` as "${p.formula}"` : ""}`
            : "was taken from the task text";
      if (check.status === "mismatch") {
        issues.push({
          stage: "task_contract",
          code: "provenance_mismatch",
          severity: phase === "submit" ? "error" : "warning",
          stepId: s.id,
          path: `${s.path}.provenance.${arg}`,
          message: `The agent says "${arg}" ${said}, but ${check.message}`,
          details: { arg, kind: p.kind, reason: check.reason, ...(check.claimed ? { claimed: check.claimed, computed: check.computed } : {}) },
        });
      } else if (p.kind === "source") {
        issues.push({
          stage: "task_contract",
          code: "unverified_provenance",
          severity: "warning",
          stepId: s.id,
          path: `${s.path}.provenance.${arg}`,
          message: `The agent says "${arg}" ${said}, but ${check.message}; treat the value as the agent's own`,
          details: { arg, kind: p.kind, reason: check.message },
        });
      }
    }
  }
  return issues;
}
