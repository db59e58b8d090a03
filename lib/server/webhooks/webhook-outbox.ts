import { nanoid } from "nanoid";
import type { Prisma } from "../../generated/prisma/client";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { WEBHOOK_EVENT_TYPES, webhookConfig } from "./webhook-config";

type Tx = Prisma.TransactionClient | typeof prisma;

/** The Slack-compatible body of one delivery: `text` (fallback and notification), `blocks`, and Plandesk's own fields. */
export interface WebhookPayload {
  text: string;
  blocks: unknown[];
  plandesk: { event: string; runId: string | null; ticketId: string | null; desk: string | null; url: string | null; data: Record<string, unknown> };
}

/**
 * Inside the transaction that appends an audit event: when the event is one that is sent outside
 * the console (WEBHOOK_EVENT_TYPES: escalated, expired, approval_requested) and a webhook is
 * configured, writes its `webhook_delivery` row — so it commits, or rolls back, with the event,
 * and an event written once (the sweeps' conditional updates) is delivered once. A no-op otherwise.
 */
export async function enqueueWebhook(tx: Tx, ev: { type: string; runId?: string | null; data: Record<string, unknown> }, now = eventTime(ev.data)): Promise<void> {
  if (!WEBHOOK_EVENT_TYPES.has(ev.type)) return;
  const config = webhookConfig();
  if (!config) return;
  const run = ev.runId ? await tx.run.findUnique({ where: { id: ev.runId }, select: { ticketId: true, desk: true } }) : null;
  // a hand-off names the person it went to (the event carries their id)
  const toUser = typeof ev.data.toUserId === "string" ? await tx.user.findUnique({ where: { id: ev.data.toUserId }, select: { name: true } }) : null;
  const payload = buildPayload(toUser ? { ...ev, data: { ...ev.data, toName: toUser.name } } : ev, run);
  await tx.webhookDelivery.create({
    data: { id: `whd_${nanoid()}`, event: ev.type, runId: ev.runId ?? null, url: config.url, payload: payload as unknown as Prisma.InputJsonValue, nextAttemptAt: now },
  });
}

/** When the event happened: its `data.at` (the sweep's clock) when that is a valid time, else now. Deliveries are due from then. */
function eventTime(data: Record<string, unknown>): Date {
  const t = typeof data.at === "string" ? new Date(data.at) : null;
  return t && !Number.isNaN(t.getTime()) ? t : new Date();
}

/** `text` with Slack's three control characters escaped, so it is shown as written (no link, no mention). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The message for an event (UTC times), with a link to the run on the console's public origin. */
export function buildPayload(ev: { type: string; runId?: string | null; data: Record<string, unknown> }, run: { ticketId: string; desk: string } | null): WebhookPayload {
  const url = ev.runId ? `${serverConfig().publicUrl}/runs/${ev.runId}` : null;
  const ticket = run?.ticketId ? `ticket #${run.ticketId}` : "a run";
  const utc = (iso: unknown) => (typeof iso === "string" ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "");
  const d = ev.data;
  let text: string;
  switch (ev.type) {
    case "escalated":
      text = `Escalated to supervisors: the plan for ${ticket} waited past its escalation time without a decision; it expires at ${utc(d.expiresAt)}.`;
      break;
    case "expired":
      text =
        d.while === "approved"
          ? `Expired: the plan for ${ticket} was approved but expired at ${utc(d.at)} before the executor claimed it; nothing was written and the agent has been told.`
          : d.while === "executing"
            ? `Expired: the plan for ${ticket} expired at ${utc(d.at)} while executing, before the executor claimed its remaining steps; the agent has been told.`
            : d.while === "needs_decision"
              ? `Expired: the plan for ${ticket} needed a new decision and nobody made it by ${utc(d.at)}; the agent has been told.`
              : `Expired: the plan for ${ticket} expired at ${utc(d.at)} without a decision; the agent has been told.`;
      break;
    default: {
      const to = typeof d.toName === "string" ? d.toName : typeof d.toUserId === "string" ? d.toUserId : typeof d.toRole === "string" ? `the ${d.toRole}s` : "someone";
      text = `Approval requested: the plan for ${ticket} was handed to ${to}${typeof d.note === "string" && d.note ? `: “${d.note}”` : "."}`;
    }
  }
  // Slack reads <…> as links and mentions (<!channel>): people's words go out escaped (& < >).
  text = slackEscape(text);
  const link = url ? ` <${url}|Open the run>` : "";
  return {
    text: `${text}${url ? ` ${url}` : ""}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*Plandesk* · ${text}${link}` } },
      { type: "context", elements: [{ type: "mrkdwn", text: `${ev.type}${run ? ` · desk ${run.desk}` : ""}${ev.runId ? ` · run ${ev.runId}` : ""}` }] },
    ],
    plandesk: { event: ev.type, runId: ev.runId ?? null, ticketId: run?.ticketId ?? null, desk: run?.desk ?? null, url, data: d },
  };
}
