import type { DbOrTx } from "../db/transaction";

/**
 * Releases the money holds a synced version of a record reflects
 * (docs/design.md "Systems of record: the one door"): a succeeded write keeps holding its amount on its target
 * (`approval.holdOpen`) until the local copy shows it — a synced version at least the one the
 * executor reported after its write (`holdUntilVersion`), or, when it reported none, a version the
 * source changed at or after the write was reported (`holdSince` ≤ `sourceUpdatedAt`). Until then
 * the amount is neither available twice (the old balance plus no hold) nor counted twice (the new
 * balance plus the hold) — the hold ends in the same transaction that applies the version.
 * One indexed UPDATE (approval `targetKind, targetId, state`). Returns how many holds ended.
 * `kind`/`id`: the record applied; `sourceVersion`; `sourceUpdatedAt` (UTC).
 */
export async function releaseSyncHolds(db: DbOrTx, kind: string, id: string, sourceVersion: bigint, sourceUpdatedAt: Date): Promise<number> {
  const released = await db.approval.updateMany({
    where: {
      targetKind: kind,
      targetId: id,
      state: "consumed",
      holdOpen: true,
      OR: [{ holdUntilVersion: { lte: sourceVersion } }, { holdUntilVersion: null, holdSince: { lte: sourceUpdatedAt } }],
    },
    data: { holdOpen: false },
  });
  return released.count;
}
