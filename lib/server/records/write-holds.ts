import { isBuiltinKind } from "../../desk/lookup";
import { readRecordVersions, recordKey, type RecordVersions } from "../../records/record-key";
import type { Tx } from "../db/transaction";
import { setApprovalHold, setApprovalRecordVersions } from "../lifecycle/approval-lifecycle";

/**
 * Keeps a succeeded write's money holding until the local copy shows it, in the outcome's
 * transaction (docs/design.md "The moment of the write"): for the
 * consumed approval `approvalId` that moved an amount out of an invoice of its run's desk (or out of a record of a
 * declared kind: an imported tool bound by `x-plandesk-max`, its row read by desk, kind and id), sets `holdOpen`,
 * `holdSince = since` (UTC: when the write could first have happened — the step's claim, since the
 * write comes before its report) and `holdUntilVersion` = the invoice's version the executor
 * reported after its write (`targetVersions["invoice:<id>"]`; null when it reported none: the hold
 * then ends with the first synced version the source changed at or after `since`). A reported
 * version not newer than the one the approval saw cannot be the write's (it is the version read
 * before it) and counts as none. No hold when the local copy already reflects the write (its stored
 * source version ≥ a reported newer one). Also for a supervisor's reconciliation "succeeded"
 * (no version: the time path). Takes the invoice
 * row's lock before reading its version (the lock order: task, run, approvals, invoice), so a sync
 * that applies the version concurrently either committed before (seen here: no hold) or runs
 * after this commits (its `releaseSyncHolds` ends the hold). Returns whether a hold was opened.
 */
export async function holdWrittenAmount(tx: Tx, approvalId: string, targetVersions: RecordVersions | null | undefined, since: Date): Promise<boolean> {
  const approval = await tx.approval.findUnique({ where: { id: approvalId }, select: { targetKind: true, targetId: true, amountMinor: true, state: true, recordVersions: true, run: { select: { desk: true } } } });
  if (!approval || approval.state !== "consumed" || approval.amountMinor === null || !approval.targetKind || !approval.targetId) return false;
  const declared = !isBuiltinKind(approval.targetKind);
  if (approval.targetKind !== "invoice" && !declared) return false;
  const key = recordKey(approval.targetKind, approval.targetId);
  const reported = targetVersions?.[key];
  const seen = readRecordVersions(approval.recordVersions)[key];
  const until = typeof reported === "number" && (seen === undefined || reported > seen) ? BigInt(reported) : null;
  if (until !== null) {
    const stored = declared ? await lockedDeclaredVersion(tx, approval.run.desk, approval.targetKind, approval.targetId) : await lockedInvoiceVersion(tx, approval.run.desk, approval.targetId);
    if (stored?.sourceVersion != null && stored.sourceVersion >= until) return false;
  }
  await setApprovalHold(tx, approvalId, { holdOpen: true, holdSince: since, holdUntilVersion: until });
  return true;
}

/** The stored source version of `desk`'s invoice `id` (by its primary key desk, id), after taking its row lock. */
async function lockedInvoiceVersion(tx: Tx, desk: string, id: string): Promise<{ sourceVersion: bigint | null } | null> {
  await tx.invoice.updateMany({ where: { desk, id }, data: { version: { increment: 0 } } });
  return tx.invoice.findUnique({ where: { desk_id: { desk, id } }, select: { sourceVersion: true } });
}

/** A declared record's stored source version (by desk, kind, id), after taking its row lock. */
async function lockedDeclaredVersion(tx: Tx, desk: string, kind: string, id: string): Promise<{ sourceVersion: bigint | null } | null> {
  await tx.deskRecord.updateMany({ where: { desk, kind, id }, data: { version: { increment: 0 } } });
  return tx.deskRecord.findUnique({ where: { desk_kind_id: { desk, kind, id } }, select: { sourceVersion: true } });
}

/**
 * A run's own write moves what its later steps' approvals expect at their fence
 * (docs/design.md "The moment of the write"): after step `approvalId`'s write succeeded and the executor reported the versions it
 * produced (`targetVersions`), every other `active` or `claimed` approval of run `runId` that saw a
 * reported record at the SAME version as this step's approval saw it (both saw it before this
 * write, and this write's fence confirmed that version was still live) now expects the reported
 * version — so a later step on the same record passes the fence after the run's own write, and
 * a change by anyone else still is `target_changed`. Keys this approval did not see are left as
 * they are. One indexed read of the run's approvals (`runId, state`), one update per approval
 * that moves. Returns how many approvals moved.
 */
export async function carryOwnWriteVersions(tx: Tx, runId: string, approvalId: string, targetVersions: RecordVersions | null | undefined): Promise<number> {
  if (!targetVersions || Object.keys(targetVersions).length === 0) return 0;
  const rows = await tx.approval.findMany({ where: { runId, state: { in: ["active", "claimed", "consumed"] } }, select: { id: true, state: true, recordVersions: true } });
  const mine = readRecordVersions(rows.find((r) => r.id === approvalId)?.recordVersions);
  let moved = 0;
  for (const r of rows) {
    if (r.id === approvalId || r.state === "consumed") continue;
    const seen = readRecordVersions(r.recordVersions);
    const next = { ...seen };
    for (const [key, version] of Object.entries(targetVersions)) {
      if (Object.prototype.hasOwnProperty.call(mine, key) && seen[key] === mine[key]) next[key] = version;
    }
    if (Object.keys(next).some((k) => next[k] !== seen[k])) {
      await setApprovalRecordVersions(tx, r.id, next);
      moved++;
    }
  }
  return moved;
}
