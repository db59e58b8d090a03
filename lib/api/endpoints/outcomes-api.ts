/** Declarations of "did the edit help?": ticket events from the integration, outcomes of runs, supervisors' labels (docs/api-extensions.md). */
import { z } from "zod";
import { outcomeLabelBodySchema, outcomeRecordSchema, outcomeLabelSchema, runOutcomeRecordSchema, ticketEventBodySchema, ticketEventSchema } from "../../outcomes/schema";
import { OUTCOME_SIGNALS } from "../../outcomes/outcome";
import { defineEndpoint } from "../contract";
import { DESK, page, runParams, SUPERVISOR, taskParams } from "./common";

export const ticketEventEndpoint = defineEndpoint({
  id: "postTicketEvent",
  method: "POST",
  path: "/api/v1/tasks/{taskId}/events",
  summary: "The ticketing integration reports what happened to the task's ticket (reopened, customer_replied, resolved, chargeback)",
  description:
    "Needs an integration key (an agent key is refused, 403). An event with text (`detail`) is a task revision like a comment: the text is added as a part (customer_message for customer_replied, reopened and chargeback; staff for resolved) and a plan waiting on the earlier revision stops stopped_stale_task. Recomputes the outcome of every ended run of the task: a reopen within the reopen window (PLANDESK_REOPEN_WINDOW_DAYS, default 7) after a run executed counts against it. A repeated Idempotency-Key with the same body returns the saved answer (Idempotent-Replayed: true).",
  caller: { kind: "integration", scope: "tasks" },
  params: taskParams,
  body: ticketEventBodySchema,
  idempotencyKey: "optional",
  success: {
    status: [201],
    schema: z.object({
      event: ticketEventSchema,
      outcomes: z.array(z.object({ runId: z.string(), signals: z.array(z.string()), summary: z.string() })),
      taskRevision: z.number().int(),
      revised: z.boolean(),
    }),
    description: "{event, outcomes: [{runId, signals, summary}], taskRevision, revised} — an event carrying text (detail) is a new revision of the task",
  },
  refusals: ["not_found", "validation_failed", "idempotency_conflict"],
});

export const runOutcomeEndpoint = defineEndpoint({
  id: "getRunOutcome",
  method: "GET",
  path: "/api/runs/{runId}/outcome",
  summary: "The outcome record of an executed run: what it wrote, the agent's plan beside it, what happened afterwards, and its label",
  caller: DESK,
  params: runParams,
  success: { status: [200], schema: z.object({ outcome: runOutcomeRecordSchema.nullable() }), description: "{outcome} (null: the run has not ended with a written step)" },
  refusals: ["not_found"],
});

export const labelOutcomeEndpoint = defineEndpoint({
  id: "labelRunOutcome",
  method: "PUT",
  path: "/api/runs/{runId}/outcome-label",
  summary: "A supervisor labels an edited, executed run better, same or worse, with a reason (audited before → after)",
  caller: SUPERVISOR,
  params: runParams,
  body: outcomeLabelBodySchema,
  success: { status: [200], schema: z.object({ outcome: runOutcomeRecordSchema }), description: "{outcome}" },
  refusals: ["not_found", "not_labelable"],
});

export const outcomeReviewEndpoint = defineEndpoint({
  id: "listOutcomeReview",
  method: "GET",
  path: "/api/outcomes/review",
  summary: "Edited, executed runs for supervisors to judge: unlabelled first, then the largest money difference to the agent's plan first (keyset pages)",
  caller: SUPERVISOR,
  query: z.object({ ...page }),
  success: {
    status: [200],
    schema: z.object({
      items: z.array(
        z.object({
          runId: z.string(),
          ticketId: z.string(),
          subject: z.string(),
          editor: z.object({ id: z.string(), name: z.string() }).nullable(),
          record: outcomeRecordSchema,
          label: outcomeLabelSchema,
        }),
      ),
      nextCursor: z.string().nullable(),
    }),
    description: "{items: [{runId, ticketId, subject, editor, record, label}], nextCursor}",
  },
  refusals: [],
});

/** The signals `?signal=` of the diff corpus accepts (lib/outcomes/outcome.ts), plus `none`: no signal at all. */
export const CORPUS_SIGNALS = [...OUTCOME_SIGNALS, "none"] as const;
