/** Declarations of the live console: the server-sent event stream and presence heartbeats. */
import { z } from "zod";
import { defineEndpoint } from "../contract";
import { ADMIN, idParam, page, PEOPLE, runParams } from "./common";

const presenceEntrySchema = z.object({
  runId: z.string(),
  userId: z.string(),
  name: z.string(),
  mode: z.enum(["viewing", "editing"]),
  seenAt: z.string(),
});

export const liveFeedEndpoint = defineEndpoint({
  id: "liveFeed",
  method: "GET",
  path: "/api/live",
  summary: "Server-sent events of the viewer's desk: run changes and presence",
  description:
    "With `Accept: text/event-stream`: `hello` {you, presence}, then `change` {type, runId, desk, at} for every committed audit event of a run the viewer may see and `presence` {runId, userId, name, mode, seenAt}; a comment line every 15 s. Otherwise the JSON snapshot {you, presence}.",
  caller: PEOPLE,
  success: { status: [200], schema: z.object({ you: z.string(), presence: z.array(presenceEntrySchema) }), description: "text/event-stream, or {you, presence}" },
  refusals: [],
});

export const recordPresenceEndpoint = defineEndpoint({
  id: "recordPresence",
  method: "POST",
  path: "/api/runs/{runId}/presence",
  summary: "Say the viewer has the run open (viewing), its edit form open (editing), or left (heartbeat every ~10 s)",
  caller: PEOPLE,
  params: runParams,
  body: z.object({ mode: z.enum(["viewing", "editing", "left"]) }).strict(),
  success: { status: [200], schema: z.object({ presence: z.array(presenceEntrySchema) }), description: "{presence}: who is on the run now" },
  refusals: ["not_found"],
});

/** A webhook delivery as admins see it (times ISO-8601 UTC). */
export const webhookDeliverySchema = z.object({
  id: z.string(),
  event: z.string(),
  runId: z.string().nullable(),
  url: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  nextAttemptAt: z.string(),
  deliveredAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  createdAt: z.string(),
});
/** A webhook delivery as admins see it. */
export type WebhookDeliveryView = z.output<typeof webhookDeliverySchema>;

export const listWebhookFailuresEndpoint = defineEndpoint({
  id: "listWebhookFailures",
  method: "GET",
  path: "/api/admin/webhooks",
  summary: "Webhook deliveries that failed or are failing (escalations, expiries, hand-offs), one page",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ deliveries: z.array(webhookDeliverySchema), nextCursor: z.string().nullable() }), description: "{deliveries, nextCursor}" },
  refusals: [],
});

export const retryWebhookEndpoint = defineEndpoint({
  id: "retryWebhook",
  method: "POST",
  path: "/api/admin/webhooks/{deliveryId}/retry",
  summary: "Send a failed webhook delivery again now (a fresh count of attempts)",
  caller: ADMIN,
  params: z.object({ deliveryId: idParam }),
  success: { status: [200], schema: z.object({ delivery: webhookDeliverySchema }), description: "{delivery}" },
  refusals: ["not_found", "already_delivered"],
});
