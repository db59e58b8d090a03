import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, describeRecord, findRecord, type RecordKind, notFoundPhrase } from "../desk/lookup";
import { canonicalJson } from "../plan/canonical-json";
import type { Provenance } from "../plan/schema";
import { CURRENCIES, formatMoney, type Currency, type Money } from "../money/format-money";
import { parseMoneyInput } from "../money/money-input";
import { formatLongDate, isIsoDate } from "../time/dates";
import { evaluateFormula, isConstantFormula, roundRational, snapshotResolver } from "./formula";

/**
 * Verifying what the agent says about where a value came from. Provenance is a claim; Plandesk
 * checks it against the account snapshot of the request and the task's live text, and says which
 * claims it could not check. One pure function, {@link verifyProvenance}, serves the validator
 * (issues) and the card (the "checked" / "unverified" / mismatch badge), so both say the same.
 *
 * - `computed` {formula}: the formula is evaluated exactly by ./formula.ts (numbers, + − × ÷,
 *   parentheses, percentages, record fields of the task's account such as `in_74119.openMinor`,
 *   all in minor units) and rounded once to whole minor units (halves away from zero); the
 *   result must equal the argument (its `minor` for money, the number itself for a number).
 *   Otherwise a mismatch: "claimed $1,500.00, formula gives $1,060.00". A formula that cannot be
 *   read or names an input that is not a field of the task's account is a mismatch too (the
 *   stated derivation does not hold), and so is a formula that names no record field and no
 *   operation (a bare "148900": `formula_constant`, the value restated, not computed). No
 *   formula: unverified.
 * - `user_literal` {quote?}: the quote must occur in the task text (case, spacing and Unicode
 *   compatibility forms ignored) AND contain the value: money by the product's money parser
 *   (`parseMoneyInput`, in the argument's currency) on each amount written in the quote; an ISO
 *   date as written or as people read it ("April 4", "Saturday, April 4"); a window by both of its
 *   dates; text and numbers as they are. Without a quote, the value itself must occur in the task
 *   text (the task's own ticket number counts as stated). No task text in the context: unverified.
 * - `source` {recordType, recordId}: the record must exist, belong to the task's account, and hold
 *   the value in one of its fields (at any depth). A record type Plandesk does not know: unverified.
 * - `model` and `operator` make no claim to check (`null`): a person's edit is recorded by Plandesk.
 */

/** The outcome of checking one stated origin. Messages are written for people. */
export type ProvenanceCheck =
  | { status: "checked"; message: string }
  | { status: "unverified"; message: string }
  | { status: "mismatch"; message: string; reason: MismatchReason; claimed?: string; computed?: string };

/** Why a claim did not hold. */
export type MismatchReason =
  | "formula_result"
  | "formula_invalid"
  | "formula_input"
  | "formula_constant"
  | "quote_not_in_task"
  | "quote_lacks_value"
  | "value_not_in_task"
  | "record_missing"
  | "record_other_account"
  | "value_not_in_record"
  | "no_such_argument";

/** What verification reads besides the claim: the account snapshot and the task's live text. */
export interface ProvenanceContext {
  desk: AccountSnapshot;
  /** The task's text; `undefined` when the context does not carry it (quotes are then unverified). */
  taskText?: string;
}

const KINDS: readonly RecordKind[] = ["invoice", "shipment", "ticket", "account"];

/**
 * Checks one argument's stated origin `p` against `ctx` (module comment: the rule per kind).
 * `value` is the argument's value (`undefined` when the step has no such argument). Returns
 * `null` for `model` and `operator` origins (nothing to check). Pure; never throws.
 */
export function verifyProvenance(p: Provenance, value: unknown, ctx: ProvenanceContext): ProvenanceCheck | null {
  switch (p.kind) {
    case "model":
    case "operator":
      return null;
    case "computed":
      return checkComputed(p.formula, value, ctx.desk);
    case "user_literal":
      return checkLiteral(p.quote, value, ctx);
    case "source":
      return checkSource(p.recordType, p.recordId, value, ctx.desk);
  }
}

const isMoney = (v: unknown): v is Money =>
  !!v && typeof v === "object" && Number.isSafeInteger((v as Money).minor) && (CURRENCIES as readonly unknown[]).includes((v as Money).currency);

function mismatch(reason: MismatchReason, message: string, extra: { claimed?: string; computed?: string } = {}): ProvenanceCheck {
  return { status: "mismatch", reason, message, ...extra };
}

function checkComputed(formula: string | undefined, value: unknown, desk: AccountSnapshot): ProvenanceCheck {
  if (formula === undefined || formula.trim() === "") return { status: "unverified", message: "computed, but the agent gave no formula to check" };
  if (value === undefined) return mismatch("no_such_argument", "the step has no such argument");
  const claimedMinor = isMoney(value) ? value.minor : typeof value === "number" && Number.isFinite(value) ? value : undefined;
  if (claimedMinor === undefined) return { status: "unverified", message: "computed, but the value is not a number or an amount Plandesk can recompute" };
  const result = evaluateFormula(formula, snapshotResolver(desk));
  if (result.ok && isConstantFormula(formula)) {
    return mismatch("formula_constant", `the formula "${formula}" names no record field and no operation: it restates a number, it does not compute one`);
  }
  if (!result.ok) {
    const reason: MismatchReason = result.problem.code === "unknown_input" ? "formula_input" : "formula_invalid";
    return mismatch(reason, `the formula "${formula}" cannot be evaluated: ${result.problem.message}`);
  }
  const gives = roundRational(result.value);
  const show = (minor: bigint | number) => (isMoney(value) ? formatMoney({ minor: Number(minor), currency: value.currency as Currency }) : String(minor));
  if (gives === BigInt(claimedMinor)) return { status: "checked", message: `checked: the formula gives ${show(gives)}` };
  return mismatch("formula_result", `claimed ${show(claimedMinor)}, formula gives ${show(gives)}`, { claimed: show(claimedMinor), computed: show(gives) });
}

