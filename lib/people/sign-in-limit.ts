/**
 * Sign-in limits: how many sign-in attempts a client address, and how many failed
 * attempts an account (from one address, and from all addresses together), may make in a window. Pure: the counters live in the database
 * (lib/server/auth/sign-in-limits.ts) so every instance shares them.
 *
 * Each counter is a FIXED window that starts at its first attempt and lasts `windowSeconds`;
 * attempts refused while the window is full are still counted but never extend it, so a lockout
 * ends at most `windowSeconds` after it began — an attacker cannot keep the real user out by
 * hammering (they can only refill the next window, and the per-address limit slows that).
 */

/** A limit: at most `max` attempts per `windowSeconds` (seconds). */
export interface LimitRule {
  max: number;
  windowSeconds: number;
}

/** One stored counter: when its window began (UTC) and how many attempts it holds. */
export interface LimitWindow {
  windowStart: Date;
  attempts: number;
}

/** The decision for one more attempt against a counter. */
export interface LimitDecision {
  /** The counter after this attempt (to store). */
  window: LimitWindow;
  /** Whether the attempt may proceed (attempts ≤ max). */
  allowed: boolean;
  /** True for the first refused attempt of a window: the moment of lockout (audited once). */
  lockedNow: boolean;
  /** Whole seconds until the window ends (≥ 1); what Retry-After says when refused. */
  retryAfterSeconds: number;
}

/**
 * The window after one more attempt at `now` on `current` (null: no counter yet). A window that
 * ended (now ≥ windowStart + windowSeconds) starts afresh at `now` with one attempt. The database
 * does the same atomically (lib/server/auth/sign-in-limits.ts); this is its specification.
 */
export function nextWindow(current: LimitWindow | null, rule: LimitRule, now: Date): LimitWindow {
  const expired = !current || now.getTime() >= current.windowStart.getTime() + rule.windowSeconds * 1000;
  return expired ? { windowStart: now, attempts: 1 } : { windowStart: current.windowStart, attempts: current.attempts + 1 };
}

/** Whether the attempt that brought the counter to `window` may proceed, and for how long it is locked otherwise. */
export function decide(window: LimitWindow, rule: LimitRule, now: Date): LimitDecision {
  const endsAt = window.windowStart.getTime() + rule.windowSeconds * 1000;
  return {
    window,
    allowed: window.attempts <= rule.max,
    lockedNow: window.attempts === rule.max + 1,
    retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)),
  };
}

/** One attempt at `now` on `current`: `decide(nextWindow(current, rule, now), rule, now)`. */
export function countAttempt(current: LimitWindow | null, rule: LimitRule, now: Date): LimitDecision {
  return decide(nextWindow(current, rule, now), rule, now);
}

/**
 * The counter key of a client address: `address:<ip>`; IPv6 addresses are counted per /64
 * (one customer network holds a whole /64, so single addresses would be free to rotate).
 * Anything that is not an address is counted as `address:unknown`.
 */
export function addressKey(address: string | null | undefined): string {
  const a = (address ?? "").trim().toLowerCase();
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(a)) return `address:${a}`;
  if (a.includes(":") && /^[0-9a-f:]+$/.test(a)) return `address:${ipv6Prefix64(a)}::/64`;
  return "address:unknown";
}

/** The first four groups of an IPv6 address (expanded, no leading zeros), e.g. "2001:db8:0:1". */
function ipv6Prefix64(a: string): string {
  const [left, right = ""] = a.split("::");
  const l = left ? left.split(":") : [];
  const r = a.includes("::") && right ? right.split(":") : [];
  const groups = a.includes("::") ? [...l, ...Array(Math.max(0, 8 - l.length - r.length)).fill("0"), ...r] : l;
  return groups
    .slice(0, 4)
    .map((g) => (g ? parseInt(g, 16).toString(16) : "0"))
    .join(":");
}

/** The counter key of an account: `account:<email>`, trimmed, lower case, at most 320 characters. */
export function accountKey(email: string): string {
  return `account:${email.trim().toLowerCase().slice(0, 320)}`;
}

/**
 * The counter key of an account seen from one client address: `account:<email>|<addressKey>`
 * (the email as in `accountKey`, the address as in `addressKey`, so an IPv6 /64 is one address).
 * Failed passwords lock this pair only: a stranger elsewhere cannot lock a person out.
 */
export function accountAddressKey(email: string, address: string | null | undefined): string {
  return `${accountKey(email)}|${addressKey(address)}`;
}
