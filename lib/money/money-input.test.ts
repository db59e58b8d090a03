import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { moneyInputIssue, parseMoneyInput, stripMoneyInput } from "./money-input";
import { minorToDecimal, type Currency } from "./money";

const minor = (t: string, c: Currency) => {
  const r = parseMoneyInput(t, c);
  return r.ok ? r.minor : r.problem;
};

describe("parseMoneyInput: by the currency's conventions (issue 14)", () => {
  it("a decimal comma is never 100× the amount", () => {
    expect(parseMoneyInput("14,89", "NOK")).toEqual({ ok: true, minor: 1489, display: "NOK\u00A014.89" });
    expect(minor("14,89", "USD")).toBe(1489); // a lone mark before two digits is a decimal mark in every currency
    expect(minor("14,89", "EUR")).toBe(1489);
    expect(minor("14.89", "SEK")).toBe(1489);
    expect(minor("14,8", "DKK")).toBe(1480);
  });

  it("groups thousands the currency's way, and with spaces or apostrophes anywhere", () => {
    expect(minor("1.234,50", "NOK")).toBe(123450);
    expect(minor("1 234,50", "NOK")).toBe(123450);
    expect(minor("1\u00A0234,50", "SEK")).toBe(123450);
    expect(minor("1.234.567", "DKK")).toBe(123456700);
    expect(minor("1,234.50", "USD")).toBe(123450);
    expect(minor("1,234", "USD")).toBe(123400);
    expect(minor("1.234", "NOK")).toBe(123400);
    expect(minor("1'234.50", "GBP")).toBe(123450);
    expect(minor("1489", "USD")).toBe(148900);
    expect(minor("NOK 14,89", "NOK")).toBe(1489);
    expect(minor("$14.89", "USD")).toBe(1489);
    expect(minor("14,89 kr", "NOK")).toBe(1489);
    expect(minor(",5", "EUR")).toBe(50);
  });

  it("refuses ambiguous and malformed input, each with its own message", () => {
    expect(minor("1,234", "NOK")).toBe("ambiguous");
    expect(minor("12.345", "USD")).toBe("ambiguous");
    expect(minor("1,234.50", "NOK")).toBe("wrong_decimal_mark");
    expect(minor("1.234,50", "USD")).toBe("wrong_decimal_mark");
    expect(minor("1,234,567", "NOK")).toBe("bad_grouping");
    expect(minor("12,34,567", "USD")).toBe("bad_grouping");
    expect(minor("12 34", "USD")).toBe("bad_grouping");
    expect(minor("abc", "USD")).toBe("not_a_number");
    expect(minor("12abc", "USD")).toBe("not_a_number");
    expect(minor("1e3", "USD")).toBe("exponent");
    expect(minor("12,3456", "NOK")).toBe("too_many_decimals");
    expect(minor("99999999999999999", "USD")).toBe("too_large");
    expect(minor("1000000000,01", "NOK")).toBe("too_large");
    expect(minor("0", "USD")).toBe("not_positive");
    expect(minor("0,00", "NOK")).toBe("not_positive");
    expect(minor("-5", "USD")).toBe("not_positive");
    expect(minor("", "USD")).toBe("required");
    expect(minor("€5", "USD")).toBe("not_a_number");
    const messages = ["abc", "1e3", "12.345", "99999999999999999", "0", "-5", ""].map((t) => (parseMoneyInput(t, "USD") as { message: string }).message);
    expect(new Set(messages).size).toBe(messages.length);
    expect(messages.every((m) => !/required/i.test(m) || m === "Enter an amount")).toBe(true);
    expect((parseMoneyInput("1,234", "NOK") as { message: string }).message).toBe('"1,234" is ambiguous in NOK: for 1.234 (thousands) write 1.234; for 1 and a fraction use at most 2 decimals (1,23)');
    // a leading zero is never a thousand: plainly too many decimals, said in words a person reads
    expect(parseMoneyInput("0.001", "USD")).toEqual({ ok: false, problem: "too_many_decimals", message: 'USD has 2 decimals; "0.001" has 3. The smallest amount is $0.01' });
    expect((parseMoneyInput("12.345", "USD") as { message: string }).message).toBe('"12.345" is ambiguous in USD: for 12,345 (thousands) write 12,345; for 12 and a fraction use at most 2 decimals (12.34)');
    expect(parseMoneyInput("0", "USD", { allowZero: true })).toEqual({ ok: true, minor: 0, display: "$0.00" });
  });

  it("round-trips every amount written the currency's way, with or without grouping (fast-check)", () => {
    const currencies: Currency[] = ["USD", "EUR", "GBP", "NOK", "SEK", "DKK"];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), fc.constantFrom(...currencies), fc.boolean(), (m, c, grouped) => {
        const plain = minorToDecimal(m, c); // "1234.50"
        const [whole, frac] = plain.split(".");
        const comma = ["EUR", "NOK", "SEK", "DKK"].includes(c);
        const g = grouped ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, comma ? "." : ",") : whole;
        expect(minor(`${g}${comma ? "," : "."}${frac}`, c)).toBe(m);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws, and anything it accepts is a positive whole number of minor units within the limit", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.constantFrom<Currency>("USD", "NOK"), (t, c) => {
        const r = parseMoneyInput(t, c);
        if (r.ok) expect(Number.isSafeInteger(r.minor) && r.minor > 0 && r.minor <= 100_000_000_000).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the form's money value", () => {
  it("names the typed text's problem and strips the text before sending", () => {
    expect(moneyInputIssue({ minor: Number.NaN, currency: "NOK", input: "1,234" })).toMatch(/ambiguous/);
    expect(moneyInputIssue({ minor: 1489, currency: "NOK", input: "14,89" })).toBeUndefined();
    expect(moneyInputIssue({ minor: 1489, currency: "NOK" })).toBeUndefined();
    expect(stripMoneyInput({ invoiceId: "in_1", amount: { minor: 1489, currency: "NOK", input: "14,89" } })).toEqual({ invoiceId: "in_1", amount: { minor: 1489, currency: "NOK" } });
  });
});
