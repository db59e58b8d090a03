import { ticketEventEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { recordTicketEvent } from "@/lib/server/outcomes/record-ticket-event";

/** `POST /api/v1/tasks/{taskId}/events` → 201 `{event, outcomes}`, integration key only (lib/api/endpoints/outcomes-api.ts `ticketEventEndpoint`). */
export const POST = route(ticketEventEndpoint, async ({ caller, params, body, idempotencyKey }) => {
  const { replayed, ...answer } = await recordTicketEvent(caller, params.taskId, body, idempotencyKey);
  return { status: 201, body: answer, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
});
