import { z } from "zod";
import { formatMoney, moneySchema } from "../money";
import { nearest } from "../text/confusables";
import { defineTool, type ToolIssue } from "./types";
import { checkInvoiceMoney, recordId, targetIfExists } from "./shared";

/**
 * `waive_fee` — waives (part of) a fee on an invoice. Args `{invoiceId, feeCode: "LATE_FEE",
 * amount: {minor, currency}}`; effect irreversible, gate always approval.
 * Bounds (DESIGN.md §1.4): everything a refund checks (invoice exists and is open, amount > 0,
 * same currency, ≤ open balance), plus the fee code exists on that invoice (`unknown_fee_code`,
 * exact match, with a nearest-code hint) and amount ≤ that fee (`amount_exceeds_fee`).
 */
export const waiveFee = defineTool({
  name: "waive_fee",
  label: "Waive fee",
  description: "Waives all or part of a fee on an open invoice. It cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  argsSchema: z
    .object({
      invoiceId: recordId("Invoice"),
      feeCode: z
        .string({ error: (i) => (i.input === undefined || i.input === null ? "Fee is required" : "Fee must be text") })
        .min(1, "Fee is required")
        .max(64, "Fee must be at most 64 characters"),
      amount: moneySchema,
    })
    .strict(),
  fields: [
    { name: "invoiceId", label: "Invoice", kind: "invoice_id" },
    { name: "feeCode", label: "Fee", kind: "fee_code" },
    { name: "amount", label: "Amount", kind: "money" },
  ],
  target: (args, desk) => targetIfExists(desk, "invoice", args.invoiceId),
  amount: (args) => args.amount,
  checkBounds: (args, ctx) => {
    const { issues, invoice } = checkInvoiceMoney(args, ctx, "Waiver");
    if (!invoice) return issues;
    const fee = invoice.fees.find((f) => f.code === args.feeCode);
    if (!fee) {
      const hint = nearest(args.feeCode, invoice.fees.map((f) => f.code));
      const known = invoice.fees.map((f) => f.code);
      const extra: ToolIssue = {
        code: "unknown_fee_code",
        severity: "error",
        path: "feeCode",
        message:
          `Invoice ${invoice.id} has no fee ${JSON.stringify(args.feeCode)}` +
          (hint ? ` — did you mean ${hint.id}?` : known.length ? ` (its fees: ${known.join(", ")})` : " (it has no fees)"),
        details: { invoiceId: invoice.id, feeCode: args.feeCode, fees: known, ...(hint ? { suggestion: hint.id } : {}) },
      };
      return [...issues, extra];
    }
    if (args.amount.currency === fee.amount.currency && args.amount.minor > fee.amount.minor) {
      issues.push({
        code: "amount_exceeds_fee",
        severity: "error",
        path: "amount.minor",
        message: `Waiver of ${formatMoney(args.amount)} is more than the ${fee.code} fee on invoice ${invoice.id} (${formatMoney(fee.amount)})`,
        details: { amount: args.amount, fee: fee.amount, feeCode: fee.code },
      });
    }
    return issues;
  },
});

/** Parsed arguments of `waive_fee`. */
export type WaiveFeeArgs = z.infer<typeof waiveFee.argsSchema>;
