/**
 * Skip and snooze (docs/design.md "Skip and snooze"): a person parks a waiting run so it leaves
 * their "next" (approve & next, reject & next, hand off & next) until a time they chose or until
 * the run changes. Plain logic: the server reads the rows, this decides.
 */

/** Why a run is parked: skipped (until it changes), snoozed (until a time, or a change) or handed off. */
export type ParkKind = "skip" | "snooze" | "handoff";

/** The longest a snooze may last: 30 days. */
export const MAX_SNOOZE_MS = 30 * 24 * 60 * 60 * 1000;

/** A park as stored: when it was made, until when, and the run's state at that moment. */
export interface ParkSnapshot {
  kind: ParkKind;
  /** When the park ends by itself; null: only a change of the run ends it. */
  until: Date | null;
  parkedAt: Date;
  planVersion: number;
  taskRevision: number;
  status: string;
}

/** The run as it is now, as far as a park cares. */
export interface ParkedRunNow {
  planVersion: number;
  taskRevision: number;
  status: string;
  /** When someone other than the parker last decided (approved) a step of the run; null: never. */
  lastOtherDecisionAt: Date | null;
}

/**
 * Whether a park still holds at `now`: its time has not come, and the run has not changed since it
 * was parked — no new plan version (an edit or a new submission), no new task revision, no change
 * of status, and no decision by someone other than the parker after the park.
 */
export function parkHolds(park: ParkSnapshot, run: ParkedRunNow, now: Date): boolean {
  if (park.until && park.until.getTime() <= now.getTime()) return false;
  if (run.planVersion !== park.planVersion || run.taskRevision !== park.taskRevision || run.status !== park.status) return false;
  if (run.lastOtherDecisionAt && run.lastOtherDecisionAt.getTime() > park.parkedAt.getTime()) return false;
  return true;
}

/** The result of checking a requested snooze end: the time, or why it is refused. */
export type UntilCheck = { ok: true; until: Date | null } | { ok: false; message: string };

/**
 * Checks the `until` a person asked for: null (until the run changes) or an ISO-8601 time after
 * `now` and at most 30 days ahead.
 */
export function checkUntil(until: string | null | undefined, now: Date): UntilCheck {
  if (until === null || until === undefined) return { ok: true, until: null };
  const t = new Date(until);
  if (Number.isNaN(t.getTime())) return { ok: false, message: "`until` must be an ISO-8601 time." };
  if (t.getTime() <= now.getTime()) return { ok: false, message: "`until` must be in the future." };
  if (t.getTime() - now.getTime() > MAX_SNOOZE_MS) return { ok: false, message: "A snooze lasts at most 30 days." };
  return { ok: true, until: t };
}

/** A snooze choice the run page offers: its label and the time it ends. */
export interface SnoozeChoice {
  label: string;
  until: Date;
}

/**
 * The snooze choices offered at `now`: 1 hour, 4 hours, and tomorrow at 09:00 in the person's own
 * time zone (`offsetMinutes`: minutes east of UTC, e.g. 60 for Oslo in winter).
 */
export function snoozeChoices(now: Date, offsetMinutes = 0): SnoozeChoice[] {
  const hour = 60 * 60 * 1000;
  const local = new Date(now.getTime() + offsetMinutes * 60 * 1000);
  const tomorrowLocal = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 1, 9, 0, 0);
  return [
    { label: "1 hour", until: new Date(now.getTime() + hour) },
    { label: "4 hours", until: new Date(now.getTime() + 4 * hour) },
    { label: "Tomorrow 09:00", until: new Date(tomorrowLocal - offsetMinutes * 60 * 1000) },
  ];
}
