/** Declarations for the keyboard-first console: the run "approve & next" opens. */
import { z } from "zod";
import { defineEndpoint } from "../contract";
import { runParams, DESK } from "./common";

export const nextRunEndpoint = defineEndpoint({
  id: "getNextRun",
  method: "GET",
  path: "/api/runs/{runId}/next",
  summary: "The next run waiting for review after this one, in the queue's order (soonest deadline first); wraps around",
  caller: DESK,
  params: runParams,
  success: {
    status: [200],
    schema: z.object({ next: z.object({ id: z.string(), ticketId: z.string(), expiresAt: z.string() }).nullable() }),
    description: "{next: {id, ticketId, expiresAt} | null} (null: no other run waits)",
  },
  refusals: ["not_found"],
});

/** A person's park of a run (docs/design.md "Skip and snooze"). */
export const parkSchema = z
  .object({
    runId: z.string(),
    kind: z.enum(["skip", "snooze", "handoff"]),
    until: z.string().nullable().meta({ description: "ISO-8601 UTC; null: until the run changes" }),
    parkedAt: z.string(),
  })
  .meta({ id: "RunPark" });

export const parkRunEndpoint = defineEndpoint({
  id: "parkRun",
  method: "POST",
  path: "/api/runs/{runId}/park",
  summary: "Skip or snooze a waiting run: it leaves the caller's next (approve & next) until `until` or until the run changes",
  description:
    "Per person: others still get the run. `until` null (or absent) skips until the run changes (a new plan version, a new task revision, a change of status or someone else's decision); an ISO-8601 time within 30 days snoozes until then or a change, whichever comes first. Parking again replaces the park.",
  caller: DESK,
  params: runParams,
  body: z.object({ until: z.string().max(40).nullable().optional() }).strict(),
  success: { status: [201], schema: z.object({ park: parkSchema }), description: "{park}" },
  refusals: ["not_found", "run_not_pending", "bad_request"],
});

export const unparkRunEndpoint = defineEndpoint({
  id: "unparkRun",
  method: "DELETE",
  path: "/api/runs/{runId}/park",
  summary: "End the caller's park of a run: it is in their next again",
  caller: DESK,
  params: runParams,
  success: { status: [200], schema: z.object({ park: z.null() }), description: "{park: null}" },
  refusals: ["not_found"],
});
