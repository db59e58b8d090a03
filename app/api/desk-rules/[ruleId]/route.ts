import { getDeskRuleEndpoint, saveDeskRuleEndpoint } from "@/lib/api/desk-rule-endpoints";
import { getDeskRule } from "@/lib/server/desk-rules/list-desk-rules";
import { saveDeskRule } from "@/lib/server/desk-rules/save-desk-rule";
import { route } from "@/lib/server/route/route";

/** `GET /api/desk-rules/{ruleId}` → `{rule, versions}` (lib/api/desk-rule-endpoints.ts). */
export const GET = route(getDeskRuleEndpoint, async ({ caller, params }) => ({ body: await getDeskRule(caller, params.ruleId) }));

/** `PUT /api/desk-rules/{ruleId}` → `{rule}`: the next version (409 `stale_desk_rule` if someone saved first). */
export const PUT = route(saveDeskRuleEndpoint, async ({ caller, params, body }) => ({ body: { rule: await saveDeskRule(caller, params.ruleId, body) } }));
