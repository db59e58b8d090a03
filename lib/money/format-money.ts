/**
 * Money as plain values, without its zod schemas (lib/money/money.ts adds those): the currencies,
 * the Money shape, formatting and parsing of minor units. What pages' JavaScript imports, so the
 * schema library stays on the server and in forms. Source: docs/design.md §2 (typed plans),
 * docs/api.md — money is `{minor: integer, currency}`.
 */

/** Currencies the desk settles in (ISO 4217 codes). Demo money is USD. */
export const CURRENCIES = ["USD", "EUR", "GBP", "NOK", "SEK", "DKK"] as const;
/** One of CURRENCIES. */
export type Currency = (typeof CURRENCIES)[number];

/**
 * An amount of money: integer minor units (cents) plus currency, never a float. Checked by
 * `moneySchema` (lib/money/money.ts) wherever it enters.
 */
export type Money = { minor: number; currency: Currency };

/**
 * The most one money value may hold, in minor units: 10^11 (1,000,000,000.00 in a two-decimal
 * currency). Larger amounts are refused by `moneySchema` (every API body and
 * stored plan) and, as people type, by `parseMoneyInput`; far below Number.MAX_SAFE_INTEGER.
 */
export const MAX_MONEY_MINOR = 100_000_000_000;

/** Digits after the decimal point per currency (ISO 4217 exponent). */
const EXPONENT: Record<Currency, number> = { USD: 2, EUR: 2, GBP: 2, NOK: 2, SEK: 2, DKK: 2 };

/** Digits after the decimal mark of `currency` (ISO 4217 exponent), e.g. USD → 2. */
export function moneyExponent(currency: Currency): number {
  return EXPONENT[currency] ?? 2;
}


/**
 * Formats money for people, e.g. `{minor: 148900, currency: "USD"}` → "$1,489.00".
 * Uses `Intl.NumberFormat` in en-US. Pure; never throws for valid Money.
 */
export function formatMoney(m: Money): string {
  const exp = EXPONENT[m.currency] ?? 2;
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: m.currency,
    minimumFractionDigits: exp,
  }).format(m.minor / 10 ** exp);
}

/**
 * Parses a US-formatted decimal string ("1,489.00", "1489", "1489.5") into minor units for
 * `currency` — for amounts the promise scan reads out of English text (lib/validation/
 * commitments.ts). Money a PERSON TYPES into a field goes through `parseMoneyInput`
 * (lib/money/money-input.ts), which follows the currency's own conventions. Returns `null` for
 * empty, malformed, or over-precise input. Source: docs/design.md §2.
 */
export function parseMinor(input: string, currency: Currency): number | null {
  const exp = EXPONENT[currency] ?? 2;
  const s = input.trim().replace(/,/g, "");
  if (s === "") return null;
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return null;
  const frac = m[3] ?? "";
  if (frac.length > exp) return null;
  const minor = Number(m[2]) * 10 ** exp + Number(frac.padEnd(exp, "0") || "0");
  if (!Number.isSafeInteger(minor)) return null;
  return m[1] === "-" ? -minor : minor;
}

/** Renders minor units as a plain decimal string for an input field, e.g. 148900 → "1489.00". */
export function minorToDecimal(minor: number, currency: Currency): string {
  const exp = EXPONENT[currency] ?? 2;
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 10 ** exp);
  const frac = String(abs % 10 ** exp).padStart(exp, "0");
  return exp === 0 ? `${sign}${whole}` : `${sign}${whole}.${frac}`;
}
