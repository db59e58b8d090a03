/**
 * Calendar-date helpers for ISO `YYYY-MM-DD` strings. Every date in Plandesk is a UTC
 * calendar date; no local time zone is ever consulted. Pure functions, no I/O.
 * Source: docs/design.md §2 ("dates are ISO dates"), lib/desk/snapshot.ts ("All times are UTC").
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * True when `s` is `YYYY-MM-DD` AND names a real calendar day (so "2026-02-30" is false).
 * Never throws, whatever the input.
 */
export function isIsoDate(s: unknown): s is string {
  if (typeof s !== "string") return false;
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const dt = utcMidnight(y, mo - 1, d);
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/** Midnight UTC of (year, zero-based month, day); unlike `Date.UTC`, years 0–99 stay literal. */
function utcMidnight(year: number, month: number, day: number): Date {
  const dt = new Date(0);
  dt.setUTCFullYear(year, month, day);
  return dt;
}

/** The UTC calendar date of an instant, e.g. `2026-04-01T23:30:00-02:00` → "2026-04-02". */
export function utcDateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Adds `days` (may be negative) to an ISO date and returns an ISO date.
 * Precondition: `iso` satisfies {@link isIsoDate}; otherwise the result is unspecified.
 */
export function addDaysIso(iso: string, days: number): string {
  const [y, m, d] = iso.split("-").map(Number);
  const dt = utcMidnight(y, m - 1, d);
  dt.setUTCDate(dt.getUTCDate() + days);
  return dt.toISOString().slice(0, 10);
}

/** `utcDateOf(now)` shifted by `days`: the fixture and test helper for "n days from now". */
export function daysFromNow(now: Date, days: number): string {
  return addDaysIso(utcDateOf(now), days);
}

/**
 * Formats an ISO date for people in English, UTC, e.g. "2026-04-04" → "Saturday, April 4".
 * Used in customer-facing text such as the reference reply. Precondition: a valid ISO date.
 */
export function formatLongDate(iso: string): string {
  const [y, m, d] = iso.split("-").map(Number);
  return new Intl.DateTimeFormat("en-US", {
    timeZone: "UTC",
    weekday: "long",
    month: "long",
    day: "numeric",
  }).format(utcMidnight(y, m - 1, d));
}
