import { defaultGateRules } from "../../gate-policy/defaults";
import { toolCatalog } from "../../tools/builtin-tools";
import { prisma } from "../db/db";
import { inTransaction, ok, type Db } from "../db/transaction";
import { liveGatePolicyVersion } from "./load-gate-policy";
import { writeGatePolicyVersion } from "./save-gate-policy";

/**
 * Seeds today's gate policy as version 1 when no version exists: one rule per
 * built-in tool with its default gate (lib/gate-policy/defaults.ts). Idempotent; returns the live
 * version afterwards.
 */
export async function seedGatePolicy(db: Db = prisma, now = new Date()): Promise<number> {
  return inTransaction(async (tx) => {
    const live = await liveGatePolicyVersion(tx);
    if (live > 0) return ok(live);
    await writeGatePolicyVersion(tx, 1, defaultGateRules(Object.values(toolCatalog)), null, "Today's policy: the built-in tool defaults", now);
    return ok(1);
  }, db);
}
