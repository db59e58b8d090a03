import { z } from "zod";
import { currencySchema, minorToDecimal, parseMinor, type Currency } from "../money/money";
import { MAX_DATE_HORIZON_DAYS, MAX_RECORD_AGE_MINUTES } from "../plan/policy";
import { gatePolicyDraftSchema, gateRule, GATE_RULE_DECISIONS, REQUIRABLE_FIELDS, type GateRule, type GatePolicyDraft } from "./rules";

/**
 * The admin editor's form: the same draft as `gatePolicyDraftSchema`, with amounts as
 * decimal text in the rule's currency (USD when none), times in hours, the date horizon in days and the record-age bound in minutes,
 * as people type them.
 * `gatePolicyFormSchema` turns a form into the draft and then validates it with the one draft
 * schema the server uses, so the form and the API refuse the same things.
 */

const text = z.string().max(200);
/** One rule row as the form holds it. */
export const gateRuleFormSchema = z.object({
  tool: text,
  desk: text,
  accountId: text,
  accountTag: text,
  minAmount: text,
  maxAmount: text,
  currency: z.union([currencySchema, z.literal("")]),
  decision: z.enum(GATE_RULE_DECISIONS),
  authorMayApprove: z.boolean(),
  expiryHours: text,
  escalateHours: text,
  /** True: a step outside the task's intent or accounts waits for a supervisor instead of being refused. */
  supervisorMayAllowOutsideContract: z.boolean().optional(),
  /** The step fields the rule requires, one checkbox each (react-hook-form gives the checked values, or false when none is). */
  requiredFields: z.union([z.array(z.enum(REQUIRABLE_FIELDS)), z.literal(false)]).optional(),
  /** The date horizon in days as typed ("" : the default, 366). */
  horizonDays: text.optional(),
  /** The record-age bound in minutes as typed ("": no bound). */
  maxRecordAgeMinutes: text.optional(),
  /** True: approving a governed step needs the approver's passkey signature. */
  requireSignature: z.boolean().optional(),
  note: text,
});
export type GateRuleForm = z.infer<typeof gateRuleFormSchema>;

const amountOf = (v: string, currency: Currency, ctx: z.RefinementCtx, path: (string | number)[]) => {
  if (v.trim() === "") return null;
  const minor = parseMinor(v, currency);
  if (minor === null || minor < 0) {
    ctx.addIssue({ code: "custom", path, message: `Write an amount like 1000.00 (${currency}).` });
    return null;
  }
  return minor;
};
const daysOf = (v: string | undefined, ctx: z.RefinementCtx, path: (string | number)[]) => {
  if (v === undefined || v.trim() === "") return null;
  const d = Number(v);
  if (!Number.isInteger(d) || d < 1 || d > MAX_DATE_HORIZON_DAYS) {
    ctx.addIssue({ code: "custom", path, message: `Write a whole number of days from 1 to ${MAX_DATE_HORIZON_DAYS}, e.g. 366.` });
    return null;
  }
  return d;
};
const minutesOf = (v: string | undefined, ctx: z.RefinementCtx, path: (string | number)[]) => {
  if (v === undefined || v.trim() === "") return null;
  const m = Number(v);
  if (!Number.isInteger(m) || m < 1 || m > MAX_RECORD_AGE_MINUTES) {
    ctx.addIssue({ code: "custom", path, message: `Write a whole number of minutes from 1 to ${MAX_RECORD_AGE_MINUTES}, e.g. 60 (blank: no bound).` });
    return null;
  }
  return m;
};
const secondsOf = (v: string, ctx: z.RefinementCtx, path: (string | number)[]) => {
  if (v.trim() === "") return null;
  const h = Number(v);
  if (!Number.isFinite(h) || h <= 0) {
    ctx.addIssue({ code: "custom", path, message: "Write a number of hours, e.g. 8." });
    return null;
  }
  return Math.round(h * 3600);
};

/** The editor's form → the draft (then `gatePolicyDraftSchema`). */
export const gatePolicyFormSchema = z
  .object({ baseVersion: z.number().int().min(0), note: z.string(), rules: z.array(gateRuleFormSchema) })
  .transform((f, ctx) => ({
    baseVersion: f.baseVersion,
    note: f.note,
    rules: f.rules.map((r, i) => {
      const currency: Currency = r.currency === "" ? "USD" : r.currency;
      return {
        tool: r.tool,
        desk: r.desk,
        accountId: r.accountId,
        accountTag: r.accountTag,
        minAmountMinor: amountOf(r.minAmount, currency, ctx, ["rules", i, "minAmount"]),
        maxAmountMinor: amountOf(r.maxAmount, currency, ctx, ["rules", i, "maxAmount"]),
        currency: r.currency === "" ? null : r.currency,
        decision: r.decision,
        authorMayApprove: r.authorMayApprove,
        expirySeconds: secondsOf(r.expiryHours, ctx, ["rules", i, "expiryHours"]),
        escalateSeconds: secondsOf(r.escalateHours, ctx, ["rules", i, "escalateHours"]),
        allowOutsideContract: r.supervisorMayAllowOutsideContract ? ("supervisor" as const) : null,
        requiredFields: r.requiredFields || [],
        dateHorizonDays: daysOf(r.horizonDays, ctx, ["rules", i, "horizonDays"]),
        maxRecordAgeMinutes: minutesOf(r.maxRecordAgeMinutes, ctx, ["rules", i, "maxRecordAgeMinutes"]),
        requireSignature: r.requireSignature === true,
        note: r.note,
      };
    }),
  }))
  // The transform's output is the draft's input; zod's pipe types want the exact input shape.
  .pipe(gatePolicyDraftSchema as unknown as z.ZodType<GatePolicyDraft, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

/** A saved rule as a form row. */
export function toRuleForm(r: Omit<GateRule, "id" | "position">): GateRuleForm {
  const currency: Currency = (r.currency as Currency | null) ?? "USD";
  const hours = (s: number | null) => (s === null ? "" : String(Math.round((s / 3600) * 100) / 100));
  return {
    tool: r.tool ?? "",
    desk: r.desk ?? "",
    accountId: r.accountId ?? "",
    accountTag: r.accountTag ?? "",
    minAmount: r.minAmountMinor === null ? "" : minorToDecimal(r.minAmountMinor, currency),
    maxAmount: r.maxAmountMinor === null ? "" : minorToDecimal(r.maxAmountMinor, currency),
    currency: (r.currency as Currency | null) ?? "",
    decision: r.decision,
    authorMayApprove: r.authorMayApprove,
    expiryHours: hours(r.expirySeconds),
    escalateHours: hours(r.escalateSeconds),
    supervisorMayAllowOutsideContract: r.allowOutsideContract === "supervisor",
    requiredFields: [...(r.requiredFields ?? [])],
    horizonDays: r.dateHorizonDays == null ? "" : String(r.dateHorizonDays),
    maxRecordAgeMinutes: r.maxRecordAgeMinutes == null ? "" : String(r.maxRecordAgeMinutes),
    requireSignature: r.requireSignature === true,
    note: r.note,
  };
}

/** An empty rule row (matches everything, one approver). */
export const EMPTY_RULE_FORM: GateRuleForm = toRuleForm(gateRule({ decision: "one" }));

export type { GatePolicyDraft };
