/**
 * How near a waiting run's deadline is, in words and a tone the queue and the run page colour
 * ("deadlines coloured as they near"; the deadlines themselves: docs/design.md §10,
 * lib/plan/policy.ts). Never colour alone: every tone but `calm` comes with a label.
 */

/** `calm`: nothing to say; `near` (amber); `urgent` and `escalated` (red); `expired` (grey, final). */
export type DeadlineTone = "calm" | "near" | "urgent" | "escalated" | "expired";

/** A deadline's tone and the words shown with it ("" for calm). */
export interface DeadlineUrgency {
  tone: DeadlineTone;
  label: string;
}

/** Under this many minutes left a run is `urgent` (red, "expires soon"); the countdown turns red at the same point. */
export const URGENT_MINUTES = 15;
/** Under this many minutes left (and not yet escalated) a run is `near` (amber, "due soon"). */
export const NEAR_MINUTES = 120;

/**
 * The urgency of a run waiting for a person, at `now`: `expired` at or past `expiresAt`;
 * `urgent` under {@link URGENT_MINUTES} left; `escalated` at or past `escalateAt` (supervisors
 * were told); `near` under {@link NEAR_MINUTES} left; else `calm`. Instants are ISO-8601 UTC.
 * Only waiting runs (`pending_review`, `approved`) have a deadline; any other status is `calm`.
 */
export function deadlineUrgency(run: { status: string; expiresAt: string; escalateAt: string }, now: Date): DeadlineUrgency {
  if (run.status !== "pending_review" && run.status !== "approved") return { tone: "calm", label: "" };
  const left = (new Date(run.expiresAt).getTime() - now.getTime()) / 60_000;
  if (left <= 0) return { tone: "expired", label: "expired" };
  if (left < URGENT_MINUTES) return { tone: "urgent", label: "expires soon" };
  if (now.getTime() >= new Date(run.escalateAt).getTime()) return { tone: "escalated", label: "escalated" };
  if (left < NEAR_MINUTES) return { tone: "near", label: "due soon" };
  return { tone: "calm", label: "" };
}
