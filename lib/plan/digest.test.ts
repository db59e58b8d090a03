import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { digest, stepChanged, tryDigest } from "./digest";
import { canonicalJson } from "./canonical-json";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Deterministic PRNG so fast-check controls the shuffle through one integer seed. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rebuilds every object with its keys in a random order (values unchanged). */
function shuffleKeys(v: Json, rnd: () => number): Json {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, rnd));
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  const out: { [k: string]: Json } = {};
  for (const k of keys) Object.defineProperty(out, k, { value: shuffleKeys(v[k], rnd), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every path (list of keys/indices) to a value inside `v`, including `v` itself ([]). */
function paths(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v !== null && typeof v === "object") for (const k of Object.keys(v)) out.push(...paths(v[k], [...prefix, k]));
  return out;
}

function setAt(v: Json, path: (string | number)[], value: Json): Json {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? setAt(x, rest, value) : x));
  const obj = v as { [k: string]: Json };
  const out: { [k: string]: Json } = {};
  for (const k of Object.keys(obj))
    Object.defineProperty(out, k, { value: k === head ? setAt(obj[k], rest, value) : obj[k], enumerable: true, writable: true, configurable: true });
  return out;
}

function getAt(v: Json, path: (string | number)[]): Json {
  return path.reduce<Json>((acc, k) => (acc as Record<string, Json>)[k as string], v);
}

describe("digest", () => {
  it("is the lowercase hex SHA-256 of the canonical JSON of {tool, args}", () => {
    const expected = createHash("sha256").update('{"args":{"a":1,"b":[2,"x"]},"tool":"t"}').digest("hex");
    expect(digest({ tool: "t", args: { b: [2, "x"], a: 1 } })).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores everything but tool and args", () => {
    const base = { tool: "t", args: { a: 1 } };
    const withExtras = { ...base, id: "s1", provenance: { a: { kind: "model" } }, author: { kind: "model" } };
    expect(digest(withExtras)).toBe(digest(base));
  });

  it("separates numbers from strings and big integers sent as strings", () => {
    const d = (minor: unknown) => digest({ tool: "issue_refund", args: { amount: { minor, currency: "USD" } } });
    expect(d(1)).not.toBe(d("1"));
    expect(d("9007199254740993")).not.toBe(d("9007199254740992"));
    expect(d("9007199254740993")).not.toBe(d(9007199254740992));
  });

  it("changes with the tool name", () => {
    expect(digest({ tool: "a", args: {} })).not.toBe(digest({ tool: "b", args: {} }));
  });

  it("throws for non-JSON args; tryDigest returns null", () => {
    expect(() => digest({ tool: "t", args: { x: NaN } })).toThrow();
    expect(tryDigest({ tool: "t", args: { x: Infinity } })).toBeNull();
  });

  it("stepChanged: same tool + same digest is unchanged, whatever the key order", () => {
    expect(stepChanged({ tool: "t", args: { a: 1, b: 2 } }, { tool: "t", args: { b: 2, a: 1 } })).toBe(false);
    expect(stepChanged({ tool: "t", args: { a: 1 } }, { tool: "u", args: { a: 1 } })).toBe(true);
    expect(stepChanged({ tool: "t", args: { a: { b: [1] } } }, { tool: "t", args: { a: { b: [2] } } })).toBe(true);
    expect(stepChanged({ tool: "t", args: { a: NaN } }, { tool: "t", args: { a: NaN } })).toBe(true);
  });

  it("property: any permutation of object keys at any depth keeps the digest", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer(), (args, seed) => {
        const shuffled = shuffleKeys(args as Json, mulberry32(seed));
        expect(digest({ tool: "t", args: shuffled })).toBe(digest({ tool: "t", args }));
      }),
      { numRuns: 300 },
    );
  });

  it("property: any single value change at any depth changes the digest", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
        fc.nat(),
        fc.jsonValue(),
        (args, pick, replacement) => {
          const all = paths(args as Json).slice(1); // not the root: args must stay an object
          const path = all[pick % all.length];
          const before = getAt(args as Json, path);
          // -0 and 0 are the same JSON number (RFC 8785), so "a change" means a different canonical form.
          fc.pre(canonicalJson(before) !== canonicalJson(replacement));
          const changed = setAt(args as Json, path, replacement as Json);
          expect(digest({ tool: "t", args: changed })).not.toBe(digest({ tool: "t", args }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: adding or removing a key changes the digest", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (args, key, value) => {
        fc.pre(!Object.prototype.hasOwnProperty.call(args, key));
        const added = { ...args };
        Object.defineProperty(added, key, { value, enumerable: true, writable: true, configurable: true });
        expect(digest({ tool: "t", args: added })).not.toBe(digest({ tool: "t", args }));
      }),
      { numRuns: 200 },
    );
  });
});
