import { addDaysIso, isIsoDate } from "./dates";

/**
 * The new last day of a delivery window whose first day moved from `prevFrom` to `nextFrom`:
 * the window keeps its length (as calendars move an event's end with its start, so
 * rescheduling is one change). ISO `YYYY-MM-DD` UTC dates; returns `to` unchanged when any date
 * is not a real ISO date.
 */
export function followFrom(prevFrom: unknown, nextFrom: unknown, to: unknown): unknown {
  if (!isIsoDate(prevFrom) || !isIsoDate(nextFrom) || !isIsoDate(to)) return to;
  const days = Math.round((Date.parse(`${nextFrom}T00:00:00Z`) - Date.parse(`${prevFrom}T00:00:00Z`)) / 86_400_000);
  return addDaysIso(to, days);
}
