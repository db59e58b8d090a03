import { log } from "../../net/log.mjs";

/**
 * Webhook configuration, from the environment:
 * - `PLANDESK_WEBHOOK_URL`: where escalations, expiries and hand-offs are POSTed (Slack-compatible
 *   JSON). Unset: no deliveries are written.
 * - `PLANDESK_WEBHOOK_SECRET`: the HMAC-SHA256 key of the `X-Plandesk-Signature` header; required
 *   with the URL (without it nothing is sent, and a warning is logged once).
 * Returns null when webhooks are off.
 */
export function webhookConfig(env: Record<string, string | undefined> = process.env): { url: string; secret: string } | null {
  const url = env.PLANDESK_WEBHOOK_URL?.trim();
  if (!url) return null;
  const secret = env.PLANDESK_WEBHOOK_SECRET?.trim();
  if (!secret) {
    warnOnce("plandesk: PLANDESK_WEBHOOK_URL is set without PLANDESK_WEBHOOK_SECRET; no webhook is sent until the secret is set");
    return null;
  }
  return { url, secret };
}

let warned = false;
function warnOnce(msg: string) {
  if (warned) return;
  warned = true;
  log.warn(msg);
}

/** The audit event types that are sent to the webhook (escalation, expiry, a hand-off by "Request approval"). */
export const WEBHOOK_EVENT_TYPES: ReadonlySet<string> = new Set(["escalated", "expired", "approval_requested"]);

/** Attempts before a delivery is given up (`failed`, listed on /admin/webhooks with retry-now). */
export const MAX_ATTEMPTS = 8;
/** First retry delay; doubled per attempt up to BACKOFF_CAP_MS. */
export const BACKOFF_BASE_MS = 10_000;
/** Longest wait between two attempts (one hour). */
export const BACKOFF_CAP_MS = 60 * 60_000;
/** How long a claimed attempt holds its delivery before another worker may take it (a crashed sender). */
export const CLAIM_LEASE_MS = 60_000;
/** Time a receiver has to answer. */
export const SEND_TIMEOUT_MS = 10_000;

/** Delay before attempt `attempts + 1` after `attempts` failed ones: base · 2^(attempts−1), capped. */
export function backoffMs(attempts: number, base = BACKOFF_BASE_MS, cap = BACKOFF_CAP_MS): number {
  return Math.min(cap, base * 2 ** Math.max(0, attempts - 1));
}
