import type { Caller } from "../../api/contract";
import { DomainError } from "../../errors/domain-error";
import type { BucketRule } from "../../limits/token-bucket";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { countRateRefusal, minuteOf } from "../audit-log/refusal-counts";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { currentRequest, markDenialHandled } from "../http/request-context";
import { takeRateToken } from "./rate-bucket";
import { log } from "../../net/log.mjs";

/**
 * The API's rate limits (docs/security.md "Per-key and per-person rate limits"): every
 * request of an agent API key, an integration key or a person's session takes one token of its
 * caller's bucket after authentication and before anything of the request is read (the route
 * wrapper, lib/server/route/route.ts), so a refused request saves nothing and leaves its
 * `Idempotency-Key` free. Beyond the rate: 429 `rate_limited {retryAfterSeconds}` with
 * `Retry-After`. Such refusals are counted, not audited one by one: one `refusal_count` upsert per
 * (UTC minute, bucket key, route), and the bucket's first refusal of a minute also writes one
 * `denied` event naming the caller (so /denials shows who); the rest of that minute only counts.
 * The rules are read from the environment on every request (lib/server/config/config.ts).
 */

/** The caller of an API request, as its bucket knows it. */
export type RateLimitedCaller =
  | { kind: "agent"; agentId: string; keyId: string }
  | { kind: "integration"; keyId: string }
  | { kind: "person"; userId: string };

/** A caller's bucket: its key in `rate_bucket`, its rule, who it is for the audit log, and the words for it. */
export interface CallerBucket {
  key: string;
  rule: BucketRule;
  actor: Actor;
  /** "agent key", "integration key" or "person". */
  per: string;
}

/** The bucket of `caller` under the rules in `env` (default: the process environment). */
export function bucketOf(caller: RateLimitedCaller, env: Record<string, string | undefined> = process.env): CallerBucket {
  const rules = serverConfig(env).rateLimits;
  switch (caller.kind) {
    case "agent":
      return { key: `agent-key:${caller.keyId}`, rule: rules.agent, actor: { kind: "agent", id: caller.agentId }, per: "agent key" };
    case "integration":
      return { key: `integration-key:${caller.keyId}`, rule: rules.integration, actor: { kind: "integration", id: caller.keyId }, per: "integration key" };
    case "person":
      return { key: `person:${caller.userId}`, rule: rules.person, actor: { kind: "user", id: caller.userId }, per: "person" };
  }
}

/** "at most 60 requests at once, then 10 per second per agent key" */
export function ruleInWords(bucket: Pick<CallerBucket, "rule" | "per">): string {
  const rate = Number(bucket.rule.refillPerSecond.toPrecision(6)).toLocaleString("en-US", { maximumFractionDigits: 6 });
  const burst = bucket.rule.capacity;
  return `at most ${burst.toLocaleString("en-US")} request${burst === 1 ? "" : "s"} at once, then ${rate} per second per ${bucket.per}`;
}

/**
 * An authenticated caller as the route wrapper has it (lib/server/auth/session.ts's `AgentCaller`,
 * `IntegrationCaller` or `Viewer`, described by shape so this module does not depend on auth):
 * its id — the agent's, the integration key's or the person's — and, for an agent, its key's id.
 */
export interface AuthenticatedCaller {
  id: string;
  keyId?: string;
}

/**
 * The rate limit of one API request, as the route wrapper calls it right after authenticating the
 * caller its declaration names (`kind`): an agent key's, an integration key's or a person's bucket
 * gives one token ({@link takeRequestToken}); a public endpoint has no caller and no limit.
 */
export async function takeCallerToken(kind: Caller["kind"], caller: AuthenticatedCaller | null, now = new Date()): Promise<void> {
  if (!caller || kind === "public") return;
  if (kind === "agent") return takeRequestToken({ kind: "agent", agentId: caller.id, keyId: caller.keyId ?? caller.id }, now);
  if (kind === "integration") return takeRequestToken({ kind: "integration", keyId: caller.id }, now);
  return takeRequestToken({ kind: "person", userId: caller.id }, now);
}

/**
 * Takes one token for the current request of `caller` at `now`; returns when it may proceed.
 * Errors: 429 `rate_limited` {retryAfterSeconds} (the answer's `Retry-After`) beyond the rate —
 * counted per (minute, bucket, route) and, for the bucket's first refusal of the minute, audited
 * once as `denied` {action: "rate", code, reason, missing, bucket, keyId?, route, burst,
 * ratePerSecond, retryAfterSeconds}; the request's refusal is then on the record, so the route
 * wrapper writes no event of its own. A failure to count or audit is logged, never a different answer.
 */
export async function takeRequestToken(caller: RateLimitedCaller, now = new Date()): Promise<void> {
  const bucket = bucketOf(caller);
  const decision = await takeRateToken(prisma, bucket.key, bucket.rule, now);
  if (decision.allowed) return;
  const { retryAfterSeconds } = decision;
  const ctx = currentRequest();
  const route = ctx?.route ?? "unknown route";
  const message = `Too many requests: ${ruleInWords(bucket)}. Try again in ${retryAfterSeconds} s.`;
  try {
    await countRateRefusal({ key: bucket.key, route }, now);
    if (await firstRefusalOfMinute(bucket.key, now)) {
      await appendAudit(prisma, {
        type: "denied",
        actor: bucket.actor,
        data: {
          action: "rate",
          code: "rate_limited",
          reason: message,
          missing: `fewer requests (${ruleInWords(bucket)}); later refusals of this minute are counted`,
          bucket: bucket.key,
          ...(caller.kind === "person" ? {} : { keyId: caller.keyId }),
          route,
          burst: bucket.rule.capacity,
          ratePerSecond: bucket.rule.refillPerSecond,
          retryAfterSeconds,
        },
      });
    }
  } catch (e) {
    log.error({ err: e }, "plandesk: could not count a rate-limit refusal");
  }
  // counted (and audited once a minute) above: no `refused` event per request
  markDenialHandled();
  throw new DomainError("rate_limited", message, { retryAfterSeconds });
}

/**
 * Whether this is the bucket's first refusal in the UTC minute of `now`: one conditional update
 * of the bucket's `refusedMinute`, so of parallel refusals on any instance exactly one is first.
 */
async function firstRefusalOfMinute(key: string, now: Date): Promise<boolean> {
  const minute = minuteOf(now);
  const marked = await prisma.rateBucket.updateMany({ where: { key, OR: [{ refusedMinute: null }, { refusedMinute: { lt: minute } }] }, data: { refusedMinute: minute } });
  return marked.count === 1;
}
