import { createDeskRuleEndpoint, listDeskRulesEndpoint } from "@/lib/api/desk-rule-endpoints";
import { listDeskRules } from "@/lib/server/desk-rules/list-desk-rules";
import { createDeskRule } from "@/lib/server/desk-rules/save-desk-rule";
import { route } from "@/lib/server/route/route";

/** `GET /api/desk-rules?desk=` → `{rules, nextCursor}` (lib/api/desk-rule-endpoints.ts). */
export const GET = route(listDeskRulesEndpoint, async ({ caller, query }) => ({ body: await listDeskRules(caller, { desk: query.desk, cursor: query.cursor, limit: query.limit }) }));

/** `POST /api/desk-rules` → `201 {rule}`: a new desk rule, version 1. */
export const POST = route(createDeskRuleEndpoint, async ({ caller, body }) => ({ status: 201, body: { rule: await createDeskRule(caller, body) } }));
