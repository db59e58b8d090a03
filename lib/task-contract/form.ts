import { z } from "zod";
import { currencySchema, minorToDecimal, parseMinor, type Currency } from "../money/money";
import { taskContractSchema, type TaskContract } from "./schema";

/**
 * The supervisor's contract form on the task panel: the same contract as `taskContractSchema`,
 * with dates and the cap as people type them (empty = no constraint; the cap as decimal text in
 * its currency; accounts comma-separated) and a required note saying why. `contractFormSchema`
 * turns the form into the revision body `{contract, comment}` and validates the contract with the
 * one schema the server uses, so the form and the API refuse the same things.
 */
export const contractFormFieldsSchema = z.object({
  intent: z.string().min(1, "Choose what the task is for"),
  deliveryNotBefore: z.string(),
  deliveryNotAfter: z.string(),
  capAmount: z.string(),
  capCurrency: currencySchema,
  noRefund: z.boolean(),
  accountsInScope: z.string(),
  note: z.string().trim().min(1, "Say why the contract changes").max(500),
});
export type ContractFormFields = z.infer<typeof contractFormFieldsSchema>;

/** The form → `{contract, comment}` (the body of a task revision), or field errors. */
export const contractFormSchema = contractFormFieldsSchema.transform((f, ctx) => {
  let capMinor: number | null = null;
  if (f.capAmount.trim() !== "") {
    capMinor = parseMinor(f.capAmount, f.capCurrency);
    if (capMinor === null || capMinor < 0) {
      ctx.addIssue({ code: "custom", path: ["capAmount"], message: `Write an amount like 150.00 (${f.capCurrency}).` });
      return z.NEVER;
    }
  }
  const accounts = f.accountsInScope
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter(Boolean);
  const candidate = {
    intent: f.intent,
    constraints: {
      ...(f.deliveryNotBefore ? { deliveryNotBefore: f.deliveryNotBefore } : {}),
      ...(f.deliveryNotAfter ? { deliveryNotAfter: f.deliveryNotAfter } : {}),
      ...(capMinor !== null ? { compensationCap: { minor: capMinor, currency: f.capCurrency } } : {}),
      ...(f.noRefund ? { noRefund: true } : {}),
      ...(accounts.length ? { accountsInScope: accounts } : {}),
    },
  };
  const parsed = taskContractSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[issue.path.length - 1];
      const field = key === "compensationCap" || key === "minor" ? "capAmount" : typeof key === "string" && key in f ? key : "intent";
      ctx.addIssue({ code: "custom", path: [field], message: issue.message });
    }
    return z.NEVER;
  }
  return { contract: parsed.data, comment: `Task contract: ${f.note}` };
});
export type ContractFormBody = z.output<typeof contractFormSchema>;

/** A contract (or none) as form values. */
export function toContractForm(c: TaskContract | null): ContractFormFields {
  const cap = c?.constraints.compensationCap;
  const currency: Currency = cap?.currency ?? "USD";
  return {
    intent: c?.intent ?? "",
    deliveryNotBefore: c?.constraints.deliveryNotBefore ?? "",
    deliveryNotAfter: c?.constraints.deliveryNotAfter ?? "",
    capAmount: cap ? minorToDecimal(cap.minor, currency) : "",
    capCurrency: currency,
    noRefund: c?.constraints.noRefund ?? false,
    accountsInScope: (c?.constraints.accountsInScope ?? []).join(", "),
    note: "",
  };
}

export { describeConstraints } from "./describe-constraints";
