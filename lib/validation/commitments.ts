import { parseMinor, type Currency } from "../money/format-money";
import { addDaysIso, isIsoDate, utcDateOf } from "../time/dates";
import { normalizeForScan } from "../text/confusables";
import { toDisplayOrder } from "../text/hidden-characters";

/*
 * A small, deterministic scanner for promises in customer-facing text (docs/design.md §1.6).
 * It is a heuristic on purpose — its findings are warnings a person acknowledges, never
 * errors — so it prefers flagging a sentence a person can dismiss to missing a promise.
 *
 * Method: normalise the text as a person reads it (`normalizeForScan`: NFKC, invisible and
 * format characters such as a soft hyphen inside "re\u00ADfund" removed, accents stripped,
 * Cyrillic/Greek look-alike letters folded — issue 14), then split it into sentences, then
 * clauses (at ", ", ";", " but ", " and ", " so "…).
 * - Money: a clause with a compensation word (refund, reimburse, compensate, credit, waive,
 *   "money back") is a money promise unless that word is negated (`negates`): a negation
 *   ("no", "not", "never", "cannot", "unable", any "…n't"…) before it in the clause ("we will
 *   not refund", "no refund is due"), or a negated verb right after it ("a refund is not
 *   possible"). Set phrases that negate nothing ("no questions asked", "at no cost", "without
 *   delay", "not only", "no later than"…) are ignored, so "we will refund you $150.00 with no
 *   questions asked" stays a promise. Money amounts in the same clause ("$1,489.00",
 *   "USD 1489"; "1.489,00" is NOT understood) are the promised amounts.
 * - Dates: in a sentence about delivery (deliver, arrive, ship, reschedule, rebook, dispatch…), every
 *   non-negated clause's date phrase — ISO "2026-04-06", "April 6", "Apr 6th, 2026",
 *   "6 April", "tomorrow" — is a promised delivery day ("today" is left out: replies use it
 *   for what happened, far more than for a promise). Dates before today are
 *   history, not promises. A month-day without a year takes the current UTC year, or the next
 *   one when that day would be more than 60 days in the past.
 */

/** A money amount found in text. `currency` is absent for "kr" (NOK/SEK/DKK ambiguous). */
export interface PromisedAmount {
  phrase: string;
  minor: number;
  currency?: Currency;
}

/** One promise found in a text. `clause` is the text it was found in (trimmed, ≤ 200 chars). */
export type Commitment =
  | { kind: "money"; keyword: string; amounts: PromisedAmount[]; clause: string }
  | { kind: "date"; phrase: string; date: string; clause: string };

