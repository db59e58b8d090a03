import { accountAddressKey, accountKey, addressKey, decide, type LimitDecision, type LimitRule, type LimitWindow } from "../../people/sign-in-limit";
import { appendAudit } from "../audit-log/append-audit";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { inTransaction, ok, type Tx } from "../db/transaction";

/**
 * Sign-in limits stored in the database, so several instances share them:
 * - per client address: PLANDESK_SIGNIN_LIMIT attempts (default 20) per 60 seconds, every
 *   attempt counted (whatever its origin, body or outcome) — the address comes from the
 *   `x-plandesk-client-ip` header the custom server sets from the TCP socket (scripts/server.mjs),
 *   never from X-Forwarded-For directly;
 * - per account and client address: PLANDESK_SIGNIN_ACCOUNT_LIMIT failed passwords (default 10)
 *   per 15 minutes — the account is the email asked for, whether or not it exists, so refusals
 *   reveal nothing. A stranger's wrong passwords lock their own address out of the account, never
 *   the person at another address;
 * - per account from all addresses: PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT failed passwords
 *   (default 100) per hour, so a guesser spread over many addresses is still slowed.
 * Only a failed password counts against the account counters: better-auth's invalid-credentials
 * answer to a same-origin request. The account counters are checked before the password check
 * and an attempt is reserved on them then (so parallel attempts cannot slip past), and handed
 * back afterwards unless the password failed: successes, foreign-origin refusals and malformed
 * bodies do not count. Attempts refused by a full window stay counted but never extend it.
 * Windows are fixed (lib/people/sign-in-limit.ts): a lockout ends by itself when its window ends.
 * Each lockout (the first refused attempt of a window) is audited once as `denied`
 * {action: "sign_in", code: "rate_limited", scope, email, address, limit, windowSeconds}, actor
 * anonymous, so admins and supervisors see it on /denials. `scope` is "address", "account" (the
 * account from this address) or "account_all_addresses".
 */

/** Window of the per-address limit (seconds). */
export const ADDRESS_WINDOW_SECONDS = 60;
/** Window of the per-account-and-address limit (seconds). */
export const ACCOUNT_WINDOW_SECONDS = 15 * 60;
/** Window of the per-account limit across all addresses (seconds). */
export const ACCOUNT_GLOBAL_WINDOW_SECONDS = 60 * 60;

/** The rules in force (read from the environment on every call, so tests may change them). */
export function signInRules(env: Record<string, string | undefined> = process.env): { address: LimitRule; account: LimitRule; accountGlobal: LimitRule } {
  const config = serverConfig(env);
  return {
    address: { max: config.signInLimit, windowSeconds: ADDRESS_WINDOW_SECONDS },
    account: { max: config.signInAccountLimit, windowSeconds: ACCOUNT_WINDOW_SECONDS },
    accountGlobal: { max: config.signInAccountGlobalLimit, windowSeconds: ACCOUNT_GLOBAL_WINDOW_SECONDS },
  };
}

/** Which counter refused an attempt. */
export type SignInScope = "address" | "account" | "account_all_addresses";

/** One attempt reserved on an account counter: its key and the window it was counted in. */
export interface ReservedAttempt {
  key: string;
  windowStart: Date;
}

/** Admitted (keep `reserved` to settle the attempt after the password check), or refused with the seconds until a retry can pass. */
export type SignInAdmission =
  | { allowed: true; reserved: ReservedAttempt[]; knownKey?: string }
  | { allowed: false; scope: SignInScope; retryAfterSeconds: number };

/**
 * Admits one sign-in attempt by `email` (null when the request named none) from `address`
 * (the custom server's client address; null/garbage counts as "unknown"). The address is
 * counted and checked first; an attempt its address may not make touches no account counter.
 * When `sameOrigin` and an email is named, the attempt is then checked against (and reserved
 * on) the account-and-address counter, then the account's all-address counter; a refusal by the
 * second hands the first's reservation back. Settle an admitted attempt with `settleSignIn`.
 * One transaction; the counters are updated with atomic conditional writes.
 */
