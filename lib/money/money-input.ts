import { CURRENCIES, formatMoney, MAX_MONEY_MINOR, moneyExponent, type Currency } from "./format-money";

/**
 * The ONE parser for money a person types (issue 14): every money field of the plan form and
 * of the admin forms reads its text through `parseMoneyInput`, the plan form's zod schema checks
 * it with `moneyInputIssue`, and the live line under the field ("= NOK 14.89") comes from the
 * same result. Pure TypeScript, no framework imports.
 *
 * Conventions, by the currency's own writing (CLDR): NOK, SEK, DKK and EUR write a decimal
 * comma and group thousands with a point or a space ("1.234,50", "1 234,50"); USD and GBP write
 * a decimal point and group with a comma ("1,234.50"). Spaces (also no-break and thin spaces)
 * and apostrophes group thousands in every currency. The decision on ambiguous input:
 * - a lone mark followed by 1–2 digits is the decimal mark whichever it is ("14,89" and
 *   "14.89" are both 14.89 in every currency: grouping never leaves 1–2 digits);
 * - the currency's grouping mark before exactly three digits groups ("1.234" NOK = 1234,
 *   "1,234" USD = 1234);
 * - the currency's DECIMAL mark before exactly three digits is refused as ambiguous
 *   ("1,234" in NOK could be 1.234 or one thousand two hundred thirty-four), as is a lone
 *   foreign mark before three digits in a decimal-point currency ("12.345" in USD: three
 *   decimals in a two-decimal currency, or a European thousand);
 * - with both marks, the last one must be the currency's decimal mark ("1,234.50" in NOK is
 *   refused: write "1.234,50");
 * - a repeated mark must be the currency's grouping mark, in groups of three.
 * Exponent notation ("1e3"), letters, signs other than a leading minus, zero and negative
 * amounts, more decimals than the currency has, and amounts above `MAX_MONEY_MINOR` are refused,
 * each with its own message. Results are integer minor units.
 */

/** Why typed money was refused: a stable code per problem, each with its own message. */
export type MoneyInputProblem =
  | "required"
  | "not_a_number"
  | "exponent"
  | "ambiguous"
  | "wrong_decimal_mark"
  | "bad_grouping"
  | "too_many_decimals"
  | "not_positive"
  | "too_large";

/** The outcome of parsing: minor units and the amount as people read it, or a problem and its message. */
export type MoneyInputResult =
  | { ok: true; minor: number; display: string }
  | { ok: false; problem: MoneyInputProblem; message: string };

/** Currencies that write a decimal comma (CLDR for nb/sv/da and the euro area's majority). */
const DECIMAL_COMMA: ReadonlySet<Currency> = new Set<Currency>(["NOK", "SEK", "DKK", "EUR"]);

/** The decimal and grouping marks of `currency`, e.g. NOK → {decimal: ",", group: "."}. */
export function moneyMarks(currency: Currency): { decimal: "," | "."; group: "," | "." } {
  return DECIMAL_COMMA.has(currency) ? { decimal: ",", group: "." } : { decimal: ".", group: "," };
}

/** An example of a correctly written amount for messages, e.g. NOK → "1.234,50", USD → "1,234.50". */
export function moneyExample(currency: Currency): string {
  const { decimal, group } = moneyMarks(currency);
  return `1${group}234${decimal}50`;
}

const SYMBOLS: Record<string, Currency[]> = { $: ["USD"], "US$": ["USD"], "€": ["EUR"], "£": ["GBP"], kr: ["NOK", "SEK", "DKK"], "kr.": ["DKK", "NOK", "SEK"] };

/**
 * Parses money a person typed for `currency` into integer minor units (see the module comment
 * for the conventions and the ambiguity rules). A leading or trailing currency code or symbol of
 * the same currency is allowed ("NOK 14,89", "$14.89", "14,89 kr"). `allowZero` accepts 0 (for
 * limits, never for an amount to move). Never throws.
 */
