import { guidanceEndpoint } from "@/lib/api/desk-rule-endpoints";
import { guidanceFor } from "@/lib/server/desk-rules/guidance";
import { route } from "@/lib/server/route/route";

/** `GET /api/v1/guidance` → `{desk, rules, prompt}`: the agent's own desk's rules with worked examples. */
export const GET = route(guidanceEndpoint, async ({ caller }) => ({ body: await guidanceFor(caller) }));
