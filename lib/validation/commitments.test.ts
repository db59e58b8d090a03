import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { findAmounts, findCommitments, findDates, splitSentences } from "./commitments";

const NOW = new Date("2026-04-01T09:00:00Z");
const kinds = (text: string) => findCommitments(text, NOW).map((c) => (c.kind === "money" ? `money:${c.amounts.map((a) => a.minor).join("+")}` : `date:${c.date}`));

describe("findAmounts", () => {
  it("reads common money notations into minor units", () => {
    expect(findAmounts("$1,489.00")).toEqual([{ phrase: "$1,489.00", minor: 148900, currency: "USD" }]);
    expect(findAmounts("USD 1489")).toEqual([{ phrase: "USD 1489", minor: 148900, currency: "USD" }]);
    expect(findAmounts("1,489.50 EUR and £20")).toEqual([
      { phrase: "1,489.50 EUR", minor: 148950, currency: "EUR" },
      { phrase: "£20", minor: 2000, currency: "GBP" },
    ]);
    expect(findAmounts("250 kr")).toEqual([{ phrase: "250 kr", minor: 25000 }]);
    expect(findAmounts("ticket 74991 on April 6")).toEqual([]);
  });
});

describe("findDates", () => {
  it("reads ISO dates, month-day, day-month and tomorrow", () => {
    const d = (t: string) => findDates(t, "2026-04-01").map((x) => x.date);
    expect(d("2026-04-06")).toEqual(["2026-04-06"]);
    expect(d("April 6")).toEqual(["2026-04-06"]);
    expect(d("Apr. 6th, 2027")).toEqual(["2027-04-06"]);
    expect(d("6 April")).toEqual(["2026-04-06"]);
    expect(d("the 6th of April")).toEqual(["2026-04-06"]);
    expect(d("tomorrow")).toEqual(["2026-04-02"]);
    expect(d("February 30")).toEqual([]);
    expect(d("you may 2 times")).toEqual([]); // "may" is a verb; only "May" is a month
  });
  it("rolls a month-day without year into next year when it is long past", () => {
    expect(findDates("January 3", "2026-12-20").map((x) => x.date)).toEqual(["2027-01-03"]);
    expect(findDates("March 30", "2026-04-01").map((x) => x.date)).toEqual(["2026-03-30"]);
  });
});

describe("findCommitments", () => {
  it("finds money promises and their amounts", () => {
    expect(kinds("We will refund $1,489.00 to your card.")).toEqual(["money:148900"]);
    expect(kinds("We will credit your account.")).toEqual(["money:"]);
    expect(kinds("You will be compensated for the delay.")).toEqual(["money:"]);
    expect(kinds("We'll reimburse the storage costs.")).toEqual(["money:"]);
    expect(kinds("We have waived the late fee.")).toEqual(["money:"]);
  });

  it("ignores negated clauses and non-promises", () => {
    expect(kinds("Unfortunately we cannot offer a refund.")).toEqual([]);
    expect(kinds("There is no compensation for weather delays.")).toEqual([]);
    expect(kinds("Please pay by credit card.")).toEqual([]);
    expect(kinds("We cannot refund the fee, but we will apply a credit of $50.")).toEqual(["money:5000"]);
  });

  it("finds delivery dates only in sentences about delivery, and not in the past", () => {
    expect(kinds("Your delivery will arrive on April 6.")).toEqual(["date:2026-04-06"]);
    expect(kinds("We rescheduled the shipment to 2026-04-09.")).toEqual(["date:2026-04-09"]);
    expect(kinds("It will be delivered tomorrow.")).toEqual(["date:2026-04-02"]);
    expect(kinds("Your invoice from April 6 is attached.")).toEqual([]);
    expect(kinds("The shipment was due on March 30.")).toEqual([]);
    expect(kinds("It could not be delivered on April 2, so we moved it to April 5.")).toEqual(["date:2026-04-05"]);
  });

  it("splits sentences without breaking amounts or abbreviations", () => {
    expect(splitSentences("We refund $1,489.00. Delivery is on Apr. 6. Thanks!")).toEqual(["We refund $1,489.00.", "Delivery is on Apr. 6.", "Thanks!"]);
  });

  it("never throws on any text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), (t) => void findCommitments(t, NOW)), { numRuns: 300 });
  });

  it("is fast on long adversarial text", () => {
    const t0 = Date.now();
    findCommitments("1,".repeat(5000) + " refund " + "9".repeat(5000) + " April ".repeat(2000), NOW);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
