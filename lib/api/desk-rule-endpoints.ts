/**
 * Declarations of the desk-rule API (`/api/desk-rules`, supervisors and admins) and of the agent's
 * guidance (`GET /api/v1/guidance`, agent key). Listed in ENDPOINTS (lib/api/endpoints.ts).
 */
import { z } from "zod";
import { deskIdSchema } from "../desk/desks";
import { DESK_RULE_SEVERITIES, deskRuleCreateSchema, deskRuleSaveSchema } from "../desk-rules/rules";
import { deskRuleViewSchema } from "../desk-rules/view";
import { defineEndpoint } from "./contract";
import { AGENT, idParam, page } from "./endpoints/common";

const RULE_MAKERS = { kind: "session", roles: ["supervisor", "admin"] } as const;

const effectSchema = z
  .object({
    since: z.string(),
    edits: z.number().int().meta({ description: "Edits showing the pattern the rule was made from, on its desk, since the rule was made." }),
    runs: z.number().int(),
    runsSubmitted: z.number().int().meta({ description: "Runs submitted on the desk since the rule was made." }),
    editsBefore: z.number().int().meta({ description: "The same edits in an equally long span before the rule." }),
  })
  .nullable();
const listedSchema = deskRuleViewSchema.extend({ effect: effectSchema });
const ruleParams = z.object({ ruleId: idParam });

export const listDeskRulesEndpoint = defineEndpoint({
  id: "listDeskRules",
  method: "GET",
  path: "/api/desk-rules",
  summary: "Desk rules (one desk's or all), newest first, each with how often the edit it was made from still happens",
  caller: RULE_MAKERS,
  query: z.object({ desk: deskIdSchema.optional(), ...page }),
  success: { status: [200], schema: z.object({ rules: z.array(listedSchema), nextCursor: z.string().nullable() }), description: "{rules, nextCursor}" },
  refusals: [],
});

export const createDeskRuleEndpoint = defineEndpoint({
  id: "createDeskRule",
  method: "POST",
  path: "/api/desk-rules",
  summary: "Make a desk rule (version 1; audited): the validator applies it on the desk from the next validation",
  description: "Usually from a recurring edit on /insights (`source`). 422 `unknown_desk`; 422 `validation_failed` {issues: [{path, code: \"unknown_tool\" | \"too_many_rules\", message}]}.",
  caller: RULE_MAKERS,
  body: deskRuleCreateSchema,
  success: { status: [201], schema: z.object({ rule: deskRuleViewSchema }), description: "{rule}" },
  refusals: ["unknown_desk"],
});

export const getDeskRuleEndpoint = defineEndpoint({
  id: "getDeskRule",
  method: "GET",
  path: "/api/desk-rules/{ruleId}",
  summary: "One desk rule with its versions (newest first) and its effect",
  caller: RULE_MAKERS,
  params: ruleParams,
  success: {
    status: [200],
    schema: z.object({
      rule: listedSchema,
      versions: z.array(z.object({ version: z.number().int(), severity: z.enum(DESK_RULE_SEVERITIES), description: z.string(), inWords: z.string(), enabled: z.boolean(), note: z.string(), createdBy: z.object({ id: z.string(), name: z.string() }), createdAt: z.string() })),
    }),
    description: "{rule, versions}",
  },
  refusals: ["not_found"],
});

export const saveDeskRuleEndpoint = defineEndpoint({
  id: "saveDeskRule",
  method: "PUT",
  path: "/api/desk-rules/{ruleId}",
  summary: "Save a change of a desk rule as its next version (a disable is `enabled: false`; audited)",
  description: "`baseVersion` is the version the editor read: 409 `stale_desk_rule` {version, savedBy, savedAt} when someone saved after it.",
  caller: RULE_MAKERS,
  params: ruleParams,
  body: deskRuleSaveSchema,
  success: { status: [200], schema: z.object({ rule: deskRuleViewSchema }), description: "{rule}" },
  refusals: ["not_found", "stale_desk_rule"],
});

const exampleSchema = z.object({ tool: z.string(), before: z.record(z.string(), z.unknown()).nullable(), after: z.record(z.string(), z.unknown()).nullable(), editedAt: z.string() });

export const guidanceEndpoint = defineEndpoint({
  id: "getGuidance",
  method: "GET",
  path: "/api/v1/guidance",
  summary: "The agent's desk rules in words with worked examples from people's edits, for the agent's prompt",
  description: "Only the calling agent's desk. `prompt` is the rules as one text (at most 8,000 characters); each rule has at most 2 examples: the step before and after an edit that showed the pattern the rule was made from.",
  caller: AGENT,
  success: {
    status: [200],
    schema: z.object({
      desk: z.string(),
      rules: z.array(z.object({ id: z.string(), version: z.number().int(), tool: z.string(), kind: z.string(), severity: z.enum(DESK_RULE_SEVERITIES), description: z.string(), inWords: z.string(), checked: z.boolean(), examples: z.array(exampleSchema) })),
      prompt: z.string(),
    }),
    description: "{desk, rules, prompt}",
  },
  refusals: [],
});
