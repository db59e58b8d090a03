import { z } from "zod";
import { isIsoDate } from "../time/dates";
import { deskIdSchema } from "../desk/desks";

/**
 * Desk rules as data (docs/design.md "Did the edit help?"): what a supervisor makes of a recurring
 * edit so the one validator applies it (stage `desk_rule`) and the agent reads it in its guidance.
 * One small typed vocabulary, each kind with its parameters:
 *
 * - `step_requires_prior {tool, priorTool}`: a step of `tool` needs a step of `priorTool` earlier
 *   in the plan ("a reply follows a ticket note");
 * - `no_date_in {tool, path, dates, holidays}`: the date (or `{from, to}` window) at `path` of the
 *   step's arguments must not be one of `dates`, nor — with `holidays` — a holiday of the
 *   destination of the shipment the step names ("never schedule into a destination holiday");
 * - `date_min_offset_days {tool, path, days}`: the date at `path` (a window: its first day) lies at
 *   least `days` days after today, UTC ("window.from moved +2 days", said as a minimum);
 * - `guidance {tool}`: words for the agent only; the validator does not apply it.
 *
 * A rule has a severity (`warning`: shown on the card and the review; `error`: the plan is
 * refused), a description in words (what the agent and the card read) and is enabled or not.
 * Every save is a new version (lib/server/desk-rules).
 */

/** The kinds of desk rule, in the order the form offers them. */
export const DESK_RULE_KINDS = ["step_requires_prior", "no_date_in", "date_min_offset_days", "guidance"] as const;
export type DeskRuleKind = (typeof DESK_RULE_KINDS)[number];
export const DESK_RULE_SEVERITIES = ["warning", "error"] as const;
export type DeskRuleSeverity = (typeof DESK_RULE_SEVERITIES)[number];

/** How many rules one desk holds (the validator loads a desk's enabled rules whole). */
export const MAX_DESK_RULES = 100;
/** How many dates one `no_date_in` rule lists. */
export const MAX_RULE_DATES = 366;

const toolName = z.string().trim().min(1).max(64).regex(/^[a-z][a-z0-9_]*$/, "a tool name (snake_case)");
/** An argument path without `args.`, e.g. "window.from" or "window". */
const argPath = z.string().trim().min(1).max(120).regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, "a dotted argument path such as window.from");
const isoDate = z.string().refine((s) => isIsoDate(s), "a date as YYYY-MM-DD");

/** The typed parameters of a rule, by kind. */
export const deskRuleParamsSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("step_requires_prior"), tool: toolName, priorTool: toolName }).strict(),
  z
    .object({ kind: z.literal("no_date_in"), tool: toolName, path: argPath, dates: z.array(isoDate).max(MAX_RULE_DATES).default([]), holidays: z.boolean().default(false) })
    .strict()
    .refine((r) => r.holidays || r.dates.length > 0, { message: "List at least one date or choose the destination's holidays", path: ["dates"] }),
  z.object({ kind: z.literal("date_min_offset_days"), tool: toolName, path: argPath, days: z.number().int().min(0).max(366) }).strict(),
  z.object({ kind: z.literal("guidance"), tool: toolName }).strict(),
]);
export type DeskRuleParams = z.output<typeof deskRuleParamsSchema>;

/** The recurring edit a rule was made from (lib/audit/insights.ts `RecurringEdit`): its key is what "still happens" counts. */
export const deskRuleSourceSchema = z
  .object({
    key: z.string().min(1).max(2000),
    kind: z.enum(["field_change", "date_shift", "field", "step_added", "step_removed"]),
    tool: toolName,
    path: z.string().max(120).optional(),
    pattern: z.string().min(1).max(500),
  })
  .strict();
export type DeskRuleSource = z.output<typeof deskRuleSourceSchema>;

const description = z.string().trim().min(3, "Say in words what the rule asks (3 characters or more)").max(500);
const note = z.string().trim().min(1, "Say why (a note for the audit)").max(500);

/** A new rule as a supervisor makes it: `POST /api/desk-rules`. */
export const deskRuleCreateSchema = z
  .object({
    desk: deskIdSchema,
    severity: z.enum(DESK_RULE_SEVERITIES),
    description,
    rule: deskRuleParamsSchema,
    enabled: z.boolean().default(true),
    source: deskRuleSourceSchema.nullable().optional().transform((v) => v ?? null),
    note,
  })
  .strict();
export type DeskRuleCreate = z.output<typeof deskRuleCreateSchema>;

/** A save of an existing rule: `PUT /api/desk-rules/{ruleId}`; `baseVersion` is the version the editor read. */
export const deskRuleSaveSchema = z
  .object({
    baseVersion: z.number().int().min(1).max(2_147_483_647),
    severity: z.enum(DESK_RULE_SEVERITIES),
    description,
    rule: deskRuleParamsSchema,
    enabled: z.boolean(),
    note,
  })
  .strict();
export type DeskRuleSave = z.output<typeof deskRuleSaveSchema>;

/** A rule as the validator and the guidance read it (the current version). */
export interface DeskRule {
  id: string;
  version: number;
  severity: DeskRuleSeverity;
  description: string;
  rule: DeskRuleParams;
}

/** The rule in words for the agent's prompt and the list, e.g. "send_reply needs an add_ticket_note step before it". */
export function describeRule(r: DeskRuleParams): string {
  switch (r.kind) {
    case "step_requires_prior":
      return `${r.tool} needs an ${r.priorTool} step before it in the plan`;
    case "no_date_in": {
      const what = [r.holidays ? "a holiday of the shipment's destination" : null, r.dates.length ? `one of ${r.dates.slice(0, 5).join(", ")}${r.dates.length > 5 ? ` (+${r.dates.length - 5} more)` : ""}` : null].filter(Boolean).join(" or ");
      return `${r.tool}: ${r.path} is never ${what}`;
    }
    case "date_min_offset_days":
      return `${r.tool}: ${r.path} is at least ${r.days} day${r.days === 1 ? "" : "s"} after today (UTC)`;
    case "guidance":
      return `${r.tool}: guidance for the agent (not checked)`;
  }
}
