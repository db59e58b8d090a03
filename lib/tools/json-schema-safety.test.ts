import { describe, expect, it } from "vitest";
import { toolNames } from "./builtin-tools";
import { assertSafeSchema, draftsFromMcpTools, draftsFromOpenAiFunctions, matchesPattern, toolFromSpec } from "./json-schema-tool";

const builtIn = new Set<string>(toolNames);
const objectWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });
const importOne = (name: string, inputSchema: unknown) => draftsFromMcpTools([{ name, inputSchema }], "test", builtIn);

describe("imported schemas are safe to validate with", () => {
  it('"(a+)+$" runs on a linear-time engine: 50,000 characters are judged, and matching follows JSON Schema (a search)', () => {
    const { drafts, problems } = importOne("tag_shipment", objectWith({ tag: { type: "string", pattern: "(a+)+$" }, code: { type: "string", pattern: "^[A-Z]{3}$" } }));
    expect(problems).toEqual([]);
    const s = toolFromSpec({ ...drafts[0], catalogVersion: 1 }).argsSchema;
    // with a backtracking engine 28 characters took seconds (growing exponentially); RE2 answers in linear time
    const hostile = "a".repeat(50_000) + "!";
    const r = s.safeParse({ tag: hostile, code: "ABC" });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => `${i.code}@${i.path.join(".")}`)).toEqual(["invalid_format@tag"]);
    expect(s.safeParse({ tag: "xxaaa", code: "ABC" }).success).toBe(true); // unanchored search
    expect(s.safeParse({ tag: "aaa", code: "abc" }).success).toBe(false);
    expect(matchesPattern("^[A-Z]{3}$", "ABC")).toBe(true);
  });

  it("patterns RE2 cannot run (back-references, look-around) are refused at import, with the reason", () => {
    for (const pattern of ["(a)\\1", "foo(?=bar)", "(?<!x)y"]) {
      const { drafts, problems } = importOne("tag_shipment", objectWith({ tag: { type: "string", pattern } }));
      expect(drafts, pattern).toEqual([]);
      expect(problems[0].reason).toMatch(/pattern .* is not supported/);
    }
  });

  it("a pattern where it would not be checked, and patternProperties, are refused", () => {
    expect(() => assertSafeSchema(objectWith({ x: { anyOf: [{ type: "string", pattern: "^a" }, { type: "number" }] } }))).toThrow(/checked only on a property/);
    expect(() => assertSafeSchema(objectWith({}, { patternProperties: { "^(a+)+$": { type: "string" } } }))).toThrow(/patternProperties/);
    // a property NAMED "pattern" is a property, not the keyword
    expect(() => assertSafeSchema(objectWith({ pattern: { type: "string" } }))).not.toThrow();
    expect(() => assertSafeSchema(objectWith({ list: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } } }))).not.toThrow();
  });

  it("$ref cycles are refused; a $ref outside the schema or to nothing is refused; a plain $ref is fine", () => {
    const self = { type: "object", properties: { child: { $ref: "#" } } };
    expect(importOne("tree_tool", self).problems[0].reason).toMatch(/cycle/);
    const viaDefs = { type: "object", properties: { node: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } } };
    expect(importOne("tree_tool", viaDefs).problems[0].reason).toMatch(/cycle/);
    const mutual = { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } }, b: { type: "object", properties: { a: { $ref: "#/$defs/a" } } } } };
    expect(importOne("tree_tool", mutual).problems[0].reason).toMatch(/cycle/);
    expect(() => assertSafeSchema({ type: "object", properties: { a: { $ref: "https://evil.example/schema.json" } } })).toThrow(/inside the schema/);
    expect(() => assertSafeSchema({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })).toThrow(/points to nothing/);
    expect(() => assertSafeSchema({ type: "object", properties: { a: { $ref: "#/$defs/s" }, b: { $ref: "#/$defs/s" } }, $defs: { s: { type: "string" } } })).not.toThrow();
  });
});

describe("imported tool names", () => {
  it("refuses names every JavaScript object has, in any letter case", () => {
    for (const name of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "Constructor", "valueOf"]) {
      const { drafts, problems } = importOne(name, objectWith({}));
      expect(drafts, name).toEqual([]);
      expect(problems[0].reason, name).toMatch(/JavaScript object/);
    }
  });

  it("refuses a built-in tool's name in another letter case, and a name listed twice", () => {
    const r = importOne("Issue_Refund", objectWith({}));
    expect(r.problems[0].reason).toBe('"Issue_Refund" differs from the built-in tool "issue_refund" only in letter case');
    const twice = draftsFromOpenAiFunctions([{ name: "book_slot" }, { name: "Book_Slot" }], "test", builtIn);
    expect(twice.drafts.map((d) => d.name)).toEqual(["book_slot"]);
    expect(twice.problems[0].reason).toMatch(/listed twice/);
  });
});
