import type { AccountSnapshot } from "../../desk/snapshot";
import { DomainError } from "../../errors/domain-error";
import type { Step } from "../../plan/schema";
import { staleRecordDetails, staleRecordMessage, staleTarget, type StaleRecord } from "../../records/record-age";
import { declaredRefs, referencedIds, type DeclaredRefsCatalog } from "./load-account-snapshot";

/**
 * The freshness bound at a decision, docs/design.md "How old the local copy may be": a step
 * may not be approved or claimed while a record its ARGUMENTS name (its target: `referencedIds(…, {argumentsOnly})`;
 * evidence and provenance sources do not count) was synced longer ago than the governing rule's
 * `maxRecordAgeMinutes`, or never synced (lib/records/record-age.ts). `desk` is the snapshot the
 * decision already loaded (its records carry `sync`); no read of its own.
 */

/**
 * The first stale target of `step` under `maxRecordAgeMinutes` (null: no bound, or all fresh);
 * with `catalog` (the run's), also the records of declared kinds its bound arguments name.
 */
export function staleRecordOf(step: Pick<Step, "tool" | "args">, desk: AccountSnapshot, maxRecordAgeMinutes: number | null, now: Date, catalog?: DeclaredRefsCatalog): StaleRecord | null {
  if (maxRecordAgeMinutes == null) return null;
  const refs = referencedIds([step], { argumentsOnly: true });
  const targets: { kind: string; id: string }[] = (["invoice", "shipment", "account"] as const).flatMap((kind) => [...refs[kind]].sort().map((id) => ({ kind, id })));
  if (catalog) for (const [kind, ids] of declaredRefs([step], catalog)) targets.push(...[...ids].sort().map((id) => ({ kind, id })));
  return staleTarget(targets, desk, maxRecordAgeMinutes, now);
}

/**
 * A person's approval of `steps`: throws 409 `stale_account_data` {stepId, record, syncedAt,
 * ageMinutes, maxRecordAgeMinutes} for the first step (in the order given) whose target record is
 * older than its bound (`boundOf`: the governing rule's `maxRecordAgeMinutes`, null: none) — the
 * whole request is refused, nothing is approved. Message e.g. "invoice in_74119 was last synced
 * 3 h 12 min ago; this desk's policy allows 60 min for issue_refund: sync it, then approve."
 */
export function refuseStaleRecords(steps: readonly Step[], desk: AccountSnapshot, boundOf: (step: Step) => number | null, now: Date, catalog?: DeclaredRefsCatalog): void {
  for (const step of steps) {
    const stale = staleRecordOf(step, desk, boundOf(step), now, catalog);
    if (stale) throw new DomainError("stale_account_data", staleRecordMessage(stale, step.tool, "approve"), staleRecordDetails(stale, step.id));
  }
}
