/**
 * Waiting-time policy: every pending run has an owner, a deadline and a way out.
 * A run expires `DEFAULT_EXPIRY_SECONDS` after submission (shorter when it holds an
 * irreversible step), capped at `MAX_EXPIRY_SECONDS` whatever the agent asks; it escalates
 * to supervisors when `ESCALATE_FRACTION` of its life has passed. Times in seconds / UTC.
 * Source: docs/design.md §10 (nobody answers), docs/api.md (`expiresInSeconds`, capped by policy).
 */
export const DEFAULT_EXPIRY_SECONDS = 24 * 3600;
export const IRREVERSIBLE_EXPIRY_SECONDS = 8 * 3600;
export const MAX_EXPIRY_SECONDS = 72 * 3600;
export const MIN_EXPIRY_SECONDS = 60;
export const ESCALATE_FRACTION = 0.75;

/**
 * Computes `{expiresAt, escalateAt}` for a run submitted at `now` (UTC).
 * `requestedSeconds` (optional) is clamped to [MIN_EXPIRY_SECONDS, policy ceiling], where the
 * ceiling is IRREVERSIBLE_EXPIRY_SECONDS when `hasIrreversible`, else MAX_EXPIRY_SECONDS.
 */
export function runDeadlines(now: Date, hasIrreversible: boolean, requestedSeconds?: number) {
  const ceiling = hasIrreversible ? IRREVERSIBLE_EXPIRY_SECONDS : MAX_EXPIRY_SECONDS;
  const base = hasIrreversible ? IRREVERSIBLE_EXPIRY_SECONDS : DEFAULT_EXPIRY_SECONDS;
  const seconds = Math.min(ceiling, Math.max(MIN_EXPIRY_SECONDS, Math.floor(requestedSeconds ?? base)));
  const expiresAt = new Date(now.getTime() + seconds * 1000);
  const escalateAt = new Date(now.getTime() + Math.floor(seconds * ESCALATE_FRACTION) * 1000);
  return { expiresAt, escalateAt, seconds };
}

/**
 * Shortens `deadlines` (from `runDeadlines`, submitted at `now`) to what the gate policy asks
 * (expiry and escalation times per rule, lib/gate-policy/evaluate.ts `policyDeadlines`):
 * the run expires no later than `expirySeconds` after `now` (never under MIN_EXPIRY_SECONDS) and
 * escalates no later than `escalateSeconds` after `now`, and always before it expires.
 */
export function withPolicyDeadlines(
  now: Date,
  deadlines: { expiresAt: Date; escalateAt: Date; seconds: number },
  policy: { expirySeconds: number | null; escalateSeconds: number | null },
): { expiresAt: Date; escalateAt: Date; seconds: number } {
  let seconds = deadlines.seconds;
  if (policy.expirySeconds !== null) seconds = Math.min(seconds, Math.max(MIN_EXPIRY_SECONDS, policy.expirySeconds));
  let escalate = Math.floor(seconds * ESCALATE_FRACTION);
  if (seconds === deadlines.seconds) escalate = Math.round((deadlines.escalateAt.getTime() - now.getTime()) / 1000);
  if (policy.escalateSeconds !== null) escalate = Math.min(escalate, policy.escalateSeconds);
  escalate = Math.min(escalate, seconds);
  return { expiresAt: new Date(now.getTime() + seconds * 1000), escalateAt: new Date(now.getTime() + escalate * 1000), seconds };
}

/**
 * How far ahead a delivery may be rescheduled: a window may end at most this many days after
 * today's UTC date (366: one year ahead, a leap day included). Beyond it the step is refused with
 * `window_beyond_horizon` (a date like 9999-12-31 is a typo or a trick, never a plan), and so is
 * any date argument of an imported tool (`date_beyond_horizon`, lib/tools/json-schema-tool.ts). This is the
 * default of the gate-policy setting `dateHorizonDays` (a rule sets it for the steps it governs,
 * between 1 and {@link MAX_DATE_HORIZON_DAYS}); the validator passes it as
 * `BoundsContext.dateHorizonDays`.
 */
export const RESCHEDULE_HORIZON_DAYS = 366;
/** The widest date horizon a gate-policy rule may set: ten years (3,660 days). */
export const MAX_DATE_HORIZON_DAYS = 3660;

/**
 * The widest record-age bound a gate-policy rule may set (`maxRecordAgeMinutes`): one year in
 * minutes (525,600). A rule's bound lies between 1 and this; null (the default) is no bound. A step
 * whose target record was synced longer ago than its governing rule's bound is refused at approval
 * and claim, `stale_account_data` (lib/records/record-age.ts).
 */
export const MAX_RECORD_AGE_MINUTES = 525_600;

/**
 * How long a run that needs a new decision (status `needs_decision`) waits for a person before
 * it escalates to supervisors: 15 minutes (docs/design.md §10: escalated like a waiting run).
 */
export const NEEDS_DECISION_ESCALATE_SECONDS = 15 * 60;

/**
 * When a run that moved to `needs_decision` at `now` (UTC) escalates: after
 * NEEDS_DECISION_ESCALATE_SECONDS, or at three quarters (ESCALATE_FRACTION) of the time left
 * until its unchanged `expiresAt` when that is sooner — never after it expires.
 */
export function needsDecisionEscalateAt(now: Date, expiresAt: Date): Date {
  const left = Math.max(0, expiresAt.getTime() - now.getTime());
  return new Date(now.getTime() + Math.min(NEEDS_DECISION_ESCALATE_SECONDS * 1000, Math.floor(left * ESCALATE_FRACTION)));
}
