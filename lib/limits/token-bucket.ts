/**
 * A token bucket: the rate limit designed for agent API keys (docs/security.md "Per-key and
 * per-person rate limits"). Pure: the state is meant to live in the database, one row per key,
 * updated by one conditional statement that applies exactly this arithmetic (so instances share it).
 *
 * A bucket holds at most `capacity` tokens (the burst) and gains `refillPerSecond` tokens per
 * second, continuously; a request takes one token, or is refused when less than one is left —
 * with the whole seconds until one is there (what `Retry-After` says). A refused request takes
 * nothing, so a caller hammering past the rate does not push its own recovery further out.
 */

/** A bucket's rule: burst `capacity` (≥ 1 token) and `refillPerSecond` (> 0 tokens per second). */
export interface BucketRule {
  capacity: number;
  refillPerSecond: number;
}

/** A stored bucket: its tokens (a real number, 0 … capacity) as of `refilledAt` (UTC). */
export interface BucketState {
  tokens: number;
  refilledAt: Date;
}

/** The decision for one request: the bucket to store, whether it may proceed, and when to retry otherwise. */
export interface BucketDecision {
  state: BucketState;
  allowed: boolean;
  /** Whole seconds until a token is there (≥ 1 when refused; 0 when allowed). */
  retryAfterSeconds: number;
}

/** The tokens of `state` at `now` (refilled, capped at capacity; a clock that went back adds nothing). A missing bucket is full. */
export function tokensAt(state: BucketState | null, rule: BucketRule, now: Date): number {
  if (!state) return rule.capacity;
  const elapsed = Math.max(0, (now.getTime() - state.refilledAt.getTime()) / 1000);
  return Math.min(rule.capacity, state.tokens + elapsed * rule.refillPerSecond);
}

/** One request at `now` against `state` (null: no bucket yet, i.e. full). */
export function takeToken(state: BucketState | null, rule: BucketRule, now: Date): BucketDecision {
  const tokens = tokensAt(state, rule, now);
  if (tokens >= 1) return { state: { tokens: tokens - 1, refilledAt: now }, allowed: true, retryAfterSeconds: 0 };
  return { state: { tokens, refilledAt: now }, allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rule.refillPerSecond)) };
}
