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
    expect(kinds("Your order is rebooked with the carrier for 2026-04-12.")).toEqual(["date:2026-04-12"]);
    expect(kinds("We re-booked it for April 7.")).toEqual(["date:2026-04-07"]);
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

describe("text a reviewer cannot see through, and negations that do not negate (issue 14)", () => {
  const FLAGGED = [
    "we will refund you $150.00 for the missed delivery",
    "We will credit your account with $20.00 today.",
    "You will be compensated for the delay.",
    "Your delivery will arrive on April 6.",
  ];

  it("the issue's sentences: a soft hyphen inside 'refund' and 'with no questions asked' stay promises", () => {
    expect(kinds("we will re\u00ADfund you $150.00 for the missed delivery")).toEqual(["money:15000"]);
    expect(kinds("we will refund you $150.00 with no questions asked")).toEqual(["money:15000"]);
    expect(kinds("we will refund you $150.00 for the missed delivery")).toEqual(["money:15000"]);
    expect(kinds("we will not refund you")).toEqual([]);
  });

  it("zero-width, format, compatibility, accented and look-alike characters change nothing", () => {
    for (const t of [
      "we will re\u200Bfund you $150.00", // zero-width space
      "we will re\u200Dfu\u200Cnd you $150.00", // ZWJ, ZWNJ
      "we will re\u2060fund you $150.00", // word joiner
      "\uFEFFwe will refund you $150.00", // BOM
      "we will re\u202Efund\u202C you $150.00", // bidi override
      "we will ｒｅｆｕｎｄ you ＄150.00", // fullwidth
      "we will rеfund you $150.00", // Cyrillic е
      "we will rеfυnd you $150.00", // Cyrillic е, Greek υ
      "we will REFUND you $150.00",
      "we will refünd you $150.00", // combining-free accent
      "we will refu\u0308nd you $150.00", // combining diaeresis
      "we will refund you $1\u200B50.00", // inside the amount
      "we\u00A0will\u00A0refund you $150.00", // no-break spaces
    ]) {
      expect(kinds(t), JSON.stringify(t)).toEqual(["money:15000"]);
    }
  });

  it("negation by clause: only a negation of the promise itself drops it", () => {
    expect(kinds("We will refund $150.00, no questions asked.")).toEqual(["money:15000"]);
    expect(kinds("We will refund $150.00 at no extra cost to you.")).toEqual(["money:15000"]);
    expect(kinds("We will refund $150.00 without delay.")).toEqual(["money:15000"]);
    expect(kinds("We will refund $150.00 no later than Friday.")).toEqual(["money:15000"]);
    expect(kinds("Not only will we refund $150.00 we will also waive the fee.")).toEqual(["money:15000"]);
    expect(kinds("If we cannot deliver we will refund you $150.00.")).toEqual(["money:15000"]);
    expect(kinds("We will refund what we can't recover.")).toEqual(["money:"]);
    expect(kinds("We won't refund the fee.")).toEqual([]);
    expect(kinds("We are unable to refund the fee.")).toEqual([]);
    expect(kinds("A refund is not possible for this order.")).toEqual([]);
    expect(kinds("Refunds aren't available for weather delays.")).toEqual([]);
    expect(kinds("You won't get a refund.")).toEqual([]);
    expect(kinds("No refund is due.")).toEqual([]);
    expect(kinds("We wouldn't normally do this, but we will refund $150.00.")).toEqual(["money:15000"]);
  });

  it("inserting any invisible or format character anywhere in a flagged sentence keeps it flagged (fast-check)", () => {
    const formatChars = [0xad, 0x600, 0x61c, 0x6dd, 0x70f, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e, 0x2060, 0x2061, 0x2064, 0x2066, 0x2069, 0xfeff, 0xfff9, 0xfffb, 0x110bd, 0xe0001, 0xe0041, 0x34f, 0x115f, 0x3164, 0xfe0f, 0xffa0];
    const invisible = fc.oneof(fc.constantFrom(...formatChars), fc.integer({ min: 0xe0020, max: 0xe007f }), fc.integer({ min: 0xfe00, max: 0xfe0f })).map((c) => String.fromCodePoint(c));
    fc.assert(
      fc.property(fc.constantFrom(...FLAGGED), fc.array(fc.tuple(fc.nat(), invisible), { minLength: 1, maxLength: 6 }), (sentence, inserts) => {
        const expected = kinds(sentence);
        const chars = Array.from(sentence);
        for (const [at, ch] of inserts) chars.splice(at % (chars.length + 1), 0, ch);
        // still flagged for everything it said; a bidi override may make the displayed reading promise more
        expect(kinds(chars.join(""))).toEqual(expect.arrayContaining(expected));
      }),
      { numRuns: 500 },
    );
  });

  it("swapping letters for their Cyrillic/Greek look-alikes keeps a flagged sentence flagged (fast-check)", () => {
    const LOOK: Record<string, string[]> = { a: ["а", "α"], e: ["е"], o: ["о", "ο"], p: ["р", "ρ"], c: ["с"], y: ["у"], x: ["х"], i: ["і"], u: ["υ"], k: ["к"] };
    fc.assert(
      fc.property(fc.constantFrom(...FLAGGED), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (sentence, picks) => {
        const expected = kinds(sentence);
        const chars = Array.from(sentence);
        for (const p of picks) {
          const i = p % chars.length;
          const alts = LOOK[chars[i]];
          if (alts) chars[i] = alts[p % alts.length];
        }
        expect(kinds(chars.join(""))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
