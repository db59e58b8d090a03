import { defaultGateRules } from "../../gate-policy/defaults";
import type { GateRuleInput } from "../../gate-policy/rules";
import { toolCatalog } from "../../tools/builtin-tools";
import { prisma } from "../db/db";
import { inTransaction, ok, type Db } from "../db/transaction";
import { liveGatePolicyVersion } from "./load-gate-policy";
import { writeGatePolicyVersion } from "./save-gate-policy";

/**
 * Seeds a gate policy as version 1 when no version exists: `rules`, by default today's policy (one
 * rule per built-in tool with its default gate, lib/gate-policy/defaults.ts; the demo desk passes
 * demoDeskGateRules). Idempotent; returns the live version afterwards.
 */
export async function seedGatePolicy(db: Db = prisma, now = new Date(), rules: readonly GateRuleInput[] = defaultGateRules(Object.values(toolCatalog))): Promise<number> {
  return inTransaction(async (tx) => {
    const live = await liveGatePolicyVersion(tx);
    if (live > 0) return ok(live);
    await writeGatePolicyVersion(tx, 1, rules, null, "Today's policy: the built-in tool defaults", now);
    return ok(1);
  }, db);
}
