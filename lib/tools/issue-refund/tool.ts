import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type ScalePlanContext, defineBuiltinTool, usd, dollars, MODEL } from "../builtin-tool";
import { issueRefundMeta } from "./meta";
import { cannotApply, lowerBalance } from "../../effects/state";
import { moneySchema } from "../../money/money";
import { checkInvoiceMoney, recordId, requiredText, targetIfExists } from "../shared";

/**
 * `issue_refund` — refunds money against an invoice. Args `{invoiceId: "in_74119",
 * amount: {minor, currency}, reason}`; effect irreversible, gate always approval; authoring
 * restricted by grants (docs/design.md §1.7). Bounds (docs/design.md §1.4): invoice exists, amount > 0,
 * invoice open (not paid/void), same currency, amount ≤ open balance.
 */
export const issueRefund = defineBuiltinTool({
  ...issueRefundMeta,
  argsSchema: z
    .object({
      invoiceId: recordId("Invoice"),
      amount: moneySchema,
      reason: requiredText("Reason", 1000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "invoice", args.invoiceId),
  amount: (args) => args.amount,
  checkBounds: (args, ctx) => checkInvoiceMoney(args, ctx, "Refund").issues,
  issueCodes: {},
  effectModel: {
    kind: "known",
    apply: (state, args) => {
    const r = lowerBalance(state, args.invoiceId, args.amount, "refund");
    if (!r.ok) return cannotApply(r.reason);
    return {
      ok: true,
      state: { ...state, invoices: { ...state.invoices, [args.invoiceId]: { ...r.invoice, openBalance: r.after } } },
      changes: [{ kind: "invoice_balance", invoiceId: args.invoiceId, before: r.invoice.openBalance, after: r.after }],
    };
  },
  },
  seed: {
    example: () => ({ invoiceId: "in_74121", amount: usd(1000), reason: "Damaged pallet" }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "damaged-74992",
          ticketId: "74992",
          scenario: "damaged goods",
          ageHours: 2,
          steps: [
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "74992", note: "Customer reports 2 of 6 pallets with broken cold seals; photos on file." }, provenance: { note: MODEL } },
            { id: "st_refund", tool: "issue_refund", args: { invoiceId: "in_74401", amount: usd(106000), reason: "Damaged goods: 2 of 6 pallets" }, provenance: { invoiceId: { kind: "user_literal" }, amount: { kind: "computed", formula: "318000 × 2/6" }, reason: MODEL }, title: "Refund the two damaged pallets", evidence: [{ recordType: "invoice", recordId: "in_74401" }], risk: "Money leaves the company; the damage report could be wrong", stopCondition: "The invoice was paid or refunded meanwhile" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74992", body: "We are sorry about the damaged pallets. We have refunded $1,060.00 for the two affected pallets." }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "dup-74993",
          ticketId: "74993",
          scenario: "duplicate charge",
          ageHours: 3,
          steps: [
            { id: "st_refund", tool: "issue_refund", args: { invoiceId: "in_74802", amount: usd(419900), reason: "Duplicate of in_74801" }, provenance: { invoiceId: { kind: "user_literal" }, amount: { kind: "source", recordType: "invoice", recordId: "in_74802" } }, title: "Refund the duplicate charge", evidence: [{ recordType: "invoice", recordId: "in_74802" }], risk: "Refunding the original instead of the duplicate", stopCondition: "The duplicate was already credited" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74993", body: "You were charged twice for the same consignment. We have refunded the duplicate charge of $4,199.00." }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "dup-75000",
          ticketId: "75000",
          scenario: "duplicate charge",
          ageHours: 5,
          steps: [
            { id: "st_refund", tool: "issue_refund", args: { invoiceId: "in_74311", amount: usd(240000), reason: "Duplicate of in_74310" }, provenance: {}, title: "Refund the duplicate invoice", evidence: [{ recordType: "invoice", recordId: "in_74311" }], risk: "Refunding the wrong one of the two invoices", stopCondition: "The duplicate was already credited" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "75000", body: "The duplicate invoice has been refunded in full ($2,400.00)." }, provenance: {} },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => {
      const open = c.invoices.filter((i) => i.status === "open" && i.openBalance.minor > 0);
      if (!open.length) return null;
      const i = c.pick(open);
      const amount = Math.max(100, Math.min(i.openBalance.minor, c.between(10, 3000) * 100));
      return [
        c.note(`Refund agreed for ${i.id}.`),
        { id: "st_refund", tool: "issue_refund", args: { invoiceId: i.id, amount: usd(amount), reason: "Damaged goods on delivery" }, provenance: { invoiceId: { kind: "source", recordType: "invoice", recordId: i.id } }, rationale: "The contract covers damage in transit." },
        c.reply(`We are sorry about the damaged goods. We have refunded ${dollars(amount)} on invoice ${i.id}.`),
      ];
    },
  },
});

/** Parsed arguments of `issue_refund`. */
export type IssueRefundArgs = z.infer<typeof issueRefund.argsSchema>;
