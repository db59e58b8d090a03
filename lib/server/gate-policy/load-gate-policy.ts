import type { GatePolicyRule } from "../../generated/prisma/client";
import type { GatePolicy, GateRule, GateRuleDecision } from "../../gate-policy/rules";
import { MAX_GATE_RULES, REQUIRABLE_FIELDS } from "../../gate-policy/rules";
import type { Currency } from "../../money/format-money";
import { MAX_DATE_HORIZON_DAYS, MAX_RECORD_AGE_MINUTES } from "../../plan/policy";
import type { GateRulesContext } from "../../validation/types";
import type { DbOrTx } from "../db/transaction";

/**
 * Reading the gate policy as data. A version is immutable once written; the live
 * policy is the highest version. No saved version (a database never seeded) is version 0 with no
 * rules: the built-in tool defaults govern (lib/gate-policy/evaluate.ts).
 */

/** The live (highest) gate policy version, or 0 when none was saved. */
export async function liveGatePolicyVersion(db: DbOrTx): Promise<number> {
  const top = await db.gatePolicyVersion.findFirst({ orderBy: { version: "desc" }, select: { version: true } });
  return top?.version ?? 0;
}

/** A stored rule as the database holds it (prisma/schema.prisma `GatePolicyRule`); {@link toGateRule} reads it as the rule schema's output. */
type RuleRow = Omit<GatePolicyRule, "policyVersion">;

/** A stored `requiredFields` column as reason keys (unknown entries dropped; null: none). */
function storedRequiredFields(v: unknown): GateRule["requiredFields"] {
  const list = Array.isArray(v) ? v : [];
  return REQUIRABLE_FIELDS.filter((k) => list.includes(k));
}

/** A stored rule row as the evaluator's `GateRule` (an unknown decision reads as `two`: fail closed). */
export function toGateRule(r: RuleRow): GateRule {
  const decision: GateRuleDecision = r.decision === "auto" || r.decision === "one" ? r.decision : "two";
  return {
    id: r.id,
    position: r.position,
    tool: r.tool,
    desk: r.desk,
    accountId: r.accountId,
    accountTag: r.accountTag,
    minAmountMinor: r.minAmountMinor,
    maxAmountMinor: r.maxAmountMinor,
    currency: r.currency as Currency | null,
    decision,
    authorMayApprove: r.authorMayApprove,
    expirySeconds: r.expirySeconds,
    escalateSeconds: r.escalateSeconds,
    allowOutsideContract: r.allowOutsideContract === "supervisor" ? "supervisor" : null,
    requiredFields: storedRequiredFields(r.requiredFields),
    dateHorizonDays: typeof r.dateHorizonDays === "number" && r.dateHorizonDays >= 1 && r.dateHorizonDays <= MAX_DATE_HORIZON_DAYS ? r.dateHorizonDays : null,
    maxRecordAgeMinutes: typeof r.maxRecordAgeMinutes === "number" && r.maxRecordAgeMinutes >= 1 && r.maxRecordAgeMinutes <= MAX_RECORD_AGE_MINUTES ? r.maxRecordAgeMinutes : null,
    requireSignature: r.requireSignature === true,
    note: r.note,
  };
}

/**
 * The rules of gate policy `version` in position order (at most MAX_GATE_RULES, one indexed
 * query); `version` null or omitted: the live version. A version that does not exist has no
 * rules (the built-in defaults).
 */
export async function loadGatePolicy(db: DbOrTx, version?: number | null): Promise<GatePolicy> {
  const v = version ?? (await liveGatePolicyVersion(db));
  if (v === 0) return { version: 0, rules: [] };
  const rows = await db.gatePolicyRule.findMany({ where: { policyVersion: v }, orderBy: { position: "asc" }, take: MAX_GATE_RULES });
  return { version: v, rules: rows.map(toGateRule) };
}

/** The tags of `desk`'s account `accountId` (`customer_account.tags`, a JSON string array; [] when absent), by its primary key (desk, id). */
export async function accountTagsOf(db: DbOrTx, desk: string, accountId: string): Promise<string[]> {
  if (!accountId) return [];
  const row = await db.customerAccount.findUnique({ where: { desk_id: { desk, id: accountId } }, select: { tags: true } });
  return Array.isArray(row?.tags) ? (row.tags as unknown[]).filter((t): t is string => typeof t === "string") : [];
}

/**
 * Everything the validator's gate stage needs to apply the policy to one run: the
 * policy `version` (null: live) and the run's desk, account and account tags.
 */
export async function gateRulesFor(db: DbOrTx, run: { desk: string; accountId: string }, version?: number | null): Promise<GateRulesContext> {
  const [policy, accountTags] = [await loadGatePolicy(db, version), await accountTagsOf(db, run.desk, run.accountId)];
  return { policy, desk: run.desk, accountId: run.accountId, accountTags };
}
