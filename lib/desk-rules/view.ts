import { z } from "zod";
import { DESK_RULE_SEVERITIES, deskRuleParamsSchema, deskRuleSourceSchema } from "./rules";

/*
 * The desk rule as the API answers it (client-safe: the endpoint declarations, the pages and the
 * server share it).
 */

/** A desk rule as the API and the pages show it (the current version; times ISO UTC). */
export const deskRuleViewSchema = z
  .object({
    id: z.string(),
    desk: z.string(),
    version: z.number().int(),
    severity: z.enum(DESK_RULE_SEVERITIES),
    description: z.string(),
    rule: deskRuleParamsSchema,
    inWords: z.string().meta({ description: "The rule's check in words (lib/desk-rules/rules.ts describeRule)." }),
    enabled: z.boolean(),
    source: deskRuleSourceSchema.nullable().meta({ description: "The recurring edit it was made from; null: written by hand." }),
    createdBy: z.object({ id: z.string(), name: z.string() }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "DeskRule" });
export type DeskRuleView = z.output<typeof deskRuleViewSchema>;

