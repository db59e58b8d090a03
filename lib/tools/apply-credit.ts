import { z } from "zod";
import { moneySchema } from "../money";
import { defineTool } from "./types";
import { checkPositive, recordId, requiredText, targetIfExists, unknownIdIssue } from "./shared";
import { findRecord } from "../desk/lookup";

/**
 * `apply_credit` — puts a credit on a customer account. Args `{accountId: "acc_nordkapp",
 * amount: {minor, currency}, memo}`; effect irreversible, gate always approval.
 * Bounds (DESIGN.md §1.4): the account exists (`unknown_id`), amount > 0 (`amount_not_positive`).
 */
export const applyCredit = defineTool({
  name: "apply_credit",
  label: "Apply account credit",
  description: "Adds a credit to a customer account, usable against future invoices. It cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  argsSchema: z
    .object({
      accountId: recordId("Account"),
      amount: moneySchema,
      memo: requiredText("Memo", 1000),
    })
    .strict(),
  fields: [
    { name: "accountId", label: "Account", kind: "account_id" },
    { name: "amount", label: "Amount", kind: "money" },
    { name: "memo", label: "Memo", kind: "text" },
  ],
  target: (args, desk) => targetIfExists(desk, "account", args.accountId),
  amount: (args) => args.amount,
  checkBounds: (args, ctx) => [
    ...(findRecord(ctx.desk, "account", args.accountId) ? [] : [unknownIdIssue(ctx.desk, "account", "accountId", args.accountId)]),
    ...checkPositive(args.amount, "Credit"),
  ],
});

/** Parsed arguments of `apply_credit`. */
export type ApplyCreditArgs = z.infer<typeof applyCredit.argsSchema>;
