import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, describeRecord, findRecord, type RecordKind, notFoundPhrase } from "../desk/lookup";
import type { EvidenceRef } from "../plan/schema";
import { getReadTool } from "../reads/catalog";
import type { ReadStep } from "../reads/schema";
import type { ValidationPhase } from "./types";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

const KINDS: readonly RecordKind[] = ["invoice", "shipment", "ticket", "account"];

/** Whether one evidence reference can carry a write, and why not. */
export type EvidenceUse =
  | { usable: true; recordKind: RecordKind; recordId: string; readStepId?: string }
  | { usable: false; why: "no_such_read" | "read_failed" | "other_account" | "not_found" | "unknown_type"; message: string; readStepId?: string };

/**
 * Judges one evidence reference of a write step against the plan's reads and the account snapshot:
 * - `{readStepId}`: the read step must exist in the plan (`no_such_read`), must have succeeded
 *   (`read_failed`: a failed read is not evidence) and must have read a record of the task's account;
 * - `{recordType, recordId}`: the record must exist (`not_found`; a type Plandesk cannot check is
 *   `unknown_type`) and belong to the task's account (`other_account`); if the plan's reads include
 *   a failed read of that same record, it is `read_failed` too.
 * Messages never describe another account's record beyond its id. Pure.
 */
export function judgeEvidence(ref: EvidenceRef, reads: readonly ReadStep[], desk: AccountSnapshot): EvidenceUse {
  if ("readStepId" in ref) {
    const read = reads.find((r) => r.id === ref.readStepId);
    if (!read) return { usable: false, why: "no_such_read", readStepId: ref.readStepId, message: `the plan has no read step ${JSON.stringify(ref.readStepId)}` };
    const tool = getReadTool(read.tool);
    if (!tool) return { usable: false, why: "no_such_read", readStepId: read.id, message: `read step ${read.id} uses an unknown read tool` };
    const recordId = tool.recordId(read.args);
    if (read.status !== "ok") return { usable: false, why: "read_failed", readStepId: read.id, message: `read step ${read.id} (${tool.label.toLowerCase()} ${recordId}) failed${read.error ? `: ${read.error}` : ""}; a failed read is not evidence` };
    return judgeRecord(tool.kind, recordId, reads, desk, read.id);
  }
  const kind = KINDS.find((k) => k === ref.recordType);
  if (!kind) return { usable: false, why: "unknown_type", message: `${ref.recordType} ${JSON.stringify(ref.recordId)} is not a kind of record Plandesk can check` };
  return judgeRecord(kind, ref.recordId, reads, desk);
}

function judgeRecord(kind: RecordKind, recordId: string, reads: readonly ReadStep[], desk: AccountSnapshot, readStepId?: string): EvidenceUse {
  const via = readStepId ? { readStepId } : {};
  if (!findRecord(desk, kind, recordId)) return { usable: false, why: "not_found", ...via, message: `${describeRecord(kind, recordId)} ${notFoundPhrase(desk)}` };
  if (accountIdOf(desk, kind, recordId) !== desk.ticket.accountId) {
    return { usable: false, why: "other_account", ...via, message: `${describeRecord(kind, recordId)} belongs to another account than the task's (ticket #${desk.ticket.id})` };
  }
  const failed = reads.find((r) => r.status === "failed" && getReadTool(r.tool)?.kind === kind && getReadTool(r.tool)?.recordId(r.args) === recordId);
  if (!readStepId && failed) return { usable: false, why: "read_failed", readStepId: failed.id, message: `the agent's read of ${describeRecord(kind, recordId)} (read step ${failed.id}) failed; a failed read is not evidence` };
  return { usable: true, recordKind: kind, recordId, ...via };
}

/**
 * Evidence of write steps (task-contract stage). For each parsed step, each evidence reference is
 * judged by {@link judgeEvidence}; `requiresEvidence(stepId)` says whether the gate policy requires
 * evidence for the step (a rule's `requiredFields` includes "evidence").
 * - `evidence_failed`: a reference to a failed read (or a record whose read failed) — ERROR where
 *   evidence is required, else a warning;
 * - `evidence_other_account`: a record of another account than the task's — ERROR where evidence is
 *   required, else a warning the approver must acknowledge;
 * - `evidence_missing`: evidence is required and the step has no usable reference at all (none, or
 *   only unusable ones) — an ERROR for the agent's submission, a warning on a person's edit or a re-check;
 * - a read step id the plan does not have: `evidence_missing` per reference (error where required, else warning).
 * Records that do not exist keep their `unverified_evidence` warning (./reasons.ts). Path
 * `steps.N.evidence.K`; details `{readStepId?, recordKind?, recordId?, reason}`. Pure.
 */
export function checkStepEvidence(
  steps: readonly StepView[],
  reads: readonly ReadStep[],
  desk: AccountSnapshot,
  requiresEvidence: (stepId: string) => boolean,
  phase: ValidationPhase,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    const required = requiresEvidence(s.id);
    const strict = required && (phase === "submit" ? true : false);
    const severity = (hard: boolean) => (hard ? ("error" as const) : ("warning" as const));
    let usable = 0;
    let failed = false;
    (s.step.evidence ?? []).forEach((ref, k) => {
      const use = judgeEvidence(ref, reads, desk);
      if (use.usable) {
        usable++;
        return;
      }
      const base = { stage: "task_contract" as const, stepId: s.id, path: `${s.path}.evidence.${k}`, details: { reason: use.why, ...(use.readStepId ? { readStepId: use.readStepId } : {}) } };
      if (use.why === "read_failed") {
        failed = true;
        issues.push({ ...base, code: "evidence_failed", severity: severity(strict), message: `Step ${s.index + 1} (${s.tool.name}) rests on a read that failed: ${use.message}` });
      } else if (use.why === "other_account") {
        issues.push({ ...base, code: "evidence_other_account", severity: severity(strict), ...(strict ? {} : { needsAcknowledgement: true }), message: `Step ${s.index + 1} (${s.tool.name}) names evidence outside the task's account: ${use.message}` });
      } else if (use.why === "no_such_read") {
        issues.push({ ...base, code: "evidence_missing", severity: severity(strict), message: `Step ${s.index + 1} (${s.tool.name}) names evidence that does not exist: ${use.message}` });
      }
    });
    if (required && usable === 0 && !failed) {
      issues.push({
        stage: "task_contract",
        code: "evidence_missing",
        severity: severity(strict),
        stepId: s.id,
        path: `${s.path}.evidence`,
        message: `Step ${s.index + 1} (${s.tool.name}) needs evidence under the gate policy: name a successful read or a record of the task's account it rests on`,
        details: { reason: (s.step.evidence ?? []).length === 0 ? "none" : "none_usable" },
      });
    }
  }
  return issues;
}
