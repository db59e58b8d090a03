import { describe, expect, it } from "vitest";
import { planFormSchema } from "./form-schema";

const refundStep = (amount: Record<string, unknown>) => ({
  steps: [{ key: "k1", id: "s1", tool: "issue_refund", args: { invoiceId: "in_74119", amount, reason: "Goodwill" } }],
});
const messagesAt = (values: unknown) => {
  const r = planFormSchema.safeParse(values);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("plan form: money as typed (issue 14 case 2)", () => {
  it("reads a decimal comma as a decimal, not 100×", () => {
    expect(messagesAt(refundStep({ minor: 1489, currency: "USD", input: "14,89" }))).toEqual([]);
  });

  it("one specific message per problem, at the amount (never 'Amount is required' for typed text)", () => {
    const cases: [string, RegExp][] = [
      ["abc", /in digits/],
      ["1e3", /exponent/],
      ["12.345", /ambiguous/],
      ["99999999999999999", /more than the most/],
      ["0", /more than zero/],
      ["-5", /more than zero/],
    ];
    for (const [input, message] of cases) {
      const m = messagesAt(refundStep({ minor: Number.NaN, currency: "USD", input }));
      expect(m, input).toHaveLength(1);
      expect(m[0], input).toMatch(/^steps\.0\.args\.amount\.minor: /);
      expect(m[0], input).toMatch(message);
    }
  });

  it("a cleared amount is still missing", () => {
    expect(messagesAt(refundStep({ minor: undefined, currency: "USD" }))).toEqual(["steps.0.args.amount.minor: Amount is required"]);
  });
});