const NEGATION = /\b(?:no|not|never|cannot|unable|without|neither|nor|none|nothing|\w+n['’]t)\b/i;

/** Set phrases whose negation word negates nothing about a promise (removed before looking for a negation). */
const NON_NEGATING = new RegExp(
  [
    String.raw`\b(?:with\s+)?no\s+questions?\s+asked\b`,
    String.raw`\b(?:at\s+)?no\s+(?:extra\s+|additional\s+|further\s+)?(?:cost|charge|expense)\b(?:\s+to\s+you)?`,
    String.raw`\bno\s+later\s+than\b`,
    String.raw`\bnot\s+later\s+than\b`,
    String.raw`\bwithout\s+(?:any\s+)?(?:further\s+)?(?:delay|question|questions|hesitation|fail|fuss|hassle)\b`,
    String.raw`\bnot\s+only\b`,
    String.raw`\bno\s+matter\b`,
    String.raw`\bno\s+(?:doubt|problem|worries)\b`,
    String.raw`\bin\s+no\s+time\b`,
    String.raw`\bno\s+(?:need|action)\s+(?:is\s+)?(?:needed|required\s+)?(?:on\s+your\s+(?:side|part)|from\s+you|for\s+you\s+to)\b`,
  ].join("|"),
  "gi",
);

/** A negated verb right after the compensation word: "refund is not possible", "credit won't be", "refunds cannot". */
const NEGATED_AFTER = /^\W*(?:(?!(?:we|i|you|they|he|she|it)\b)\S+\s+){0,2}?(?:(?:is|are|was|were|will|would|can|could|shall|should|may|might|has|have|had|do|does|did)\s+(?:not|never)\b|(?:cannot|\w+n['’]t)\b)/i;

/** Subject pronouns: a negation before the last one belongs to another verb ("if we cannot deliver, we will refund"). */
const SUBJECT = /\b(?:we|i|you|they|he|she|it)\b/gi;

/**
 * True when the compensation word at `[start, end)` of `clause` is negated: a negation between
 * the last subject pronoun before it (or the clause start) and the word ("we will not refund",
 * "no refund is due", "you won't get a refund"), or a negated verb within the next three words
 * that is not another subject's ("a refund is not possible"; not "refund what we can't recover").
 * Set phrases that negate nothing (`NON_NEGATING`, e.g. "no questions asked") are ignored.
 */
export function negates(clause: string, start: number, end: number): boolean {
  const blank = (s: string) => s.replace(NON_NEGATING, (m) => " ".repeat(m.length));
  const before = blank(clause.slice(0, start));
  let scope = 0;
  for (const m of before.matchAll(SUBJECT)) scope = m.index;
  return NEGATION.test(before.slice(scope)) || NEGATED_AFTER.test(blank(clause.slice(end)));
}

const MONEY_WORD =
  /\b(refund(?:s|ed|ing)?|reimburs(?:e|ed|es|ing|ement|ements)|compensat(?:e|ed|es|ing|ion)|credit(?:s|ed|ing)?(?!\s+(?:card|check|score|limit|rating|history)\b)|waiv(?:e|ed|es|ing|er)|money back)\b/i;

const DELIVERY_WORD =
  /\b(deliver\w*|redeliver\w*|arriv\w*|reschedul\w*|re-?book\w*|ship(?:s|ped|ping|ment|ments)?|dispatch\w*|collect(?:ion|ed)?|pick(?:ed)?[- ]up|drop[- ]off)\b/i;

const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?`;
const CODES = "USD|EUR|GBP|NOK|SEK|DKK";
const AMOUNT = new RegExp(
  String.raw`(?:(?<sym>US\$|\$|€|£)\s?(?<n1>${NUM})|\b(?<c1>${CODES})\s?(?<n2>${NUM})|(?<n3>${NUM})\s?(?:(?<c2>${CODES})\b|(?<kr>kr)\b))`,
  "g",
);
const SYMBOL_CURRENCY: Record<string, Currency> = { $: "USD", US$: "USD", "€": "EUR", "£": "GBP" };

const MONTHS: Record<string, number> = {
  January: 1, Jan: 1, February: 2, Feb: 2, March: 3, Mar: 3, April: 4, Apr: 4, May: 5, June: 6, Jun: 6,
  July: 7, Jul: 7, August: 8, Aug: 8, September: 9, Sept: 9, Sep: 9, October: 10, Oct: 10,
  November: 11, Nov: 11, December: 12, Dec: 12,
};
const MONTH = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join("|");
const DATE = new RegExp(
  String.raw`\b(?:(?<iy>\d{4})-(?<im>\d{2})-(?<id>\d{2})|(?<m1>${MONTH})\.?\s+(?<d1>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?<y1>\d{4})\b)?|(?<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?<m2>${MONTH})\b\.?(?:,?\s+(?<y2>\d{4})\b)?|(?<rel>[Tt]omorrow))`,
  "g",
);

/** Sentences: split after . ! ? when the next word starts with a capital or a quote, and at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z"'“‘(])|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Clauses of a sentence: split at ", " ";" ": " " – " and at but/and/so/however/although/while. */
export function splitClauses(sentence: string): string[] {
  return sentence
    .split(/[,;:]\s+|\s[–—-]\s|\s+(?:but|and|so|however|although|though|while|whereas|instead)\s+/i)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The first compensation word of `clause` that is not negated (`negates`), or undefined. */
function firstPromisedMoneyWord(clause: string): string | undefined {
  for (const m of clause.matchAll(new RegExp(MONEY_WORD.source, "gi"))) {
    if (!negates(clause, m.index, m.index + m[0].length)) return m[1];
  }
  return undefined;
}

function clip(s: string): string {
  return s.length <= 200 ? s : `${s.slice(0, 197)}...`;
}

/** Money amounts in `text`, e.g. "$1,489.00" → `{minor: 148900, currency: "USD"}`. */
export function findAmounts(text: string): PromisedAmount[] {
  const out: PromisedAmount[] = [];
  for (const m of text.matchAll(AMOUNT)) {
    const g = m.groups ?? {};
    const num = g.n1 ?? g.n2 ?? g.n3;
    if (!num) continue;
    const currency = g.sym ? SYMBOL_CURRENCY[g.sym] : ((g.c1 ?? g.c2) as Currency | undefined);
    const minor = parseMinor(num, currency ?? "USD");
    if (minor === null) continue;
    out.push({ phrase: m[0].trim(), minor, ...(currency ? { currency } : {}) });
  }
  return out;
}

/** Date phrases in `text` resolved to ISO dates relative to `today` (an ISO date). */
export function findDates(text: string, today: string): Array<{ phrase: string; date: string }> {
  const out: Array<{ phrase: string; date: string }> = [];
  for (const m of text.matchAll(DATE)) {
    const g = m.groups ?? {};
    let date: string | undefined;
    if (g.iy) date = `${g.iy}-${g.im}-${g.id}`;
    else if (g.rel) date = addDaysIso(today, 1);
    else {
      const month = MONTHS[(g.m1 ?? g.m2) as string];
      const day = Number(g.d1 ?? g.d2);
      const year = g.y1 ?? g.y2;
      const mk = (y: number) => `${String(y).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
      if (year) date = mk(Number(year));
      else {
        const y = Number(today.slice(0, 4));
        date = mk(y);
        if (isIsoDate(date) && date < addDaysIso(today, -60)) date = mk(y + 1);
      }
    }
    if (date && isIsoDate(date)) out.push({ phrase: m[0], date });
  }
  return out;
}

/**
 * All promises of money or delivery dates in `text` (see the file comment for the rules).
 * The text is normalised first (`normalizeForScan`), so `clause` quotes the normalised text; it is
 * read twice when it holds bidi controls, as stored and in display order (`toDisplayOrder`).
 * `now` fixes "today" (its UTC date). Pure; never throws; linear in the text length.
 */
export function findCommitments(text: string, now: Date): Commitment[] {
  const today = utcDateOf(now);
  const found: Commitment[] = [];
  // Both the text as stored (controls dropped) and as a person sees it displayed (bidi overrides
  // applied: "\u202Ednufer\u202C" reads "refund"): a promise in either is a promise.
  const displayed = toDisplayOrder(text);
  const readings = displayed === text ? [text] : [text, displayed];
  const seen = new Set<string>();
  for (const sentence of readings.flatMap((t) => splitSentences(normalizeForScan(t)))) {
    if (seen.has(sentence)) continue;
    seen.add(sentence);
    const aboutDelivery = DELIVERY_WORD.test(sentence);
    for (const clause of splitClauses(sentence)) {
      const money = firstPromisedMoneyWord(clause);
      if (money) found.push({ kind: "money", keyword: money.toLowerCase(), amounts: findAmounts(clause), clause: clip(clause) });
      if (!aboutDelivery) continue;
      if (NEGATION.test(clause.replace(NON_NEGATING, " "))) continue;
      for (const d of findDates(clause, today)) {
        if (d.date >= today) found.push({ kind: "date", phrase: d.phrase, date: d.date, clause: clip(clause) });
      }
    }
  }
  return found;
}
