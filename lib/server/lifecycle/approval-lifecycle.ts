import { approvalFromStates, approvalToState, type ApprovalEvent } from "../../lifecycle/approval-state";
import { Prisma, type Approval } from "../../generated/prisma/client";
import type { DbOrTx, Tx } from "../db/transaction";
import { insertRows, jsonText } from "../db/insert-rows";

/**
 * The one writer of `approval.state` (docs/style.md §12), beside the run's lifecycle: an event of
 * lib/lifecycle/approval-state.ts applied as one conditional update `WHERE state IN (from) AND where`, in the
 * caller's transaction. `where` narrows the records (a run, a step, a digest, an id; for a claim
 * also `expiresAt`). Returns how many records moved — 0 when none was in a state the event may
 * start from (a lost race shows as a count, never as a second transition).
 */
export async function moveApprovals(tx: Tx, event: Exclude<ApprovalEvent, "give">, where: Prisma.ApprovalWhereInput): Promise<number> {
  const res = await tx.approval.updateMany({ where: { ...where, state: { in: approvalFromStates(event) } }, data: { state: approvalToState(event) } });
  return res.count;
}

/**
 * `moveApprovals`, returning the ids of the records it moved (one statement: an UPDATE …
 * RETURNING), for a caller that must know WHICH records moved, not only how many.
 */
export async function moveApprovalsReturningIds(tx: Tx, event: Exclude<ApprovalEvent, "give">, where: Prisma.ApprovalWhereInput): Promise<string[]> {
  const rows = await tx.approval.updateManyAndReturn({ where: { ...where, state: { in: approvalFromStates(event) } }, data: { state: approvalToState(event) }, select: { id: true } });
  return rows.map((r) => r.id);
}

/**
 * `moveApprovals`, returning how many records moved per run (one statement: an UPDATE …
 * RETURNING the runs), for a caller that withdraws the approvals of many runs at once.
 */
export async function moveApprovalsCountingByRun(tx: Tx, event: Exclude<ApprovalEvent, "give">, where: Prisma.ApprovalWhereInput): Promise<Map<string, number>> {
  const rows = await tx.approval.updateManyAndReturn({ where: { ...where, state: { in: approvalFromStates(event) } }, data: { state: approvalToState(event) }, select: { runId: true } });
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.runId, (counts.get(r.runId) ?? 0) + 1);
  return counts;
}

/**
 * Creates an approval record in the state the `give` event leads to (`active`), in the caller's
 * transaction: a person's approval, the gate policy's, or one carried to a new plan version.
 * `data` is everything but the state. Returns the record.
 */
export async function giveApproval(tx: Tx, data: Omit<Prisma.ApprovalUncheckedCreateInput, "state">) {
  return tx.approval.create({ data: { ...data, state: approvalToState("give") } });
}

/** What `giveApprovals` writes for one record: everything but the state; JSON columns as plain values. */
export type ApprovalInput = Omit<Prisma.ApprovalUncheckedCreateInput, "state" | "createdAt" | "updatedAt">;

/** The schema's defaults of the columns an `ApprovalInput` may leave out. */
const APPROVAL_DEFAULTS = {
  target: null,
  targetKind: null,
  targetId: null,
  amountMinor: null,
  amountCurrency: null,
  approverId: null,
  expectedEffect: null,
  approverSlot: 1,
  approvalsRequired: 1,
  policyVersion: null,
  policyRuleId: null,
  recordVersions: null,
  holdOpen: false,
  holdUntilVersion: null,
  holdSince: null,
} satisfies Partial<Approval>;

/** The JSON columns of `approval` (written as JSON text by `giveApprovals`). */
const APPROVAL_JSON_COLUMNS = new Set(["target", "args", "authority", "acknowledged", "expectedEffect", "recordVersions"]);

