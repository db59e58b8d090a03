import { accountKey, addressKey, decide, type LimitDecision, type LimitRule, type LimitWindow } from "../../people/sign-in-limit";
import { appendAudit } from "../audit-log/append-audit";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { inTransaction, ok, type Tx } from "../db/transaction";

/**
 * Sign-in limits stored in the database, so several instances share them:
 * - per client address: PLANDESK_SIGNIN_LIMIT attempts (default 20) per 60 seconds, every
 *   attempt counted — the address comes from the `x-plandesk-client-ip` header the custom
 *   server sets from the TCP socket (scripts/server.mjs), never from X-Forwarded-For directly;
 * - per account (the email asked for, whether or not it exists, so refusals reveal nothing):
 *   PLANDESK_SIGNIN_ACCOUNT_LIMIT failed attempts (default 10) per 15 minutes, from any address.
 *   An attempt is counted before the password check and handed back when the sign-in succeeds.
 * Windows are fixed (lib/people/sign-in-limit.ts): a lockout ends by itself when its window ends.
 * Each lockout (the first refused attempt of a window) is audited once as `denied`
 * {action: "sign_in", code: "rate_limited", scope, email, address, limit, windowSeconds}, actor
 * anonymous, so admins and supervisors see it on /denials.
 */

/** Window of the per-address limit (seconds). */
export const ADDRESS_WINDOW_SECONDS = 60;
/** Window of the per-account limit (seconds). */
export const ACCOUNT_WINDOW_SECONDS = 15 * 60;

/** The rules in force (read from the environment on every call, so tests may change them). */
export function signInRules(env: Record<string, string | undefined> = process.env): { address: LimitRule; account: LimitRule } {
  const config = serverConfig(env);
  return {
    address: { max: config.signInLimit, windowSeconds: ADDRESS_WINDOW_SECONDS },
    account: { max: config.signInAccountLimit, windowSeconds: ACCOUNT_WINDOW_SECONDS },
  };
}

/** Admitted (keep `accountWindow` to hand the attempt back on success), or refused with the seconds until a retry can pass. */
export type SignInAdmission =
  | { allowed: true; accountKey: string | null; accountWindow: Date | null }
  | { allowed: false; scope: "address" | "account"; retryAfterSeconds: number };

/**
 * Counts one sign-in attempt by `email` (null when the request named none) from `address`
 * (the custom server's client address; null/garbage counts as "unknown"). The address is
 * checked first; an attempt its address may not make is not counted against the account (an
 * attacker's refused flood must not lock the real user out from their own address).
 * One transaction; the counters are updated with atomic conditional writes.
 */
export async function admitSignIn(input: { email: string | null; address: string | null }, now = new Date()): Promise<SignInAdmission> {
  const rules = signInRules();
  const aKey = addressKey(input.address);
  const eKey = input.email ? accountKey(input.email) : null;
  return inTransaction<SignInAdmission>(async (tx) => {
    const byAddress = decide(await count(tx, aKey, rules.address, now), rules.address, now);
    if (!byAddress.allowed) {
      if (byAddress.lockedNow) await auditLockout(tx, "address", input, rules.address, byAddress);
      return ok({ allowed: false, scope: "address", retryAfterSeconds: byAddress.retryAfterSeconds });
    }
    if (!eKey) return ok({ allowed: true, accountKey: null, accountWindow: null });
    const byAccount = decide(await count(tx, eKey, rules.account, now), rules.account, now);
    if (!byAccount.allowed) {
      if (byAccount.lockedNow) await auditLockout(tx, "account", input, rules.account, byAccount);
      return ok({ allowed: false, scope: "account", retryAfterSeconds: byAccount.retryAfterSeconds });
    }
    return ok({ allowed: true, accountKey: eKey, accountWindow: byAccount.window.windowStart });
  });
}

/** Hands back the account attempt of a sign-in that succeeded (same window only; never below zero). */
export async function refundSignIn(admission: SignInAdmission): Promise<void> {
  if (!admission.allowed || !admission.accountKey || !admission.accountWindow) return;
  await prisma.signInLimit.updateMany({
    where: { key: admission.accountKey, windowStart: admission.accountWindow, attempts: { gt: 0 } },
    data: { attempts: { decrement: 1 } },
  });
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

async function auditLockout(tx: Tx, scope: "address" | "account", input: { email: string | null; address: string | null }, rule: LimitRule, d: LimitDecision) {
  const what = scope === "address" ? `${rule.max} sign-in attempts per ${rule.windowSeconds} s from one address` : `${rule.max} failed sign-ins per ${rule.windowSeconds / 60} min for one account`;
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