export async function admitSignIn(input: { email: string | null; address: string | null; sameOrigin: boolean }, now = new Date()): Promise<SignInAdmission> {
  const rules = signInRules();
  const aKey = addressKey(input.address);
  const pairKey = input.email ? accountAddressKey(input.email, input.address) : null;
  const globalKey = input.email ? accountKey(input.email) : null;
  return inTransaction<SignInAdmission>(async (tx) => {
    const byAddress = decide(await count(tx, aKey, rules.address, now), rules.address, now);
    if (!byAddress.allowed) {
      if (byAddress.lockedNow) await auditLockout(tx, "address", input, rules.address, byAddress);
      return ok({ allowed: false, scope: "address", retryAfterSeconds: byAddress.retryAfterSeconds });
    }
    if (!pairKey || !globalKey || !input.sameOrigin) return ok({ allowed: true, reserved: [] });
    const byPair = decide(await count(tx, pairKey, rules.account, now), rules.account, now);
    if (!byPair.allowed) {
      if (byPair.lockedNow) await auditLockout(tx, "account", input, rules.account, byPair);
      return ok({ allowed: false, scope: "account", retryAfterSeconds: byPair.retryAfterSeconds });
    }
    const byAccount = decide(await count(tx, globalKey, rules.accountGlobal, now), rules.accountGlobal, now);
    // The slower bound across all addresses slows a guesser spread over many addresses; it does not
    // keep the person out from an address they signed in from within the last day (KNOWN_ADDRESS).
    const known = !byAccount.allowed && (await tx.signInLimit.findUnique({ where: { key: knownAddressKey(pairKey) }, select: { key: true } })) !== null;
    if (!byAccount.allowed && !known) {
      await handBack(tx, { key: pairKey, windowStart: byPair.window.windowStart });
      if (byAccount.lockedNow) await auditLockout(tx, "account_all_addresses", input, rules.accountGlobal, byAccount);
      return ok({ allowed: false, scope: "account_all_addresses", retryAfterSeconds: byAccount.retryAfterSeconds });
    }
    return ok({
      allowed: true,
      reserved: [
        { key: pairKey, windowStart: byPair.window.windowStart },
        { key: globalKey, windowStart: byAccount.window.windowStart },
      ],
      knownKey: knownAddressKey(pairKey),
    });
  });
}

/** The marker of an account-and-address pair that signed in successfully (its `windowStart`: the last success; forgotten a day later like every counter). */
const knownAddressKey = (pairKey: string) => `known:${pairKey}`;

/**
 * Settles an admitted attempt after the password check: `outcome` "failed" (better-auth answered
 * invalid credentials) keeps its reservations counted; anything else (a success, a refusal for
 * the origin, a malformed body, an error) hands them back (same window only; never below zero).
 * A success also marks the account-and-address pair as known for a day: from there the person
 * passes the all-address bound a stranger may have filled (never the per-pair or per-address ones).
 */
export async function settleSignIn(admission: SignInAdmission, outcome: "failed" | "succeeded" | "other", now = new Date()): Promise<void> {
  if (!admission.allowed || outcome === "failed") return;
  for (const r of admission.reserved) await handBack(prisma, r);
  if (outcome === "succeeded" && admission.knownKey) {
    await prisma.signInLimit.upsert({ where: { key: admission.knownKey }, create: { key: admission.knownKey, windowStart: now, attempts: 0 }, update: { windowStart: now } });
  }
}

/** Takes one attempt off counter `r.key` if it is still in window `r.windowStart` and above zero. */
async function handBack(db: Pick<Tx, "signInLimit">, r: ReservedAttempt): Promise<void> {
  await db.signInLimit.updateMany({ where: { key: r.key, windowStart: r.windowStart, attempts: { gt: 0 } }, data: { attempts: { decrement: 1 } } });
}

/**
 * One more attempt on counter `key`, atomically: incremented inside its window, restarted at
 * `now` when the window ended, created when missing (a concurrent creator makes the insert fail
 * with a unique violation, and inTransaction runs the body again). Returns the stored window.
 */
async function count(tx: Tx, key: string, rule: LimitRule, now: Date): Promise<LimitWindow> {
  const windowOpen = new Date(now.getTime() - rule.windowSeconds * 1000);
  const bumped = await tx.signInLimit.updateMany({ where: { key, windowStart: { gt: windowOpen } }, data: { attempts: { increment: 1 } } });
  if (bumped.count === 0) {
    const restarted = await tx.signInLimit.updateMany({ where: { key, windowStart: { lte: windowOpen } }, data: { windowStart: now, attempts: 1 } });
    if (restarted.count === 0) {
      // Forget counters whose windows ended a day ago (keeps the table small; any instance does it).
      await tx.signInLimit.deleteMany({ where: { windowStart: { lt: new Date(now.getTime() - 24 * 3600 * 1000) } } });
      await tx.signInLimit.create({ data: { key, windowStart: now, attempts: 1 } });
    }
  }
  const row = await tx.signInLimit.findUniqueOrThrow({ where: { key } });
  return { windowStart: row.windowStart, attempts: row.attempts };
}

async function auditLockout(tx: Tx, scope: SignInScope, input: { email: string | null; address: string | null }, rule: LimitRule, d: LimitDecision) {
  const what =
    scope === "address"
      ? `${rule.max} sign-in attempts per ${rule.windowSeconds} s from one address`
      : scope === "account"
        ? `${rule.max} failed sign-ins per ${rule.windowSeconds / 60} min for one account from one address`
        : `${rule.max} failed sign-ins per ${rule.windowSeconds / 60} min for one account from all addresses`;
  await appendAudit(tx, {
    type: "denied",
    actor: { kind: "anonymous" },
    data: {
      action: "sign_in",
      code: "rate_limited",
      reason: `Too many sign-in attempts (${what}); locked for ${d.retryAfterSeconds} s.`,
      missing: `fewer sign-in attempts (at most ${what})`,
      scope,
      email: input.email ? input.email.slice(0, 320) : null,
      address: input.address ?? "unknown",
      limit: rule.max,
      windowSeconds: rule.windowSeconds,
      retryAfterSeconds: d.retryAfterSeconds,
      lockedUntil: new Date(d.window.windowStart.getTime() + rule.windowSeconds * 1000).toISOString(),
    },
  });
}
