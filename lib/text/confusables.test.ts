import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { levenshtein, nearest, skeleton } from "./confusables";

describe("skeleton", () => {
  it("folds case, spacing, width, invisible characters and Cyrillic/Greek lookalikes", () => {
    const real = skeleton("in_74119");
    for (const fake of [
      "in_74119 ",
      " in_74119",
      "IN_74119",
      "іn_74119", // Cyrillic і
      "in_7411９", // fullwidth 9
      "in_741\u200b19", // zero-width space
      "ιn_74119", // Greek iota
      "in＿74119", // fullwidth low line
    ]) {
      expect(skeleton(fake), JSON.stringify(fake)).toBe(real);
    }
    expect(skeleton("acc_nоrdkapp")).toBe(skeleton("acc_nordkapp")); // Cyrillic о
    expect(skeleton("sh_5521")).not.toBe(skeleton("sh_5522"));
  });
});

describe("levenshtein", () => {
  it("counts edits", () => {
    expect(levenshtein("", "")).toBe(0);
    expect(levenshtein("abc", "")).toBe(3);
    expect(levenshtein("kitten", "sitting")).toBe(3);
    expect(levenshtein("in_74119", "in_74118")).toBe(1);
    expect(levenshtein("😀a", "a")).toBe(1); // by code point
  });

  it("is a metric: symmetric, zero iff equal, triangle inequality", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b, c) => {
        expect(levenshtein(a, b)).toBe(levenshtein(b, a));
        expect(levenshtein(a, b) === 0).toBe(a === b);
        expect(levenshtein(a, c)).toBeLessThanOrEqual(levenshtein(a, b) + levenshtein(b, c));
      }),
      { numRuns: 200 },
    );
  });
});

describe("nearest", () => {
  const ids = ["in_74119", "in_74120", "in_74121"];
  it("names the lookalike original", () => {
    expect(nearest("іn_74119", ids)).toEqual({ id: "in_74119", distance: 0, lookalike: true });
    expect(nearest("in_74119 ", ids)).toEqual({ id: "in_74119", distance: 0, lookalike: true });
  });
  it("suggests close typos, not lookalikes", () => {
    expect(nearest("in_74118", ids)).toMatchObject({ id: "in_74119", lookalike: false });
  });
  it("returns null for exact matches and for nothing close", () => {
    expect(nearest("in_74119", ids)).toBeNull();
    expect(nearest("completely-different", ids)).toBeNull();
    expect(nearest("x", [])).toBeNull();
    expect(nearest("a".repeat(1000), ids)).toBeNull();
  });
  it("never throws", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => void nearest(s, ids)), { numRuns: 200 });
  });
});

describe("normalizeForScan (the promise scan's reading of text)", () => {
  it("drops format and invisible characters, folds compatibility forms, accents and look-alike letters, keeps digits", async () => {
    const { normalizeForScan } = await import("./confusables");
    expect(normalizeForScan("re\u00ADfund")).toBe("refund");
    expect(normalizeForScan("\uFEFFre\u200B\u200C\u200D\u2060fund\u202E")).toBe("refund");
    expect(normalizeForScan("ｒｅｆｕｎｄ ＄150.00")).toBe("refund $150.00");
    expect(normalizeForScan("rеfünd")).toBe("refund"); // Cyrillic е, ü
    expect(normalizeForScan("RЕFUND")).toBe("REFUND"); // Cyrillic Е keeps its case
    expect(normalizeForScan("in_74119 on 2026-04-06 for $1,489.00")).toBe("in_74119 on 2026-04-06 for $1,489.00");
    expect(normalizeForScan("a\u00A0b")).toBe("a b");
  });
});
