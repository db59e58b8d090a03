import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type ScalePlanContext, defineBuiltinTool, usd, dollars, MODEL } from "../builtin-tool";
import { applyCreditMeta } from "./meta";
import { ownIn, cannotApply } from "../../effects/state";
import { moneySchema } from "../../money/money";
import { checkPositive, recordId, requiredText, targetIfExists, unknownIdIssue } from "../shared";
import { findRecord } from "../../desk/lookup";

/**
 * `apply_credit` — puts a credit on a customer account. Args `{accountId: "acc_nordkapp",
 * amount: {minor, currency}, memo}`; effect irreversible, gate always approval.
 * Bounds (docs/design.md §1.4): the account exists (`unknown_id`), amount > 0 (`amount_not_positive`).
 */
export const applyCredit = defineBuiltinTool({
  ...applyCreditMeta,
  argsSchema: z
    .object({
      accountId: recordId("Account"),
      amount: moneySchema,
      memo: requiredText("Memo", 1000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "account", args.accountId),
  amount: (args) => args.amount,
  checkBounds: (args, ctx) => [
    ...(findRecord(ctx.desk, "account", args.accountId) ? [] : [unknownIdIssue(ctx.desk, "account", "accountId", args.accountId)]),
    ...checkPositive(args.amount, "Credit"),
  ],
  issueCodes: {},
  effectModel: {
    kind: "known",
    apply: (state, args) => {
    const amount = args.amount;
    if (amount.minor <= 0) return cannotApply("The credit is not more than zero");
    const key = `${args.accountId} ${amount.currency}`;
    const before = ownIn(state.credit, key) ?? { minor: 0, currency: amount.currency };
    const after = { minor: before.minor + amount.minor, currency: amount.currency };
    return {
      ok: true,
      state: { ...state, credit: { ...state.credit, [key]: after } },
      changes: [{ kind: "account_credit", accountId: args.accountId, before, after }],
    };
  },
  },
  seed: {
    example: () => ({ accountId: "acc_nordkapp", amount: usd(1000), memo: "Goodwill" }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "credit-74997",
          ticketId: "74997",
          scenario: "late delivery",
          ageHours: 2,
          steps: [
            { id: "st_credit", tool: "apply_credit", args: { accountId: "acc_baltic", amount: usd(25000), memo: "Service credit: reefer delivery sh_5540 two days late" }, provenance: { amount: MODEL }, title: "Service credit for the late reefer delivery", evidence: [{ recordType: "account", recordId: "acc_baltic" }], risk: "Credit beyond the contract's late-delivery terms", stopCondition: "A credit for this delivery already exists" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74997", body: "We apologise for the late delivery. A service credit of $250.00 has been applied to your account." }, provenance: { body: MODEL } },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => {
      const amount = c.between(5, 1500) * 100;
      return [
        { id: "st_credit", tool: "apply_credit", args: { accountId: c.accountId, amount: usd(amount), memo: "Service credit for the delay" }, provenance: { amount: { kind: "computed", formula: "contract late-delivery credit" } }, rationale: "The contract grants a credit for late delivery." },
        c.reply(`We apologise for the delay. A service credit of ${dollars(amount)} has been applied to your account.`),
      ];
    },
  },
});

/** Parsed arguments of `apply_credit`. */
export type ApplyCreditArgs = z.infer<typeof applyCredit.argsSchema>;
