import { z } from "zod";
import { currencySchema } from "../money/money";
import { MAX_DATE_HORIZON_DAYS, MAX_EXPIRY_SECONDS, MAX_RECORD_AGE_MINUTES, MIN_EXPIRY_SECONDS } from "../plan/policy";
import { STEP_REASON_KEYS } from "../plan/schema";

/**
 * Gate policy as data: the rule shape one zod schema defines for the admin form, the
 * API and the evaluator. A rule matches steps by tool, desk, account, account tag, amount band
 * (`minAmountMinor` inclusive, `maxAmountMinor` exclusive, minor units, optionally one
 * `currency`); it decides `auto` (the policy approves), `one` approver or `two` distinct
 * approvers, whether the step's author may be one of them, and optional run deadlines
 * (`expirySeconds`, `escalateSeconds`, capped by lib/plan/policy.ts), and the step fields it requires
 * (`requiredFields`, a subset of title, rationale, evidence, risk, stopCondition: a step the agent
 * submits without one is refused, `missing_required_field`; required evidence must be usable,
 * lib/validation/evidence.ts), and the date horizon of the steps it governs (`dateHorizonDays`, days
 * after today in UTC a date argument may lie; null: RESCHEDULE_HORIZON_DAYS of lib/plan/policy.ts),
 * and how old the local copy of a step's target record may be when a person approves the step or an
 * executor claims it (`maxRecordAgeMinutes`, minutes since the record was last synced, 1 to
 * MAX_RECORD_AGE_MINUTES; null: no bound; older → `stale_account_data`, lib/records/record-age.ts),
 * and whether approving a governed step needs the approver's WebAuthn signature over the run, plan
 * version and step digests (`requireSignature`; lib/signatures/approval-challenge.ts).
 */

/** The step fields a rule may require, in display order. */
export const REQUIRABLE_FIELDS = STEP_REASON_KEYS;
/** A rule's required fields: a set of reason keys (duplicates dropped, display order kept). */
export const requiredFieldsSchema = z
  .array(z.enum(REQUIRABLE_FIELDS))
  .max(REQUIRABLE_FIELDS.length * 2)
  .optional()
  .transform((v) => REQUIRABLE_FIELDS.filter((k) => (v ?? []).includes(k)));

/** What a matching rule decides. Source:. */
export const GATE_RULE_DECISIONS = ["auto", "one", "two"] as const;
export type GateRuleDecision = (typeof GATE_RULE_DECISIONS)[number];

/** The most rules one policy version holds (the admin editor and the evaluator load one version whole). */
export const MAX_GATE_RULES = 200;

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((v) => (v === "" ? null : v))
    .nullable()
    .optional()
    .transform((v) => v ?? null);

/** Largest amount bound a rule stores (minor units): the columns are 32-bit integers on PostgreSQL. */
export const MAX_RULE_MINOR = 2_000_000_000;

const optionalMinor = z.number().int().min(0).max(MAX_RULE_MINOR).nullable().optional().transform((v) => v ?? null);
const optionalSeconds = z.number().int().min(MIN_EXPIRY_SECONDS).max(MAX_EXPIRY_SECONDS).nullable().optional().transform((v) => v ?? null);

/**
 * A rule's fields, each once: the input schema below adds the cross-field checks, the API's view
 * of a saved rule (lib/api/gate-policy-endpoints.ts) adds its id and position, and the editor's
 * form (lib/gate-policy/form.ts) maps every one of them.
 */
export const gateRuleFieldsSchema = z
  .object({
    tool: optionalText(64),
    desk: optionalText(64),
    accountId: optionalText(64),
    accountTag: optionalText(64),
    minAmountMinor: optionalMinor,
    maxAmountMinor: optionalMinor,
    currency: currencySchema.nullable().optional().transform((v) => v ?? null),
    decision: z.enum(GATE_RULE_DECISIONS),
    authorMayApprove: z.boolean(),
    expirySeconds: optionalSeconds,
    escalateSeconds: optionalSeconds,
    /** "supervisor": a step outside the task's intent or accounts waits for a supervisor's decision instead of being refused; null: refused. */
    allowOutsideContract: z.enum(["supervisor"]).nullable().optional().transform((v) => v ?? null),
    requiredFields: requiredFieldsSchema,
    /** Days after today (UTC) a date argument of a governed step may lie (1 to MAX_DATE_HORIZON_DAYS); null: 366. */
    dateHorizonDays: z.number().int().min(1).max(MAX_DATE_HORIZON_DAYS).nullable().optional().transform((v) => v ?? null),
    /** Minutes since its last sync a governed step's target record may be at approval and claim (1 to MAX_RECORD_AGE_MINUTES); null: no bound. */
    maxRecordAgeMinutes: z.number().int().min(1).max(MAX_RECORD_AGE_MINUTES).nullable().optional().transform((v) => v ?? null),
    /** True: approving a governed step needs the approver's WebAuthn signature over what the card showed (lib/signatures); absent: false. */
    requireSignature: z.boolean().optional().transform((v) => v ?? false),
    note: z.string().trim().max(200).optional().transform((v) => v ?? ""),
  })
  .strict();

