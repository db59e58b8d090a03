import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { jsonLine } from "./json-line";

describe("jsonLine", () => {
  it("escapes the characters line splitters break at, so a reply with U+2028, U+2029 or U+0085 stays one line", () => {
    const value = { body: "Dear customer,\u2028we refunded\u2029the fee\u0085today" };
    const line = jsonLine(value);
    expect(line).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
    expect("a\u2028b".split(/\r\n|[\n\r\u2028\u2029\u0085]/)).toHaveLength(2); // what a standard splitter does to the raw text
    expect(line.split(/\r\n|[\n\r\u2028\u2029\u0085]/)).toHaveLength(1);
    expect(JSON.parse(line)).toEqual(value);
  });

  it("round-trips any JSON value as exactly one line", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const line = jsonLine(v);
        expect(line.split(/\r\n|[\n\r\u2028\u2029\u0085\v\f\x1c\x1d\x1e]/)).toHaveLength(1);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});
