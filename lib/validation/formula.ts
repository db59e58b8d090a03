import jsep from "jsep";
import type { AccountSnapshot } from "../desk/snapshot";
import { own } from "../desk/lookup";

/**
 * The safe arithmetic evaluator behind `computed` provenance: a formula the agent states is
 * recomputed by Plandesk, never trusted and never run as code (no `eval`, no `Function`).
 *
 * Grammar (parsed by `jsep`, then walked by our own evaluator, which accepts only these nodes):
 * - numbers: `318000`, `1.5`, `2e3` (decimal digits, at most 30 digits and an exponent of ±30);
 * - `+ - * /` (also written `× ÷ −`), unary `-` and `+`, parentheses;
 * - percentages: a number or a parenthesised group followed by `%` — `50%` is 50/100 — when no
 *   operand follows the `%` (`7 % 2`, modulo, is refused);
 * - named inputs: record fields of the request's account snapshot, written `<recordId>.<field>`:
 *   for an invoice `in_74119.openMinor` (open balance), `in_74119.totalMinor` (total) and
 *   `in_74119.fees.<CODE>` (the fee's amount). Every input is in minor units; only records of
 *   the task's own account resolve (another account's record is an `unknown input`).
 * Anything else (names without a field, calls, strings, comparisons, `%` as modulo…) is refused.
 *
 * Arithmetic is exact (BigInt rationals). The value a formula gives for money is rounded ONCE, at
 * the end, to whole minor units, halves away from zero (1.5 → 2, −1.5 → −2): see {@link roundRational}.
 */

/** An exact rational number `n/d` with `d > 0`, reduced. */
export interface Rational {
  n: bigint;
  d: bigint;
}

/** Why a formula could not be evaluated: a stable code and a message for people. */
export type FormulaProblem =
  | { code: "syntax"; message: string }
  | { code: "unsupported"; message: string }
  | { code: "unknown_input"; message: string; input: string }
  | { code: "division_by_zero"; message: string }
  | { code: "too_large"; message: string };

/** The result of {@link evaluateFormula}. `inputs`: the named inputs read, with their values (minor units). */
export type FormulaResult = { ok: true; value: Rational; inputs: Record<string, number> } | { ok: false; problem: FormulaProblem };

/** Resolves a named input (`["in_74119", "openMinor"]`) to minor units, or `undefined` when it does not resolve. */
export type InputResolver = (path: readonly string[]) => number | undefined;

/** The longest formula accepted (the provenance schema caps it at 500 characters too). */
export const MAX_FORMULA_LENGTH = 500;
const MAX_DIGITS = 30;
const MAX_EXPONENT = 30;
const MAX_DEPTH = 64;
/** Intermediate numerators/denominators beyond this many bits are refused (no runaway BigInts). */
const MAX_BITS = 512n;

let configured = false;
/** Registers the percent postfix once on the jsep parser (jsep's documented hook mechanism). */
function configure(): void {
  if (configured) return;
  configured = true;
  // jsep returns a number literal without running "after-token"; read numbers here so a percent sign after one is seen.
  jsep.hooks.add("gobble-token", function numberToken(env) {
    if ((this.code >= 48 && this.code <= 57) || this.code === 46) env.node = this.gobbleNumericLiteral();
  });
  jsep.hooks.add("after-token", function percent(env) {
    if (!env.node) return;
    this.gobbleSpaces();
    if (this.code !== 37) return; // '%'
    // A '%' followed by an operand is modulo (refused later); otherwise it is a percentage.
    const rest = this.expr.slice(this.index + 1).trimStart();
    if (rest !== "" && /^[\w(.$]/.test(rest)) return;
    this.index += 1;
    env.node = { type: "Percent", argument: env.node } as unknown as jsep.Expression;
  });
}

/** Normalises people's operator glyphs to the parser's: × → *, ÷ → /, − (minus sign) → -. */
function normalise(formula: string): string {
  return formula.normalize("NFKC").replace(/[×·]/g, "*").replace(/÷/g, "/").replace(/[−–]/g, "-");
}

/**
 * Parses `formula` into jsep's syntax tree (with `Percent` nodes). Throws `Error` with a message
 * for people on a syntax error or a formula over {@link MAX_FORMULA_LENGTH} characters.
 */
export function parseFormula(formula: string): jsep.Expression {
  configure();
  if (formula.length > MAX_FORMULA_LENGTH) throw new Error(`the formula is longer than ${MAX_FORMULA_LENGTH} characters`);
  const text = normalise(formula);
  if (text.trim() === "") throw new Error("the formula is empty");
  return jsep(text);
}

const ONE = 1n;
const abs = (x: bigint) => (x < 0n ? -x : x);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}
/** `n/d` reduced with a positive denominator. Precondition: `d !== 0n`. */
export function rational(n: bigint, d: bigint = ONE): Rational {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || ONE;
  return { n: n / g, d: d / g };
}
const add = (a: Rational, b: Rational) => rational(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Rational, b: Rational) => rational(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Rational, b: Rational) => rational(a.n * b.n, a.d * b.d);

