import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, describeRecord, findRecord, type RecordKind, notFoundPhrase } from "../desk/lookup";
import type { EvidenceRef } from "../plan/schema";
import { getReadTool } from "../reads/catalog";
import type { ReadStep } from "../reads/schema";
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
 * The record one evidence reference is about — the record a cited read step read, or the record it
 * names — when that record exists in the account snapshot; `undefined` otherwise (a read the plan
 * lacks, an unknown kind, a record that is not there: judged by {@link judgeEvidence}). Pure.
 */
export function evidenceRecord(ref: EvidenceRef, reads: readonly ReadStep[], desk: AccountSnapshot): { kind: RecordKind; id: string } | undefined {
  let kind: RecordKind | undefined;
  let id: string;
  if ("readStepId" in ref) {
    const read = reads.find((r) => r.id === ref.readStepId);
    const tool = read ? getReadTool(read.tool) : undefined;
    if (!read || !tool) return undefined;
    kind = tool.kind;
    id = tool.recordId(read.args);
  } else {
    kind = KINDS.find((k) => k === ref.recordType);
    id = ref.recordId;
  }
  return kind && findRecord(desk, kind, id) ? { kind, id } : undefined;
}

/**
 * Whether evidence about `record` bears on a step that writes to `target`: it is the target
 * itself, or a record of the target's account (the account, one of its invoices or shipments) —
 * but a ticket only when it is the target or the task's own ticket. A step without a target, or a
 * target without an account, has nothing to be unrelated to: true. Pure.
 */
export function evidenceRelated(record: { kind: RecordKind; id: string }, target: { kind: string; id: string } | null, desk: AccountSnapshot): boolean {
  if (!target) return true;
  if (record.kind === target.kind && record.id === target.id) return true;
  const targetAccount = accountIdOf(desk, target.kind, target.id);
  if (targetAccount === undefined) return true;
  if (record.kind === "ticket" && record.id !== desk.ticket.id) return false;
  return accountIdOf(desk, record.kind, record.id) === targetAccount;
}

/**
 * Evidence of write steps (task-contract stage). For each parsed step, each evidence reference is
 * judged by {@link judgeEvidence}; `requiresEvidence(stepId)` says whether the gate policy requires
 * evidence for the step (a rule's `requiredFields` includes "evidence"); `held` the steps held to
 * their required fields (./authorship.ts `heldToRequiredFields`: the agent's submitted steps, a
 * person's added or changed steps), for which a required evidence that fails is an ERROR.
 * - `evidence_failed`: a reference to a failed read (or a record whose read failed) — ERROR where
 *   evidence is required of a held step, else a warning;
 * - `evidence_other_account`: a record of another account than the task's — ERROR where evidence is
 *   required of a held step, else a warning the approver must acknowledge;
 * - `evidence_missing`: evidence is required and the step has no usable reference at all (none, or
 *   only unusable ones) — an ERROR for a held step, a warning on a re-check or an untouched step;
 * - a read step id the plan does not have: `evidence_missing` per reference (error where required
 *   of a held step, else warning);
 * - `evidence_unrelated` (warning, needs acknowledgement): a record that exists but bears on
 *   another target than the step's ({@link evidenceRelated}: another account than the target's,
 *   or another ticket) — a refund of one invoice "relying on" a shipment of another account.
 * A step with `evidence_failed` or `evidence_missing` rests on a read that failed or is not there:
 * the gate policy alone never approves it (../validation/contract-rules.ts `NEVER_AUTO_CODES`).
 * Records that do not exist keep their `unverified_evidence` warning (./reasons.ts). Path
 * `steps.N.evidence.K`; details `{readStepId?, recordKind?, recordId?, reason}`. Pure.
 */
export function checkStepEvidence(
  steps: readonly StepView[],
  reads: readonly ReadStep[],
  desk: AccountSnapshot,
  requiresEvidence: (stepId: string) => boolean,
  held: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    const required = requiresEvidence(s.id);
    const strict = required && held.has(s.id);
    const severity = (hard: boolean) => (hard ? ("error" as const) : ("warning" as const));
    const target = s.tool.target(s.step.args, desk);
    let usable = 0;
    let failed = false;
    (s.step.evidence ?? []).forEach((ref, k) => {
      const use = judgeEvidence(ref, reads, desk);
      const path = `${s.path}.evidence.${k}`;
      const record = use.usable || use.why === "other_account" ? evidenceRecord(ref, reads, desk) : undefined;
      if (record && !evidenceRelated(record, target, desk)) {
        issues.push({
          stage: "task_contract",
          code: "evidence_unrelated",
          severity: "warning",
          needsAcknowledgement: true,
          stepId: s.id,
          path,
          message: `Step ${s.index + 1} (${s.tool.name}) acts on ${target ? describeRecord(target.kind, target.id) : "its target"} but names ${describeRecord(record.kind, record.id)} as evidence, which is not about it; confirm the link before approving`,
          details: { reason: "unrelated", recordKind: record.kind, recordId: record.id, ...(target ? { targetKind: target.kind, targetId: target.id } : {}), ...("readStepId" in ref ? { readStepId: ref.readStepId } : {}) },
        });
      }
      if (use.usable) {
        usable++;
        return;
      }
      const base = { stage: "task_contract" as const, stepId: s.id, path, details: { reason: use.why, ...(use.readStepId ? { readStepId: use.readStepId } : {}) } };
      if (use.why === "read_failed") {
        failed = true;
        issues.push({ ...base, code: "evidence_failed", severity: severity(strict), message: `Step ${s.index + 1} (${s.tool.name}) rests on a read that failed: ${use.message}; a person must approve this step` });
      } else if (use.why === "other_account") {
        issues.push({ ...base, code: "evidence_other_account", severity: severity(strict), ...(strict ? {} : { needsAcknowledgement: true }), message: `Step ${s.index + 1} (${s.tool.name}) names evidence outside the task's account: ${use.message}` });
      } else if (use.why === "no_such_read") {
        issues.push({ ...base, code: "evidence_missing", severity: severity(strict), message: `Step ${s.index + 1} (${s.tool.name}) names evidence that does not exist: ${use.message}; a person must approve this step` });
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
