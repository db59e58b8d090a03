import { deskRuleParamsSchema, MAX_DESK_RULES, type DeskRule, type DeskRuleSeverity } from "../../desk-rules/rules";
import { readJsonColumn } from "../db/json-column";
import type { DbOrTx } from "../db/transaction";

/**
 * The enabled desk rules of `desk` as the validator applies them (stage `desk_rule`, docs/design.md
 * §1): the current version of each, oldest first, at most MAX_DESK_RULES — one indexed read
 * (`desk_rule (desk, enabled)`). Used at submission, edit, discard, approval and dispatch: the rules
 * in force now, like the live data the other stages check.
 */
export async function deskRulesFor(db: DbOrTx, desk: string): Promise<DeskRule[]> {
  const rows = await db.deskRule.findMany({
    where: { desk, enabled: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_DESK_RULES,
    select: { id: true, version: true, severity: true, description: true, params: true },
  });
  return rows.map((r) => ({ id: r.id, version: r.version, severity: r.severity as DeskRuleSeverity, description: r.description, rule: readJsonColumn(deskRuleParamsSchema, r.params, "desk rule") }));
}