/** One rule as an admin writes it (no id, no position: those come from the saved version). */
export const gateRuleInputSchema = gateRuleFieldsSchema
  .superRefine((r, ctx) => {
    if (r.minAmountMinor !== null && r.maxAmountMinor !== null && r.minAmountMinor >= r.maxAmountMinor) {
      ctx.addIssue({ code: "custom", path: ["maxAmountMinor"], message: "The upper bound must be above the lower bound." });
    }
    if (r.expirySeconds !== null && r.escalateSeconds !== null && r.escalateSeconds >= r.expirySeconds) {
      ctx.addIssue({ code: "custom", path: ["escalateSeconds"], message: "Escalation must come before expiry." });
    }
  });
export type GateRuleInput = z.output<typeof gateRuleInputSchema>;

/**
 * A rule that matches every step (no tool, desk, account, tag or amount band), lets the author
 * approve and keeps the run's deadlines, with `fields` laid over it (e.g. `{tool, decision}`).
 */
export function gateRule(fields: Partial<GateRuleInput> & Pick<GateRuleInput, "decision">): GateRuleInput {
  return {
    tool: null,
    desk: null,
    accountId: null,
    accountTag: null,
    minAmountMinor: null,
    maxAmountMinor: null,
    currency: null,
    authorMayApprove: true,
    expirySeconds: null,
    escalateSeconds: null,
    allowOutsideContract: null,
    requiredFields: [],
    dateHorizonDays: null,
    maxRecordAgeMinutes: null,
    requireSignature: false,
    note: "",
    ...fields,
  };
}

/** A draft policy: its rules in order (position = index) and a note saying why it changed. */
export const gatePolicyDraftSchema = z
  .object({
    /** The live version the draft was made from (optimistic concurrency: 409 `stale_policy_version`). */
    baseVersion: z.number().int().min(0),
    rules: z.array(gateRuleInputSchema).max(MAX_GATE_RULES),
    note: z.string().trim().min(1, "Say why the policy changes.").max(500),
  })
  .strict();
export type GatePolicyDraft = z.output<typeof gatePolicyDraftSchema>;

/** A saved rule: an input plus its id and position within its version. */
export type GateRule = GateRuleInput & { id: string; position: number };

/** One policy version with its rules in position order; `version` 0 means "no saved policy: built-in defaults". */
export interface GatePolicy {
  version: number;
  rules: GateRule[];
}

/** The most recent runs a dry-run looks at ("the last N runs", N bounded). */
export const MAX_DRY_RUN_RUNS = 200;

/** Body of a dry-run: the draft rules and how many of the most recent runs to replay. */
export const gatePolicyDryRunSchema = z
  .object({
    rules: z.array(gateRuleInputSchema).max(MAX_GATE_RULES),
    lastRuns: z.number().int().min(1).max(MAX_DRY_RUN_RUNS).default(50),
  })
  .strict();
export type GatePolicyDryRunInput = z.output<typeof gatePolicyDryRunSchema>;

/** How a decision reads for people: "auto", "1 approver", "2 approvers (not the author)". */
export function describeDecision(r: { decision: GateRuleDecision; authorMayApprove: boolean }): string {
  if (r.decision === "auto") return "auto";
  const n = r.decision === "one" ? "1 approver" : "2 approvers";
  return r.authorMayApprove ? n : `${n} (not the author)`;
}

const FIELD_WORDS: Record<(typeof REQUIRABLE_FIELDS)[number], string> = { title: "title", rationale: "rationale", evidence: "evidence", risk: "risk", stopCondition: "stop condition" };

/**
 * Everything a rule decides for a step, for people: the decision (describeDecision), then who
 * decides a step outside the task contract, the fields it requires, a date horizon other than
 * the default, a record-age bound — e.g. "1 approver · requires title, evidence, risk, stop condition · horizon 30 days".
 * The gate-policy dry-run compares these, so a draft that only changes a requirement shows too.
 */
export function describeRequirement(r: {
  decision: GateRuleDecision;
  authorMayApprove: boolean;
  allowOutsideContract?: "supervisor" | null;
  requiredFields?: readonly (typeof REQUIRABLE_FIELDS)[number][];
  dateHorizonDays?: number | null;
  maxRecordAgeMinutes?: number | null;
}): string {
  const parts = [describeDecision(r)];
  if (r.allowOutsideContract === "supervisor") parts.push("a supervisor decides steps outside the task contract");
  parts.push(...describeAsks(r));
  return parts.join(" · ");
}

/**
 * What a rule asks of the steps it governs besides its decision, for people: the required fields
 * ("requires title, evidence"), a date horizon other than the default ("horizon 30 days") and a
 * record-age bound ("records synced within 60 min"); [] for none.
 */
export function describeAsks(r: { requiredFields?: readonly (typeof REQUIRABLE_FIELDS)[number][]; dateHorizonDays?: number | null; maxRecordAgeMinutes?: number | null }): string[] {
  const parts: string[] = [];
  if (r.requiredFields?.length) parts.push(`requires ${r.requiredFields.map((f) => FIELD_WORDS[f]).join(", ")}`);
  if (r.dateHorizonDays != null) parts.push(`horizon ${r.dateHorizonDays} days`);
  if (r.maxRecordAgeMinutes != null) parts.push(`records synced within ${r.maxRecordAgeMinutes} min`);
  return parts;
}