export function parseMoneyInput(input: string, currency: Currency, opts: { allowZero?: boolean } = {}): MoneyInputResult {
  const fail = (problem: MoneyInputProblem, message: string): MoneyInputResult => ({ ok: false, problem, message });
  const exp = moneyExponent(currency);
  const { decimal, group } = moneyMarks(currency);
  let s = input.normalize("NFKC").replace(/[\u00A0\u2007\u202F\u2009\u200A]/g, " ").trim();
  if (s === "") return fail("required", "Enter an amount");
  // a currency code or symbol of this currency, before or after
  const tokens = [currency, ...Object.keys(SYMBOLS).filter((k) => SYMBOLS[k].includes(currency))].sort((a, b) => b.length - a.length);
  for (const t of tokens) {
    const esc = t.replace(/[.$]/g, (c) => `\\${c}`);
    s = s.replace(new RegExp(`^${esc}\\s*|\\s*${esc}$`, "i"), "").trim();
  }
  let negative = false;
  if (/^[-−–]/.test(s)) {
    negative = true;
    s = s.slice(1).trim();
  }
  if (/^\d*[.,]?\d+e[+-]?\d+$/i.test(s)) return fail("exponent", `Write the amount in full digits (no exponent like "1e3"), e.g. ${moneyExample(currency)}`);
  if (!/^[\d.,' ]+$/.test(s) || !/\d/.test(s)) return fail("not_a_number", `Enter the amount in digits, e.g. ${moneyExample(currency)}`);

  // spaces and apostrophes group thousands in every currency: read them as the currency's grouping mark
  s = s.replace(/[ '](?=\d{3}(?!\d))/g, group);
  if (/[ ']/.test(s)) return fail("bad_grouping", `Group thousands in threes, e.g. 1 234${decimal}50`);

  const commas = (s.match(/,/g) ?? []).length;
  const points = (s.match(/\./g) ?? []).length;
  let intPart: string;
  let frac = "";
  const groupedOk = (whole: string, mark: string) => new RegExp(`^\\d{1,3}(?:\\${mark}\\d{3})+$`).test(whole);
  if (commas > 0 && points > 0) {
    const last = s.lastIndexOf(",") > s.lastIndexOf(".") ? "," : ".";
    if (last !== decimal) return fail("wrong_decimal_mark", `In ${currency} the decimal mark is a ${decimal === "," ? "comma" : "point"}: write ${moneyExample(currency)}`);
    const at = s.lastIndexOf(decimal);
    const whole = s.slice(0, at);
    frac = s.slice(at + 1);
    if (whole.includes(decimal) || !groupedOk(whole, group)) return fail("bad_grouping", `Group thousands in threes, e.g. ${moneyExample(currency)}`);
    intPart = whole.split(group).join("");
  } else if (commas + points === 0) {
    intPart = s;
  } else {
    const mark = commas > 0 ? "," : ".";
    const count = commas + points;
    if (count > 1) {
      if (mark !== group || !groupedOk(s, mark)) return fail("bad_grouping", `Group thousands in threes with ${group === "," ? "commas" : "points"}, e.g. ${moneyExample(currency)}`);
      intPart = s.split(mark).join("");
    } else {
      const [whole, after] = s.split(mark);
      if (after.length === 3 && whole.length > 0 && whole.length <= 3 && mark === group) {
        intPart = whole + after; // "1.234" in NOK, "1,234" in USD: thousands
      } else if (after.length === 3 && /^0+$/.test(whole)) {
        // "0.001": no thousands start with a zero, so these are simply too many decimals
        return fail("too_many_decimals", `${currency} has ${exp} decimals; "${input.trim()}" has 3. The smallest amount is ${formatMoney({ minor: 1, currency })}`);
      } else if (after.length === 3 && whole.length > 0) {
        const thousands = `${Number(whole).toLocaleString("en-US").split(",").join(group)}${group}${after}`;
        return fail(
          "ambiguous",
          `"${input.trim()}" is ambiguous in ${currency}: for ${thousands} (thousands) write ${thousands}; for ${whole} and a fraction use at most ${exp} decimals (${whole}${decimal}${after.slice(0, exp)})`,
        );
      } else {
        intPart = whole;
        frac = after;
      }
    }
  }
  if (intPart === "") intPart = "0";
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(frac)) return fail("not_a_number", `Enter the amount in digits, e.g. ${moneyExample(currency)}`);
  if (frac.length > exp) return fail("too_many_decimals", `${currency} has ${exp} decimals; "${input.trim()}" has ${frac.length}`);
  const digits = intPart.replace(/^0+(?=\d)/, "");
  if (digits.length > 15) return fail("too_large", `That is more than the most any step may move (${formatMoney({ minor: MAX_MONEY_MINOR, currency })})`);
  const minor = Number(digits) * 10 ** exp + Number(frac.padEnd(exp, "0") || "0");
  if (negative && minor !== 0) return fail("not_positive", "The amount must be more than zero (a negative amount is never meant; choose another tool to take money back)");
  if (minor === 0 && !opts.allowZero) return fail("not_positive", "The amount must be more than zero");
  if (minor > MAX_MONEY_MINOR) return fail("too_large", `That is more than the most any step may move (${formatMoney({ minor: MAX_MONEY_MINOR, currency })})`);
  return { ok: true, minor, display: formatMoney({ minor, currency }) };
}

/**
 * The money value a form holds while a person types: `{minor, currency}` as the API has it,
 * plus `input`, the text as typed (client-only; `stripMoneyInput` removes it before sending).
 * `minor` is a number, NaN while the text does not parse, or undefined when cleared.
 */
export interface MoneyFormValue {
  minor: unknown;
  currency: Currency;
  input?: string;
}

/**
 * The form's check of one money value: the problem message for its typed `input` (parsed by
 * `parseMoneyInput`), or undefined when it parses (or when there is no typed text, so the tool
 * schema's own message applies). Used by the plan form's zod schema (lib/plan/form-schema.ts).
 */
export function moneyInputIssue(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { currency, input } = value as Partial<MoneyFormValue>;
  if (typeof input !== "string" || !(CURRENCIES as readonly unknown[]).includes(currency)) return undefined;
  const r = parseMoneyInput(input, currency as Currency);
  return r.ok ? undefined : r.message;
}

/** A copy of `args` without the client-only `input` of money values (what the API receives). */
export function stripMoneyInput(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (v && typeof v === "object" && !Array.isArray(v) && "input" in v && "currency" in v) {
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { input, ...rest } = v as Record<string, unknown>;
      out[k] = rest;
    } else out[k] = v;
  }
  return out;
}
