import { parseMinor, type Currency } from "../money";
import { addDaysIso, isIsoDate, utcDateOf } from "../dates";

/*
 * A small, deterministic scanner for promises in customer-facing text (DESIGN.md §1.6).
 * It is a heuristic on purpose — its findings are warnings a person acknowledges, never
 * errors — so it prefers flagging a sentence a person can dismiss to missing a promise.
 *
 * Method: split the text into sentences, then clauses (at ", ", ";", " but ", " and ", " so "…).
 * - Money: a clause with a compensation word (refund, reimburse, compensate, credit, waive,
 *   "money back") that is not negated in that clause ("no", "not", "cannot", "unable"…) is a
 *   money promise; money amounts in the same clause ("$1,489.00", "USD 1489", "1.489,00" is NOT
 *   understood) are the promised amounts.
 * - Dates: in a sentence about delivery (deliver, arrive, ship, reschedule, dispatch…), every
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

const NEGATION = /\b(?:no|not|never|cannot|can't|can’t|won't|won’t|unable|don't|don’t|doesn't|doesn’t|isn't|isn’t|without|neither|nor)\b/i;

const MONEY_WORD =
  /\b(refund(?:s|ed|ing)?|reimburs(?:e|ed|es|ing|ement|ements)|compensat(?:e|ed|es|ing|ion)|credit(?:s|ed|ing)?(?!\s+(?:card|check|score|limit|rating|history)\b)|waiv(?:e|ed|es|ing|er)|money back)\b/i;

const DELIVERY_WORD =
  /\b(deliver\w*|redeliver\w*|arriv\w*|reschedul\w*|ship(?:s|ped|ping|ment|ments)?|dispatch\w*|collect(?:ion|ed)?|pick(?:ed)?[- ]up|drop[- ]off)\b/i;

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
 * `now` fixes "today" (its UTC date). Pure; never throws; linear in the text length.
 */
export function findCommitments(text: string, now: Date): Commitment[] {
  const today = utcDateOf(now);
  const found: Commitment[] = [];
  for (const sentence of splitSentences(text)) {
    const aboutDelivery = DELIVERY_WORD.test(sentence);
    for (const clause of splitClauses(sentence)) {
      if (NEGATION.test(clause)) continue;
      const money = MONEY_WORD.exec(clause);
      if (money) found.push({ kind: "money", keyword: money[1].toLowerCase(), amounts: findAmounts(clause), clause: clip(clause) });
      if (!aboutDelivery) continue;
      for (const d of findDates(clause, today)) {
        if (d.date >= today) found.push({ kind: "date", phrase: d.phrase, date: d.date, clause: clip(clause) });
      }
    }
  }
  return found;
}
