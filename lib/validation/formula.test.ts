import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceDesk, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { evaluateFormula, formulaInputs, rational, roundRational, snapshotResolver, type Rational } from "./formula";

const value = (formula: string, resolve = snapshotResolver(referenceDesk(REFERENCE_NOW))) => {
  const r = evaluateFormula(formula, resolve);
  if (!r.ok) throw new Error(`${formula}: ${r.problem.message}`);
  return r.value;
};
const problem = (formula: string) => {
  const r = evaluateFormula(formula, snapshotResolver(referenceDesk(REFERENCE_NOW)));
  if (r.ok) throw new Error(`${formula} evaluated`);
  return r.problem;
};

describe("the formula evaluator", () => {
  it("recomputes the issue's false calculation: 318000 * 2 / 6 is 106000, not 150000", () => {
    expect(roundRational(value("318000 * 2 / 6"))).toBe(106000n);
  });

  it("reads + − × ÷, unary minus, parentheses and percentages exactly", () => {
    expect(value("(100 + 50) * 2 - 10 / 4")).toEqual(rational(595n, 2n));
    expect(value("318000 × 2 ÷ 6")).toEqual(rational(106000n));
    expect(value("−5 + 2")).toEqual(rational(-3n));
    expect(value("64500 * 10%")).toEqual(rational(6450n));
    expect(value("(1000 + 500)%")).toEqual(rational(15n));
    expect(value("1.5 * 2e2")).toEqual(rational(300n));
  });

  it("named inputs are fields of invoices of the task's account, in minor units", () => {
    expect(value("in_74121.openMinor / 2")).toEqual(rational(32250n));
    expect(value("in_74121.totalMinor - in_74121.fees.LATE_FEE")).toEqual(rational(60000n));
    const other = problem("in_74119.openMinor * 50%"); // Halvorsen's invoice, not the ticket's account
    expect(other).toMatchObject({ code: "unknown_input", input: "in_74119.openMinor" });
    expect(problem("in_74121").code).toBe("unknown_input");
    expect(problem("in_74121.nope").code).toBe("unknown_input");
    expect(formulaInputs("in_74121.openMinor * 10% + in_9.fees.X")).toEqual([["in_74121", "openMinor"], ["in_9", "fees", "X"]]);
  });

  it("refuses anything that is not arithmetic, and never runs code", () => {
    expect(problem("7 % 2").code).toBe("unsupported"); // modulo
    expect(problem("Math.max(1, 2)").code).toBe("unsupported");
    expect(problem("'100'").code).toBe("unsupported");
    expect(problem("1 > 0").code).toBe("unsupported");
    expect(problem("constructor.constructor('return 1')()").code).toBe("unsupported");
    expect(problem("1 / (2 - 2)").code).toBe("division_by_zero");
    expect(problem("1 +").code).toBe("syntax");
    expect(problem("").code).toBe("syntax");
    expect(problem("9".repeat(40)).code).toBe("unsupported"); // more digits than any amount has
    expect(problem("-".repeat(100) + "1").code).toBe("too_large"); // nested deeper than any real formula
  });

  it("rounds halves away from zero, once, at the end", () => {
    expect(roundRational(rational(5n, 2n))).toBe(3n);
    expect(roundRational(rational(-5n, 2n))).toBe(-3n);
    expect(roundRational(rational(7n, 3n))).toBe(2n);
    expect(roundRational(rational(-7n, 3n))).toBe(-2n);
    expect(roundRational(value("1 / 3 * 3"))).toBe(1n); // exact: no 0.999…
  });
});

/** A random arithmetic expression tree with its exact value computed by an independent reference. */
type Tree = { kind: "num"; text: string; value: Rational } | { kind: "op"; op: "+" | "-" | "*" | "/"; l: Tree; r: Tree } | { kind: "neg"; t: Tree } | { kind: "pct"; t: Tree };

/** Reference arithmetic on [numerator, denominator] BigInt pairs, unreduced until the end. */
function ref(t: Tree): [bigint, bigint] | null {
  switch (t.kind) {
    case "num":
      return [t.value.n, t.value.d];
    case "neg": {
      const v = ref(t.t);
      return v && [-v[0], v[1]];
    }
    case "pct": {
      const v = ref(t.t);
      return v && [v[0], v[1] * 100n];
    }
    case "op": {
      const a = ref(t.l);
      const b = ref(t.r);
      if (!a || !b) return null;
      if (t.op === "+") return [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
      if (t.op === "-") return [a[0] * b[1] - b[0] * a[1], a[1] * b[1]];
      if (t.op === "*") return [a[0] * b[0], a[1] * b[1]];
      if (b[0] === 0n) return null;
      return [a[0] * b[1], a[1] * b[0]];
    }
  }
}

/** Renders a tree as text people write (fully parenthesised where needed; × and ÷ sometimes). */
function render(t: Tree, glyphs: boolean): string {
  switch (t.kind) {
    case "num":
      return t.text;
    case "neg":
      return `-(${render(t.t, glyphs)})`;
    case "pct":
      return t.t.kind === "num" ? `${t.t.text}%` : `(${render(t.t, glyphs)})%`;
    case "op": {
      const op = glyphs && t.op === "*" ? "×" : glyphs && t.op === "/" ? "÷" : t.op;
      return `(${render(t.l, glyphs)} ${op} ${render(t.r, glyphs)})`;
    }
  }
}

const num: fc.Arbitrary<Tree> = fc.oneof(
  fc.integer({ min: 0, max: 10_000_000 }).map((n): Tree => ({ kind: "num", text: String(n), value: rational(BigInt(n)) })),
  fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99 })).map(([i, f]): Tree => {
    const frac = String(f).padStart(2, "0");
    return { kind: "num", text: `${i}.${frac}`, value: rational(BigInt(i) * 100n + BigInt(f), 100n) };
  }),
);
const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
  t: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    num,
    fc.record({ kind: fc.constant("op" as const), op: fc.constantFrom("+" as const, "-" as const, "*" as const, "/" as const), l: tie("t"), r: tie("t") }),
    fc.record({ kind: fc.constant("neg" as const), t: tie("t") }),
    fc.record({ kind: fc.constant("pct" as const), t: tie("t") }),
  ),
})).t;

describe("the formula evaluator: property against an exact reference", () => {
  it("any expression tree, rendered as text, evaluates to the reference's exact value (or is refused exactly when it divides by zero)", () => {
    fc.assert(
      fc.property(tree, fc.boolean(), (t, glyphs) => {
        const expected = ref(t);
        const text = render(t, glyphs);
        const got = evaluateFormula(text);
        if (expected === null) {
          expect(got.ok).toBe(false);
          if (!got.ok) expect(["division_by_zero", "too_large"]).toContain(got.problem.code);
          return;
        }
        if (!got.ok) {
          // Only numbers past the evaluator's size bound may be refused.
          expect(got.problem.code).toBe("too_large");
          return;
        }
        expect(got.value).toEqual(rational(expected[0], expected[1]));
        // Money is rounded once, halves away from zero: compare with the reference's own rounding.
        const [n, d] = expected[1] < 0n ? [-expected[0], -expected[1]] : expected;
        const q = (n < 0n ? -n : n) / d;
        const twice = ((n < 0n ? -n : n) % d) * 2n;
        const rounded = twice >= d ? q + 1n : q;
        expect(roundRational(got.value)).toBe(n < 0n ? -rounded : rounded);
      }),
      { numRuns: 1000 },
    );
  });
});
