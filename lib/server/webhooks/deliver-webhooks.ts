import { createHmac } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import { startBackgroundLoop } from "../load/background-loop";
import { backoffMs, BACKOFF_BASE_MS, BACKOFF_CAP_MS, CLAIM_LEASE_MS, MAX_ATTEMPTS, SEND_TIMEOUT_MS, webhookConfig } from "./webhook-config";
import { log } from "../../net/log.mjs";

/**
 * `X-Plandesk-Signature` of a delivery: `sha256=` + hex HMAC-SHA256 with the shared secret of
 * `<timestamp>.<body>` (timestamp: the `X-Plandesk-Timestamp` header, Unix seconds). A receiver
 * recomputes it over the raw body and refuses an old timestamp (replay).
 */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Options of one delivery pass (tests shorten the backoff and pass their own client). */
export interface DeliverOptions {
  now?: Date;
  db?: PrismaClient;
  secret?: string;
  limit?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  maxAttempts?: number;
  fetchImpl?: typeof fetch;
}

/** What one pass did: delivery ids delivered, retried later, and given up. */
export interface DeliverResult {
  delivered: string[];
  retrying: string[];
  failed: string[];
}

/**
 * Sends the due webhook deliveries: at most `limit` (default 20) `pending` rows whose
 * `nextAttemptAt` has passed, oldest first. Each attempt is CLAIMED first with a conditional update
 * (`attempts` and `nextAttemptAt` as read; sets attempts+1 and a lease of CLAIM_LEASE_MS), so two
 * workers — two instances — never send one attempt twice. Then POSTs the stored payload with
 * `X-Plandesk-Signature`, `X-Plandesk-Timestamp` and `X-Plandesk-Delivery` (the id, for the receiver's
 * dedupe). A 2xx marks it `delivered`; anything else records `lastStatus`/`lastError` and schedules
 * the next attempt after `backoffMs(attempts)`, or marks it `failed` after the last attempt.
 * Without a configured secret nothing is sent.
 */
export async function deliverDueWebhooks(opts: DeliverOptions = {}): Promise<DeliverResult> {
  const db = opts.db ?? prisma;
  const now = opts.now ?? new Date();
  const secret = opts.secret ?? webhookConfig()?.secret;
  const result: DeliverResult = { delivered: [], retrying: [], failed: [] };
  if (!secret) return result;
  const max = opts.maxAttempts ?? MAX_ATTEMPTS;
  const due = await db.webhookDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: "asc" },
    take: opts.limit ?? 20,
  });
  for (const d of due) {
    // The clock at this claim, not at the pass's start: a pass of slow receivers must not hand out
    // leases that have already run out (another instance would send the same attempt again).
    const at = opts.now ?? new Date();
    const claimed = await db.webhookDelivery.updateMany({
      where: { id: d.id, status: "pending", attempts: d.attempts, nextAttemptAt: d.nextAttemptAt },
      data: { attempts: d.attempts + 1, nextAttemptAt: new Date(at.getTime() + CLAIM_LEASE_MS) },
    });
    if (claimed.count !== 1) continue; // another worker has this attempt
    const attempts = d.attempts + 1;
    const body = JSON.stringify(d.payload);
    const timestamp = String(Math.floor(at.getTime() / 1000));
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await (opts.fetchImpl ?? fetch)(d.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Plandesk-Webhook/1",
          "x-plandesk-timestamp": timestamp,
          "x-plandesk-signature": signWebhook(secret, timestamp, body),
          "x-plandesk-delivery": d.id,
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      status = res.status;
      if (res.status < 200 || res.status >= 300) error = `The receiver answered ${res.status}: ${(await res.text().catch(() => "")).slice(0, 300)}`;
      else await res.body?.cancel().catch(() => {});
    } catch (e) {
      error = `Could not reach the receiver: ${(e as Error).message}`.slice(0, 500);
    }
    if (!error) {
      await db.webhookDelivery.updateMany({ where: { id: d.id, attempts }, data: { status: "delivered", deliveredAt: new Date(), lastStatus: status, lastError: null } });
      result.delivered.push(d.id);
    } else if (attempts >= max) {
      await db.webhookDelivery.updateMany({ where: { id: d.id, attempts }, data: { status: "failed", lastStatus: status, lastError: error } });
      result.failed.push(d.id);
    } else {
      const next = new Date(at.getTime() + backoffMs(attempts, opts.backoffBaseMs ?? BACKOFF_BASE_MS, opts.backoffCapMs ?? BACKOFF_CAP_MS));
      await db.webhookDelivery.updateMany({ where: { id: d.id, attempts }, data: { nextAttemptAt: next, lastStatus: status, lastError: error } });
      result.retrying.push(d.id);
    }
  }
  return result;
}

const g = globalThis as unknown as { plandeskWebhookWorker?: ReturnType<typeof setInterval> };

/**
 * Starts the webhook worker once per server process (like the deadline sweeper): a pass of
 * `deliverDueWebhooks` every `intervalMs` (default 2 s), a loop of `startBackgroundLoop` (never
 * overlapping, unref'd, failures logged, counted, drained). Returns false when already running or
 * when no webhook is configured.
 */
export function startWebhookWorker(intervalMs = 2_000): boolean {
  if (g.plandeskWebhookWorker || !webhookConfig()) return false;
  g.plandeskWebhookWorker = startBackgroundLoop("webhook_delivery", "webhook delivery pass", intervalMs, async () => {
    const r = await deliverDueWebhooks();
    if (r.failed.length) log.error(`plandesk: ${r.failed.length} webhook deliveries failed for good (see /admin/webhooks)`);
  });
  return true;
}
