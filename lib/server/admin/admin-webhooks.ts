import type { WebhookDeliveryView } from "../../api/endpoints/live-api";
import { DomainError } from "../../errors/domain-error";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { afterCreated, nextCursorOf, pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";

type Admin = Pick<Viewer, "id" | "role">;

/** The API's webhook delivery shape (lib/api/endpoints/live-api.ts), declared once. */
export type { WebhookDeliveryView };

type Row = Awaited<ReturnType<typeof prisma.webhookDelivery.findFirstOrThrow>>;
const toView = (d: Row): WebhookDeliveryView => ({
  id: d.id,
  event: d.event,
  runId: d.runId,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt.toISOString(),
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  lastError: d.lastError,
  lastStatus: d.lastStatus,
  createdAt: d.createdAt.toISOString(),
});

/**
 * One page of webhook deliveries that failed (given up: `failed`) or are failing (`pending` with a
 * last error, waiting for their next attempt) — "failures visible to admins" — oldest
 * first, keyset-paginated by (createdAt, id) (`opts.limit` 1–200, default 50).
 * Errors: 403 `forbidden` unless admin; 400 `bad_request` for a malformed cursor.
 */
export async function listWebhookFailures(admin: Admin, opts: { cursor?: string | null; limit?: number } = {}): Promise<{ deliveries: WebhookDeliveryView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_webhook_failures");
  const limit = pageSize(opts.limit, 50);
  const rows = await prisma.webhookDelivery.findMany({
    where: { AND: [afterCreated(opts.cursor), { OR: [{ status: "failed" }, { status: "pending", lastError: { not: null } }] }] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  return { deliveries: rows.slice(0, limit).map(toView), nextCursor: nextCursorOf(rows, limit, (d) => d.createdAt) };
}

/**
 * Retry now: makes a failed or failing delivery due at once with a fresh count of attempts
 * (conditional on it not being delivered). Audited `admin_change` {what: "webhook.retry"}.
 * Errors: 403 `forbidden`; 404 `not_found` for an unknown delivery; 409 `already_delivered` when it was delivered meanwhile.
 */
export async function retryWebhookDelivery(admin: Admin, deliveryId: string, now = new Date()): Promise<{ delivery: WebhookDeliveryView }> {
  await requireRole(admin, ["admin"], "admin.retry_webhook");
  return inTransaction(async (tx) => {
    const before = await tx.webhookDelivery.findUnique({ where: { id: deliveryId } });
    if (!before) throw new DomainError("not_found", `Webhook delivery ${deliveryId} was not found.`);
    const res = await tx.webhookDelivery.updateMany({ where: { id: deliveryId, status: { not: "delivered" } }, data: { status: "pending", attempts: 0, nextAttemptAt: now } });
    if (res.count !== 1) throw new DomainError("already_delivered", "This delivery has been delivered; there is nothing to retry.");
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: admin.id },
      data: { what: "webhook.retry", target: { kind: "webhook_delivery", id: deliveryId }, before: { status: before.status, attempts: before.attempts }, after: { status: "pending", attempts: 0 } },
    });
    return ok({ delivery: toView(await tx.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })) });
  });
}