/** Lower-cased, NFKC, runs of white space as one space, trimmed. */
export const squash = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/** Every amount written in `text` (digits with marks, optionally after a currency sign), in minor units of `currency`. */
function amountsIn(text: string, currency: Currency): number[] {
  const out: number[] = [];
  for (const m of text.normalize("NFKC").matchAll(/\d(?:[\d.,' \u00A0]*\d)?/g)) {
    // the whole run ("1 200,50"), and each of its space-separated parts ("10, 3" → "10", "3")
    for (const token of new Set([m[0], ...m[0].split(/[ \u00A0]+/)])) {
      const r = parseMoneyInput(token.replace(/[.,]$/, ""), currency, { allowZero: true });
      if (r.ok) out.push(r.minor);
    }
  }
  return out;
}

/** The ways people write an ISO date: as is, and the product's long form and its parts ("Saturday, April 4", "April 4"). */
function dateForms(iso: string): string[] {
  const long = formatLongDate(iso); // "Saturday, April 4"
  const short = long.replace(/^[A-Za-z]+,\s*/, ""); // "April 4"
  const [month, day] = short.split(" ");
  return [iso, long, short, `${day} ${month}`].map(squash);
}

function quoteContains(quote: string, value: unknown): boolean | undefined {
  const q = squash(quote);
  if (typeof value === "string") {
    if (isIsoDate(value)) return dateForms(value).some((f) => q.includes(f));
    return q.includes(squash(value));
  }
  if (typeof value === "number") return new RegExp(`(^|[^\\d])${String(value).replace(".", "\\.")}([^\\d]|$)`).test(q);
  if (isMoney(value)) return amountsIn(quote, value.currency as Currency).includes(value.minor);
  if (value && typeof value === "object" && isIsoDate((value as { from?: unknown }).from) && isIsoDate((value as { to?: unknown }).to)) {
    const w = value as { from: string; to: string };
    return (quoteContains(quote, w.from) ?? false) && (quoteContains(quote, w.to) ?? false);
  }
  return undefined; // a value of a form a quote cannot be checked against
}

function checkLiteral(quote: string | undefined, value: unknown, ctx: ProvenanceContext): ProvenanceCheck {
  if (ctx.taskText === undefined) return { status: "unverified", message: "from the task text, but the task text was not at hand to check" };
  const text = squash(ctx.taskText);
  if (quote === undefined) {
    if (typeof value !== "string" && typeof value !== "number") return { status: "unverified", message: "from the task text, but no quote was given for a value that is not text" };
    if (String(value) === ctx.desk.ticket.id) return { status: "checked", message: "checked: the task is this ticket" };
    return text.includes(squash(String(value)))
      ? { status: "checked", message: "checked: the value occurs in the task text" }
      : mismatch("value_not_in_task", "the value does not occur in the task text");
  }
  if (!text.includes(squash(quote))) return mismatch("quote_not_in_task", "the quote does not occur in the task text");
  if (value === undefined) return mismatch("no_such_argument", "the step has no such argument");
  const contains = quoteContains(quote, value);
  if (contains === undefined) return { status: "unverified", message: "the quote is in the task text, but a value of this form cannot be checked against it" };
  return contains ? { status: "checked", message: "checked: the quote is in the task text and holds the value" } : mismatch("quote_lacks_value", "the quote is in the task text but does not hold the value");
}

function checkSource(recordType: string, recordId: string, value: unknown, desk: AccountSnapshot): ProvenanceCheck {
  if (!(KINDS as readonly string[]).includes(recordType)) return { status: "unverified", message: `"${recordType}" is not a kind of record Plandesk knows` };
  const kind = recordType as RecordKind;
  const record = findRecord(desk, kind, recordId);
  // Another desk's or account's record is never described: it is "not a record of this account".
  if (!record) return mismatch("record_missing", `${describeRecord(kind, recordId)} ${notFoundPhrase(desk)}`);
  if (accountIdOf(desk, kind, recordId) !== desk.ticket.accountId) return mismatch("record_other_account", `${describeRecord(kind, recordId)} belongs to another account than the ticket's`);
  if (value === undefined) return mismatch("no_such_argument", "the step has no such argument");
  const wanted = canon(value);
  return fieldValues(record).some((v) => canon(v) === wanted)
    ? { status: "checked", message: `checked: ${describeRecord(kind, recordId)} holds the value` }
    : mismatch("value_not_in_record", `no field of ${describeRecord(kind, recordId)} holds that value`);
}

/** Every value a record holds, at any depth (ids, money, windows and their days, strings). */
function fieldValues(record: object): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown) => {
    out.push(v);
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(record);
  return out;
}

const canon = (v: unknown) => {
  try {
    return canonicalJson(v);
  } catch {
    return "\u0000unserialisable";
  }
};

/** The value at a top-level argument name or a dotted path ("window.from"); own properties only. */
export function valueAt(args: Record<string, unknown>, path: string): unknown {
  let cur: unknown = args;
  for (const key of path.split(".")) {
    if (!cur || typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
