import { z } from "zod";
import { moneySchema } from "../money";
import { defineTool } from "./types";
import { checkInvoiceMoney, recordId, requiredText, targetIfExists } from "./shared";

/**
 * `issue_refund` — refunds money against an invoice. Args `{invoiceId: "in_74119",
 * amount: {minor, currency}, reason}`; effect irreversible, gate always approval; authoring
 * restricted by grants (DESIGN.md §1.7). Bounds (DESIGN.md §1.4): invoice exists, amount > 0,
 * invoice open (not paid/void), same currency, amount ≤ open balance.
 */
export const issueRefund = defineTool({
  name: "issue_refund",
  label: "Issue refund",
  description: "Refunds money against an open invoice. Money leaves the company; it cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  argsSchema: z
    .object({
      invoiceId: recordId("Invoice"),
      amount: moneySchema,
      reason: requiredText("Reason", 1000),
    })
    .strict(),
  fields: [
    { name: "invoiceId", label: "Invoice", kind: "invoice_id" },
    { name: "amount", label: "Amount", kind: "money" },
    { name: "reason", label: "Reason", kind: "text" },
  ],
  target: (args, desk) => targetIfExists(desk, "invoice", args.invoiceId),
  amount: (args) => args.amount,
  checkBounds: (args, ctx) => checkInvoiceMoney(args, ctx, "Refund").issues,
});

/** Parsed arguments of `issue_refund`. */
export type IssueRefundArgs = z.infer<typeof issueRefund.argsSchema>;
