import { differenceInCalendarDays, differenceInMinutes, format, parseISO } from "date-fns";
import { formatMoney, type Money } from "../money/format-money";

/**
 * Display helpers shared by server and client components. All inputs are UTC instants
 * (ISO strings) or ISO dates; output is English text. Pure.
 */

/** "Thu 3 Dec 2026" for an ISO date `YYYY-MM-DD` (calendar date, no time zone shift). */
export function formatIsoDate(iso: string): string {
  const d = parseISO(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return iso;
  return format(new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()), "EEE d MMM yyyy");
}

/** A duration in minutes as "3 h 5 min", "45 min", "2 d 4 h". */
export function formatMinutes(total: number): string {
  const m = Math.abs(Math.round(total));
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const mm = m % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${mm} min`;
  return `${mm} min`;
}

/** Age of an instant relative to `now`, e.g. "3 h 5 min ago". */
export function formatAge(isoInstant: string, now: Date): string {
  return `${formatMinutes(differenceInMinutes(now, new Date(isoInstant)))} ago`;
}

/** Time left until `isoInstant`, e.g. "in 5 h 2 min", or "expired 3 min ago". */
export function formatTimeLeft(isoInstant: string, now: Date): string {
  // by the millisecond: under a minute left is not yet "expired 0 min ago"
  const ms = new Date(isoInstant).getTime() - now.getTime();
  if (ms > 0) return ms < 60_000 ? "in under a minute" : `in ${formatMinutes(Math.floor(ms / 60_000))}`;
  return -ms < 60_000 ? "expired just now" : `expired ${formatMinutes(Math.floor(-ms / 60_000))} ago`;
}

/** "3 Dec 2026, 14:05 UTC" for an instant. */
export function formatInstant(isoInstant: string): string {
  const d = new Date(isoInstant);
  return `${format(new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()), "d MMM yyyy, HH:mm")} UTC`;
}

/**
 * The same instant in the viewer's time zone, e.g. ("2026-12-03T14:05:00Z", "Europe/Oslo") →
 * "3 Dec 2026, 15:05 CET" (IANA zone names; the abbreviation is the runtime's, e.g. "GMT+1" where
 * it has none). `null` when `timeZone` is UTC (nothing to add to the UTC time) or unknown to the
 * runtime, or the instant is not a date. Shown next to UTC where time matters.
 */
export function formatInstantIn(isoInstant: string, timeZone: string): string | null {
  const d = new Date(isoInstant);
  if (Number.isNaN(d.getTime())) return null;
  let parts: Intl.DateTimeFormatPart[];
  try {
    const fmt = new Intl.DateTimeFormat("en-GB", { timeZone, day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" });
    if (["UTC", "Etc/UTC", "Etc/GMT", "GMT"].includes(fmt.resolvedOptions().timeZone)) return null;
    parts = fmt.formatToParts(d);
  } catch {
    return null; // an unknown zone name
  }
  const v = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "";
  return `${v("day")} ${v("month")} ${v("year")}, ${v("hour")}:${v("minute")} ${v("timeZoneName")}`;
}

/** Human label of a run status, e.g. "pending_review" → "Pending review". */
export function statusLabel(status: string): string {
  const s = status.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * An ISO date with its shift from a previous one, the one date presentation of the diff and the
 * cards (issue 14): "Mon 7 Dec 2026 (+4 days)", "Wed 2 Dec 2026 (−1 day)", "Thu 3 Dec 2026"
 * without a previous date or when it is the same day. Calendar dates, no time zone shift.
 * A string that is not an ISO date is returned as is.
 */
export function formatDateShift(iso: string, previousIso?: string): string {
  const text = formatIsoDate(iso);
  if (!previousIso || text === iso) return text;
  const a = parseISO(`${iso}T00:00:00Z`);
  const b = parseISO(`${previousIso}T00:00:00Z`);
  if (Number.isNaN(b.getTime())) return text;
  const days = differenceInCalendarDays(a, b);
  if (days === 0) return text;
  return `${text} (${days > 0 ? "+" : "−"}${Math.abs(days)} ${Math.abs(days) === 1 ? "day" : "days"})`;
}

/**
 * A computed provenance's formula for people (issue 14): integers in it that are the minor units
 * of a money value we know (`known`: e.g. the invoice's total, open balance and fees) read as that
 * money, and the result is appended: "318000 × 2/6" with the invoice total 318000 USD and result
 * {106000 USD} → "$3,180.00 × 2/6 = $1,060.00". Other numbers (ratios, counts) stay as written —
 * nothing is guessed. Pure.
 */
export function formatFormula(formula: string, known: readonly Money[], result?: Money): string {
  const currency = result?.currency;
  const byMinor = new Map(known.filter((m) => !currency || m.currency === currency).map((m) => [m.minor, m]));
  const text = formula.replace(/(?<![\d.,/])\d{3,}(?![\d.,]|\s*\/)/g, (n) => {
    const m = byMinor.get(Number(n));
    return m ? formatMoney(m) : n;
  });
  return result && !text.includes("=") ? `${text} = ${formatMoney(result)}` : text;
}

/** A run's browser-tab title: "#74991 · Nordkapp Logistics · 3 steps" (ticket, account, steps of the current plan). */
export function runTabTitle(ticketId: string, accountName: string, stepCount: number): string {
  return `#${ticketId} · ${accountName} · ${stepCount} step${stepCount === 1 ? "" : "s"}`;
}
