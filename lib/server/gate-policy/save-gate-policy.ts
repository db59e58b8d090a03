import { nanoid } from "nanoid";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { gatePolicyDraftSchema, type GatePolicy, type GateRuleInput } from "../../gate-policy/rules";
import { appendAudit } from "../audit-log/append-audit";
import { toJsonColumn } from "../db/json-column";
import { Prisma } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, ok, type Tx } from "../db/transaction";
import { liveGatePolicyVersion, loadGatePolicy } from "./load-gate-policy";

/** Strips id and position: a rule as it is compared and audited. */
const plain = ({ id: _id, position: _p, ...r }: GatePolicy["rules"][number]) => r;

/**
 * Writes gate policy version `version` with `rules` in order (position = index). Versions are
 * immutable: the primary key refuses a second writer of the same number (a unique violation the
 * caller's transaction retries or reports). Used by the admin save and the demo seeds.
 */
export async function writeGatePolicyVersion(tx: Tx, version: number, rules: readonly GateRuleInput[], createdById: string | null, note: string, now = new Date()): Promise<void> {
  await tx.gatePolicyVersion.create({ data: { version, createdById, note, createdAt: now } });
  if (rules.length) {
    await tx.gatePolicyRule.createMany({ data: rules.map(({ requiredFields, ...r }, position) => ({ ...r, requiredFields: requiredFields?.length ? toJsonColumn(requiredFields) : Prisma.DbNull, id: `gpr_${nanoid(12)}`, policyVersion: version, position })) });
  }
}

/**
 * Saves an admin's draft as the next gate policy version: all its rules, who, when
 * and why. Audited `admin_change` {what: "gate_policy.save", target: {kind: "gate_policy", id:
 * "v<N>"}, before: rules of the previous version, after: the new rules}. Runs already gated keep
 * the version they recorded; approvals already given keep theirs.
 * Errors: 403 `forbidden` unless admin; 400 `bad_request` {issues}; 409 `stale_policy_version`
 * {liveVersion} when the live version is no longer `baseVersion` (someone saved first).
 */
export async function saveGatePolicy(admin: Pick<Viewer, "id" | "role">, raw: unknown, now = new Date()): Promise<GatePolicy> {
  await requireRole(admin, ["admin"], "admin.save_gate_policy");
  const draft = parseOrBadRequest(gatePolicyDraftSchema, raw);
  const version = await inTransaction(async (tx) => {
    const live = await liveGatePolicyVersion(tx);
    if (live !== draft.baseVersion) {
      throw new DomainError("stale_policy_version", `Someone saved gate policy version ${live} after you opened version ${draft.baseVersion}; review it and try again.`, { liveVersion: live });
    }
    const before = await loadGatePolicy(tx, live);
    await writeGatePolicyVersion(tx, live + 1, draft.rules, admin.id, draft.note, now);
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: admin.id },
      data: { what: "gate_policy.save", target: { kind: "gate_policy", id: `v${live + 1}` }, before: { version: live, rules: before.rules.map(plain) }, after: { version: live + 1, rules: draft.rules }, note: draft.note },
    });
    return ok(live + 1);
  });
  return loadGatePolicy(prisma, version);
}
