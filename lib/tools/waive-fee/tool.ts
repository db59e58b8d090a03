import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type ScalePlanContext, defineBuiltinTool, usd, dollars, MODEL } from "../builtin-tool";
import { waiveFeeMeta } from "./meta";
import { cannotApply, lowerBalance } from "../../effects/state";
import { formatMoney, moneySchema } from "../../money/money";
import { nearest } from "../../text/confusables";
import type { ToolIssue } from "../types";
import { checkInvoiceMoney, recordId, targetIfExists } from "../shared";

/**
 * `waive_fee` — waives (part of) a fee on an invoice. Args `{invoiceId, feeCode: "LATE_FEE",
 * amount: {minor, currency}}`; effect irreversible, gate always approval.
 * Bounds (docs/design.md §1.4): everything a refund checks (invoice exists and is open, amount > 0,
 * same currency, ≤ open balance), plus the fee code exists on that invoice (`unknown_fee_code`,
 * exact match, with a nearest-code hint) and amount ≤ that fee (`amount_exceeds_fee`).
 */
export const waiveFee = defineBuiltinTool({
  ...waiveFeeMeta,
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
  target: (args, desk) => targetIfExists(desk, "invoice", args.invoiceId),
  amount: (args) => args.amount,
  outcomeEffect: (args) => ({ kind: "fee_waived", invoiceId: args.invoiceId, feeCode: args.feeCode, amount: args.amount }),
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
  issueCodes: {
    unknown_fee_code: { severity: "error", meaning: "The invoice has no fee with that code." },
    amount_exceeds_fee: { severity: "error", meaning: "A waiver larger than the fee." },
  },
  effectModel: {
    kind: "known",
    apply: (state, args) => {
    const amount = args.amount;
    const r = lowerBalance(state, args.invoiceId, amount, "waiver");
    if (!r.ok) return cannotApply(r.reason);
    const fee = r.invoice.fees.find((f) => f.code === args.feeCode);
    if (!fee) return cannotApply(`Invoice ${args.invoiceId} has no ${args.feeCode} fee left`);
    if (fee.amount.currency !== amount.currency || amount.minor > fee.amount.minor) {
      return cannotApply(`The waiver of ${formatMoney(amount)} is more than the ${args.feeCode} fee left (${formatMoney(fee.amount)})`);
    }
    const feeAfter = { minor: fee.amount.minor - amount.minor, currency: fee.amount.currency };
    const fees = r.invoice.fees.map((f) => (f.code === args.feeCode ? { ...f, amount: feeAfter } : f)).filter((f) => f.amount.minor > 0);
    return {
      ok: true,
      state: { ...state, invoices: { ...state.invoices, [args.invoiceId]: { ...r.invoice, openBalance: r.after, fees } } },
      changes: [
        { kind: "invoice_fee", invoiceId: args.invoiceId, feeCode: args.feeCode, before: fee.amount, after: feeAfter },
        { kind: "invoice_balance", invoiceId: args.invoiceId, before: r.invoice.openBalance, after: r.after },
      ],
    };
  },
  },
  seed: {
    example: () => ({ invoiceId: "in_74121", feeCode: "LATE_FEE", amount: usd(4500) }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "fee-74996",
          ticketId: "74996",
          scenario: "fee dispute",
          ageHours: 5,
          steps: [
            { id: "st_waive", tool: "waive_fee", args: { invoiceId: "in_74501", feeCode: "LATE_FEE", amount: usd(8900) }, provenance: { feeCode: { kind: "source", recordType: "invoice", recordId: "in_74501" } }, title: "Waive the late fee", evidence: [{ recordType: "invoice", recordId: "in_74501" }], risk: "The payment may in fact have been late", stopCondition: "The fee was already waived or paid" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74996", body: "You are right — the payment arrived on time. We have waived the late fee of $89.00." }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "storage-74999",
          ticketId: "74999",
          scenario: "fee dispute",
          ageHours: 6,
          steps: [
            { id: "st_waive", tool: "waive_fee", args: { invoiceId: "in_74701", feeCode: "STORAGE", amount: usd(24000) }, provenance: {}, title: "Waive the storage fee", evidence: [{ recordType: "invoice", recordId: "in_74701" }], risk: "The storage may not have been caused by the closure", stopCondition: "The fee was already paid" },
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "74999", note: "Storage accrued during the terminal closure; waived per policy." }, provenance: {} },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => {
      const withFee = c.invoices.filter((i) => i.status === "open" && i.openBalance.minor > 0 && i.fees.length > 0 && i.fees[0].amount.minor <= i.openBalance.minor);
      if (!withFee.length) return null;
      const i = c.pick(withFee);
      const fee = i.fees[0];
      return [
        { id: "st_waive", tool: "waive_fee", args: { invoiceId: i.id, feeCode: fee.code, amount: fee.amount }, provenance: { feeCode: { kind: "source", recordType: "invoice", recordId: i.id } }, rationale: "The fee was charged in error." },
        c.reply(`You are right. We have waived the ${fee.code.toLowerCase().replace(/_/g, " ")} of ${dollars(fee.amount.minor)}.`),
      ];
    },
  },
});

/** Parsed arguments of `waive_fee`. */
export type WaiveFeeArgs = z.infer<typeof waiveFee.argsSchema>;
