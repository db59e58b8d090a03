import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalJson } from "./canonical-json";

describe("canonicalJson (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    // Compare the text: JSON.parse + Object.keys would move the integer-like key "1" first.
    const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
    const text = canonicalJson(input);
    const positions = order.map((k) => text.indexOf(JSON.stringify(k) + ":"));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("serialises numbers in ECMAScript shortest form", () => {
    expect(canonicalJson([1e21, 1e-7, 0.000001, -0, 333333333.33333329, 1e30, 4.5, 2e-3])).toBe(
      "[1e+21,1e-7,0.000001,0,333333333.3333333,1e+30,4.5,0.002]",
    );
  });

  it("has no whitespace and escapes strings like JSON.stringify", () => {
    expect(canonicalJson({ b: [true, null, "a\n\"é"], a: {} })).toBe('{"a":{},"b":[true,null,"a\\n\\"é"]}');
  });

  it("rejects NaN, Infinity, lone surrogates and cycles", () => {
    expect(() => canonicalJson({ x: NaN })).toThrow();
    expect(() => canonicalJson([Infinity])).toThrow();
    expect(() => canonicalJson("\ud800")).toThrow();
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => canonicalJson(cyc)).toThrow();
  });

  it("is valid JSON of the same value, whatever the key order", () => {
    const shuffle = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(shuffle);
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffle(x)]));
      return v;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(canonicalJson(shuffle(v))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
