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