/**
 * Rounds an exact rational to the nearest integer, halves away from zero (the rounding rule for
 * money a formula gives: 106000.5 minor units → 106001, −0.5 → −1). Returns a BigInt.
 */
export function roundRational(r: Rational): bigint {
  const q = abs(r.n) / r.d;
  const rem = abs(r.n) % r.d;
  const up = rem * 2n >= r.d ? q + ONE : q;
  return r.n < 0n ? -up : up;
}

/** A decimal literal's text ("1.5", "2e3") as an exact rational; null when it is not one we accept. */
function literal(raw: string): Rational | null {
  const m = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) return null;
  const int = m[1] ?? "";
  const frac = m[2] ?? "";
  if (int.length + frac.length > MAX_DIGITS) return null;
  const exp = Number(m[3] ?? "0") - frac.length;
  if (Math.abs(Number(m[3] ?? "0")) > MAX_EXPONENT) return null;
  const digits = BigInt(`${int}${frac}` || "0");
  return exp >= 0 ? rational(digits * 10n ** BigInt(exp)) : rational(digits, 10n ** BigInt(-exp));
}

class Refusal extends Error {
  constructor(readonly problem: FormulaProblem) {
    super(problem.message);
  }
}

const bits = (x: bigint) => BigInt(abs(x).toString(2).length);

/** The dotted name of a member chain `a.b.c` (non-computed, identifiers only), or null. */
function memberPath(node: jsep.Expression): string[] | null {
  if (node.type === "Identifier") return [(node as jsep.Identifier).name];
  if (node.type !== "MemberExpression") return null;
  const m = node as jsep.MemberExpression;
  if (m.computed || m.property.type !== "Identifier") return null;
  const head = memberPath(m.object);
  return head ? [...head, (m.property as jsep.Identifier).name] : null;
}

function walk(node: jsep.Expression, resolve: InputResolver, inputs: Record<string, number>, depth: number): Rational {
  if (depth > MAX_DEPTH) throw new Refusal({ code: "too_large", message: "the formula is nested too deeply" });
  switch (node.type) {
    case "Literal": {
      const raw = String((node as jsep.Literal).raw);
      const value = typeof (node as jsep.Literal).value === "number" ? literal(raw) : null;
      if (!value) throw new Refusal({ code: "unsupported", message: `${raw} is not a number Plandesk reads` });
      return value;
    }
    case "Percent":
      return mul(walk((node as unknown as { argument: jsep.Expression }).argument, resolve, inputs, depth + 1), rational(ONE, 100n));
    case "UnaryExpression": {
      const u = node as jsep.UnaryExpression;
      const v = walk(u.argument, resolve, inputs, depth + 1);
      if (u.operator === "-") return rational(-v.n, v.d);
      if (u.operator === "+") return v;
      throw new Refusal({ code: "unsupported", message: `the operator ${u.operator} is not arithmetic` });
    }
    case "BinaryExpression": {
      const b = node as jsep.BinaryExpression;
      if (!["+", "-", "*", "/"].includes(b.operator)) {
        throw new Refusal({ code: "unsupported", message: b.operator === "%" ? "% is a percentage (50%), not a remainder" : `the operator ${b.operator} is not arithmetic` });
      }
      const l = walk(b.left, resolve, inputs, depth + 1);
      const r = walk(b.right, resolve, inputs, depth + 1);
      let out: Rational;
      if (b.operator === "+") out = add(l, r);
      else if (b.operator === "-") out = sub(l, r);
      else if (b.operator === "*") out = mul(l, r);
      else {
        if (r.n === 0n) throw new Refusal({ code: "division_by_zero", message: "the formula divides by zero" });
        out = rational(l.n * r.d, l.d * r.n);
      }
      if (bits(out.n) > MAX_BITS || bits(out.d) > MAX_BITS) throw new Refusal({ code: "too_large", message: "the formula's numbers grow too large" });
      return out;
    }
    case "Identifier":
    case "MemberExpression": {
      const path = memberPath(node);
      if (!path) throw new Refusal({ code: "unsupported", message: "only record fields such as in_74119.openMinor may be named" });
      const name = path.join(".");
      if (path.length < 2) throw new Refusal({ code: "unknown_input", input: name, message: `${name} names no field; write e.g. ${name}.openMinor` });
      const value = resolve(path);
      if (value === undefined || !Number.isSafeInteger(value)) throw new Refusal({ code: "unknown_input", input: name, message: `${name} is not a field of a record of this task's account` });
      inputs[name] = value;
      return rational(BigInt(value));
    }
    default:
      throw new Refusal({ code: "unsupported", message: "only numbers, record fields, + − × ÷, parentheses and % are allowed" });
  }
}

