import type { AccountSnapshot } from "../desk/snapshot";
import { explainUnresolved, findRecord, notFoundPhrase, type RecordKind } from "../desk/lookup";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

const RECORD_KINDS: readonly RecordKind[] = ["invoice", "shipment", "ticket", "account"];

/**
 * Completeness of a step's reasons (docs/api.md step reasons), task-contract stage:
 * a WRITE step the agent proposed — its tool's effect is not `internal`, its author the model —
 * without a `rationale` (absent or blank) gets `missing_rationale` (warning, no acknowledgement
 * needed): the approver is asked to consent to a write the agent did not explain. A step a person
 * added or changed is that person's decision and is not asked for one. Skips steps whose shape failed.
 */
export function checkRationale(steps: readonly StepView[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    if (s.tool.effect === "internal" || s.step.author.kind !== "model") continue;
    if (typeof s.step.rationale === "string" && s.step.rationale.trim() !== "") continue;
    issues.push({
      stage: "task_contract",
      code: "missing_rationale",
      severity: "warning",
      stepId: s.id,
      path: `${s.path}.rationale`,
      message: `Step ${s.index + 1} (${s.tool.name}) writes (${s.tool.effect.replace("_", "-")}) but the agent gave no rationale for it`,
      details: { tool: s.tool.name, effect: s.tool.effect },
    });
  }
  return issues;
}

/**
 * A step's `evidence` is checked against account data like ids, argument-bounds
 * stage: each `{recordType, recordId}` must name an existing invoice, shipment, ticket or account
 * (exact id; a lookalike never resolves, the message names the nearest real id). Otherwise
 * `unverified_evidence` (warning): the record does not exist, or its type is not one Plandesk
 * can check. Evidence never blocks — it explains — but the approver sees what is unsupported.
 * Skips steps whose shape failed.
 */
export function checkEvidence(steps: readonly StepView[], desk: AccountSnapshot): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    (s.step.evidence ?? []).forEach((ref, k) => {
      if ("readStepId" in ref) return; // a read step of the plan: judged by ./evidence.ts
      const base = { stage: "argument_bounds" as const, code: "unverified_evidence", severity: "warning" as const, stepId: s.id, path: `${s.path}.evidence.${k}` };
      const kind = RECORD_KINDS.find((r) => r === ref.recordType);
      if (!kind) {
        issues.push({
          ...base,
          message: `Evidence ${ref.recordType} ${JSON.stringify(ref.recordId)} cannot be verified: Plandesk checks only ${RECORD_KINDS.join(", ")} records`,
          details: { recordType: ref.recordType, recordId: ref.recordId, reason: "unknown_record_type" },
        });
        return;
      }
      if (findRecord(desk, kind, ref.recordId)) return;
      const u = explainUnresolved(desk, kind, ref.recordId);
      issues.push({
        ...base,
        message: `Evidence ${kind} ${JSON.stringify(ref.recordId)} ${desk.desk !== undefined ? notFoundPhrase(desk) : "does not exist in account data"}${u.suggestion !== undefined ? ` — did you mean ${u.suggestion}?` : ""}`,
        details: { recordType: kind, recordId: ref.recordId, reason: "not_found", ...(u.suggestion !== undefined ? { suggestion: u.suggestion } : {}) },
      });
    });
  }
  return issues;
}
