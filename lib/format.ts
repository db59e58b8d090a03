import { differenceInMinutes, format, parseISO } from "date-fns";

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
  const mins = differenceInMinutes(new Date(isoInstant), now);
  return mins > 0 ? `in ${formatMinutes(mins)}` : `expired ${formatMinutes(-mins)} ago`;
}

/** "3 Dec 2026, 14:05 UTC" for an instant. */
export function formatInstant(isoInstant: string): string {
  const d = new Date(isoInstant);
  return `${format(new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()), "d MMM yyyy, HH:mm")} UTC`;
}

/** Human label of a run status, e.g. "pending_review" → "Pending review". */
export function statusLabel(status: string): string {
  const s = status.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