/**
 * Creates several approval records at once in the `give` state (`active`), in the caller's
 * transaction, with ONE insert statement (lib/server/db/insert-rows.ts; the policy approvals
 * of a submitted plan, the approvals carried to a new plan version). Same records as one
 * `giveApproval` each: the schema's defaults (`approverSlot` 1, `approvalsRequired` 1,
 * `createdAt` and `updatedAt` now, absent optional columns NULL) are filled in here. Returns
 * the records as stored, in the order given. A unique violation is Prisma `P2002`.
 */
export async function giveApprovals(tx: Tx, inputs: readonly ApprovalInput[], now = new Date()): Promise<Approval[]> {
  if (inputs.length === 0) return [];
  const records = inputs.map((d): Approval => {
    const given = Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v === Prisma.DbNull || v === Prisma.JsonNull ? null : v])) as Partial<Approval>;
    return { ...APPROVAL_DEFAULTS, ...given, expiresAt: new Date(d.expiresAt), state: approvalToState("give"), createdAt: now, updatedAt: now } as Approval;
  });
  const columns = Object.values(Prisma.ApprovalScalarFieldEnum);
  const rows = records.map((r) => Object.fromEntries(columns.map((c) => [c, APPROVAL_JSON_COLUMNS.has(c) ? jsonText(r[c]) : r[c]])));
  await insertRows(tx, "approval", columns, rows);
  return records;
}

/**
 * Releases the money holds a synced version of a record reflects
 * (docs/design.md "Systems of record: the one door"): a succeeded write keeps holding its amount on its target
 * (`approval.holdOpen`) until the local copy shows it — a synced version at least the one the
 * executor reported after its write (`holdUntilVersion`), or, when it reported none, a version the
 * source changed at or after the write was reported (`holdSince` ≤ `sourceUpdatedAt`). Until then
 * the amount is neither available twice (the old balance plus no hold) nor counted twice (the new
 * balance plus the hold) — the hold ends in the same transaction that applies the version.
 * Not a state change (a consumed approval stays consumed): the end of its money hold. One indexed UPDATE (approval `targetKind, targetId, state`). Returns how many holds ended.
 * `kind`/`id`: the record applied; `sourceVersion`; `sourceUpdatedAt` (UTC). `desk`: the record's
 * desk — only the approvals of that desk's runs (invoice and declared-kind ids are unique per desk,
 * so another desk's record of the same kind and id is not this one).
 */
export async function releaseSyncHolds(db: DbOrTx, kind: string, id: string, sourceVersion: bigint, sourceUpdatedAt: Date, desk: string): Promise<number> {
  const released = await db.approval.updateMany({
    where: {
      targetKind: kind,
      targetId: id,
      run: { desk },
      state: "consumed",
      holdOpen: true,
      OR: [{ holdUntilVersion: { lte: sourceVersion } }, { holdUntilVersion: null, holdSince: { lte: sourceUpdatedAt } }],
    },
    data: { holdOpen: false },
  });
  return released.count;
}

/**
 * Writes an approval's money hold columns (not its state), in the caller's transaction: `holdOpen`,
 * `holdSince` (UTC) and `holdUntilVersion` of a consumed approval whose written amount the local
 * copy does not show yet (lib/server/records/write-holds.ts). Returns how many records changed.
 */
export async function setApprovalHold(tx: Tx, approvalId: string, hold: { holdOpen: boolean; holdSince: Date | null; holdUntilVersion: bigint | null }): Promise<number> {
  const res = await tx.approval.updateMany({ where: { id: approvalId }, data: hold });
  return res.count;
}

/**
 * Writes the record versions an approval expects at its fence (not its state), in the caller's
 * transaction: after the run's own earlier write moved a record it saw
 * (lib/server/records/write-holds.ts `carryOwnWriteVersions`). Returns how many records changed.
 */
export async function setApprovalRecordVersions(tx: Tx, approvalId: string, recordVersions: Record<string, number>): Promise<number> {
  const res = await tx.approval.updateMany({ where: { id: approvalId }, data: { recordVersions } });
  return res.count;
}
