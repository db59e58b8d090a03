import type { AccountSnapshot } from "../../desk/snapshot";
import type { Step } from "../../plan/schema";
import { staleRecordDetails, staleRecordMessage } from "../../records/record-age";
import { staleRecordOf } from "../account-data/stale-records";
import type { DeclaredRefsCatalog } from "../account-data/load-account-snapshot";
import type { Db } from "../db/transaction";
import type { ClaimRefusal } from "./decide-claim";

/**
 * The freshness bound at claim (docs/design.md "How old the local copy may be"): the bound is the
 * `maxRecordAgeMinutes` of the gate-policy rule that governed the step's approval
 * (`approval.policyRuleId`; a rule row is never changed once written, so this is the bound the
 * approver decided under; none: no bound), applied to the step's target records in `desk` — the
 * snapshot the claim's dispatch checks loaded (with `catalog`, the run's: a bound tool's declared
 * records too) — at `now`. Returns the refusal 409
 * `stale_account_data` {stepId, record, syncedAt, ageMinutes, maxRecordAgeMinutes} with effect
 * `none` (the run stays approved: the records door syncs the record and the executor claims again;
 * not final, so never saved under the idempotency key), or null. One indexed read (the approval's rule).
 */
export async function staleRecordAtClaim(db: Db, approvalId: string | undefined, step: Step, desk: AccountSnapshot, now: Date, catalog?: DeclaredRefsCatalog): Promise<ClaimRefusal | null> {
  if (!approvalId) return null;
  const approval = await db.approval.findUnique({ where: { id: approvalId }, select: { policyRuleId: true } });
  if (!approval?.policyRuleId) return null;
  const rule = await db.gatePolicyRule.findUnique({ where: { id: approval.policyRuleId }, select: { maxRecordAgeMinutes: true } });
  const stale = staleRecordOf(step, desk, rule?.maxRecordAgeMinutes ?? null, now, catalog);
  if (!stale) return null;
  return { kind: "refuse", code: "stale_account_data", message: `${staleRecordMessage(stale, step.tool, "claim it again")} Do not write it yet.`, details: staleRecordDetails(stale, step.id), effect: "none" };
}
