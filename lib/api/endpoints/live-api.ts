/** Declarations of the live console (issue #16): the server-sent event stream and presence heartbeats. */
import { z } from "zod";
import { defineEndpoint } from "../contract";
import { PEOPLE, runParams } from "./common";

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
  summary: "Server-sent events of the viewer's desk: run changes and presence (issue #16)",
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