/**
 * Evaluates `formula` exactly (module comment: grammar, inputs). Named inputs are looked up with
 * `resolve`. Never throws: a formula that cannot be read or evaluated is `{ok: false, problem}`.
 */
export function evaluateFormula(formula: string, resolve: InputResolver = () => undefined): FormulaResult {
  let ast: jsep.Expression;
  try {
    ast = parseFormula(formula);
  } catch (err) {
    return { ok: false, problem: { code: "syntax", message: err instanceof Error ? err.message : String(err) } };
  }
  const inputs: Record<string, number> = {};
  try {
    return { ok: true, value: walk(ast, resolve, inputs, 0), inputs };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, problem: err.problem };
    return { ok: false, problem: { code: "syntax", message: err instanceof Error ? err.message : String(err) } };
  }
}

/**
 * True when `formula` parses and derives nothing: no record field and no binary operation (a
 * bare number such as "148900", a signed one, or a lone percentage). Such a "computation" only
 * restates the value, so a `computed` provenance holding it is no derivation at all
 * (./provenance-check.ts). False when the formula does not parse (evaluation reports that). Pure.
 */
export function isConstantFormula(formula: string): boolean {
  let ast: jsep.Expression;
  try {
    ast = parseFormula(formula);
  } catch {
    return false;
  }
  let derives = false;
  const visit = (n: unknown) => {
    if (derives || !n || typeof n !== "object") return;
    const node = n as jsep.Expression;
    if (node.type === "BinaryExpression" || node.type === "Identifier" || node.type === "MemberExpression") {
      derives = true;
      return;
    }
    for (const v of Object.values(node)) if (v && typeof v === "object") visit(v);
  };
  visit(ast);
  return !derives;
}

/**
 * The named inputs a formula's text refers to, as `[recordId, field…]` paths — for loading those
 * records into the account snapshot. `[]` when the formula does not parse. Pure.
 */
export function formulaInputs(formula: string): string[][] {
  let ast: jsep.Expression;
  try {
    ast = parseFormula(formula);
  } catch {
    return [];
  }
  const out: string[][] = [];
  const visit = (n: unknown) => {
    if (!n || typeof n !== "object") return;
    const node = n as jsep.Expression;
    if (node.type === "MemberExpression") {
      const path = memberPath(node);
      if (path) {
        out.push(path);
        return;
      }
    }
    for (const v of Object.values(node)) if (v && typeof v === "object") visit(v);
  };
  visit(ast);
  return out;
}

/**
 * The resolver of named inputs against an account snapshot: `<invoiceId>.openMinor`,
 * `<invoiceId>.totalMinor`, `<invoiceId>.fees.<CODE>` of invoices that belong to `accountId` (the
 * task's account) — minor units. Any other name, or a record of another account, does not resolve.
 */
export function snapshotResolver(desk: AccountSnapshot, accountId: string = desk.ticket.accountId): InputResolver {
  return (path) => {
    const invoice = own(desk.invoices, path[0]);
    if (!invoice || invoice.accountId !== accountId) return undefined;
    if (path.length === 2 && path[1] === "openMinor") return invoice.openBalance.minor;
    if (path.length === 2 && path[1] === "totalMinor") return invoice.total.minor;
    if (path.length === 3 && path[1] === "fees") return invoice.fees.find((f) => f.code === path[2])?.amount.minor;
    return undefined;
  };
}
