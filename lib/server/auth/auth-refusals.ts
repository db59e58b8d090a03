import { DomainError } from "../../errors/domain-error";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { countAnonymousRefusal } from "../audit-log/refusal-counts";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { currentRequest, markDenialHandled } from "../http/request-context";
import { takeRateToken } from "../rate-limits/rate-bucket";
import { log } from "../../net/log.mjs";

/**
 * Refusals while authenticating (docs/security.md "Refused credentials"): a revoked or unknown key,
 * an agent key on the console API, an integration key on an agent route, a session cookie where a
 * key is needed, a disabled person's session, a cross-site request riding on a valid cookie. They
 * happen before the caller's own rate limit can be taken (there is no valid caller), so without this
 * a revoked key replayed in a loop wrote one `denied` event per request to the append-only log.
 *
 * The rule is the rate limits' (lib/server/rate-limits/rate-limit.ts):
 * - **counted**: one `refusal_count` upsert per (UTC minute, presented identity, route, code). The
 *   identity is the key's or person's id (`agent-key:<apiKeyId>`, `integration-key:<id>`,
 *   `person:<userId>`, `agent:<agentId>`) — never the key's text, not even its prefix; a credential
 *   nobody can be found for (an unknown key, no credential) is counted under the client address, so
 *   a flood of random keys makes no row per key;
 * - **audited once a minute**: the refusal that makes a row's count 1 also writes one `denied` event
 *   naming the agent, integration or person (`repeatsCounted: true`); the rest of that minute only
 *   count. Unidentified callers are never audited one by one (as before);
 * - **bounded**: every refused credential takes one token of its client address's bucket
 *   (`auth-failure:<address>`, PLANDESK_AUTH_FAILURE_BURST / _RATE). Past it the answer is 429
 *   `rate_limited {retryAfterSeconds}` with `Retry-After` instead of the 401/403, counted under the
 *   same identity with code `rate_limited`, never audited. Valid credentials never touch that
 *   bucket, so other keys from the same address are unaffected. A refusal costs a constant few
 *   statements (the key lookup, one token, one upsert) and adds no row beyond one per identity,
 *   route, code and minute.
 */

/** What {@link refuseCredential} needs to know of one refused credential. */
export interface CredentialRefusal {
  /** The caller the credential belongs to, when it names one (a revoked key's agent, a disabled person); null for nobody. */
  who: Actor | null;
  /** The refusal as it would be answered without a rate (401 `unauthorized`, 403 `forbidden` / `cross_origin`). */
  err: DomainError;
  /** What was tried ("POST /api/v1/tasks/task_1/runs"), for the audit event and outside an API request. */
  action: string;
  /** What the caller lacked (`session`, `agent_key`, `integration_key`, `person`, `same_origin`), stored in the count row as `missing`. */
  missing: { kind: string } & Record<string, unknown>;
  /** The `Origin` header to keep in the count row (bounded there), or null. */
  origin: string | null;
  /** Extra fields of the audit event (`credential`, `keyId`, `keyPrefix`…); `keyId` also names the identity. */
  extra?: Record<string, unknown>;
  /** The run the refused request named, put on the audit event. */
  runId?: string | null;
}

/**
 * The identity a refused credential is counted under: the key's id when the refusal names one
 * (`extra.keyId`), else the caller's (`person:`, `agent:`, `integration-key:`), else the client
 * address ("unknown" when the server was not told). At most 64 characters (the count row's bound).
 */
export function refusalIdentity(who: Actor | null, extra: Record<string, unknown> | undefined, address: string | null): string {
  const keyId = typeof extra?.keyId === "string" ? extra.keyId : null;
  if (who?.kind === "agent") return keyId ? `agent-key:${keyId}` : `agent:${who.id}`;
  if (who?.kind === "integration") return `integration-key:${keyId ?? who.id}`;
  if (who?.kind === "user") return `person:${who.id}`;
  return address?.trim() || "unknown";
}

/**
 * Deals with one refused credential of the request being handled (see the module comment) and
 * returns the error to throw: `r.err`, or 429 `rate_limited {retryAfterSeconds}` when the client
 * address is past its refused-credential rate. The refusal is marked handled, so the route wrapper
 * writes no event of its own. Errors: whatever the database throws while taking the token (the
 * route wrapper maps a lost connection to 503); a failure to count or audit is logged, never a
 * different answer.
 */
export async function refuseCredential(r: CredentialRefusal, now = new Date()): Promise<DomainError> {
  const ctx = currentRequest();
  const address = ctx?.address ?? null;
  const route = ctx?.route ?? r.action;
  const rule = serverConfig().rateLimits.authFailure;
  const decision = await takeRateToken(prisma, `auth-failure:${(address?.trim() || "unknown").slice(0, 64)}`, rule, now);
  const err = decision.allowed
    ? r.err
    : new DomainError(
        "rate_limited",
        `Too many refused credentials from this address: at most ${rule.capacity.toLocaleString("en-US")} at once, then ${Number(rule.refillPerSecond.toPrecision(6))} per second. Try again in ${decision.retryAfterSeconds} s.`,
        { retryAfterSeconds: decision.retryAfterSeconds },
      );
  markDenialHandled();
  try {
    const count = await countAnonymousRefusal(
      { route, address: refusalIdentity(r.who, r.extra, address), code: err.code, missing: r.missing.kind, origin: r.origin },
      now,
    );
    if (r.who && count === 1 && decision.allowed) {
      await appendAudit(prisma, {
        runId: r.runId ?? null,
        type: "denied",
        actor: r.who,
        data: { action: r.action, code: err.code, reason: err.message, missing: r.missing, ...(r.extra ?? {}), repeatsCounted: true },
      });
    }
  } catch (e) {
    log.error({ err: e }, "plandesk: could not count a refused credential");
  }
  return err;
}
