import { z } from "zod";
import { OUTCOME_LABELS, OUTCOME_SIGNALS, TICKET_EVENT_TYPES } from "./outcome";

/*
 * Request and response shapes of the outcome endpoints (docs/api-extensions.md "Did the edit
 * help?"), declared once: the endpoint declarations, the OpenAPI document, the services' types and
 * the review page's label form read them. Client-safe. Money is `{minor, currency}`; times ISO UTC.
 */

/**
 * `POST /api/v1/tasks/{taskId}/events`: a ticket event. `type` and `at` are checked by the service
 * (422 `validation_failed` with `unknown_event_type`, `invalid_time`, `time_in_future`), so a
 * wrong value is a typed issue, not a shape error; `at` absent: the time of the request.
 */
export const ticketEventBodySchema = z
  .object({
    type: z.string().max(64),
    at: z.string().max(64).nullish(),
    detail: z.string().max(4000, "Keep the detail under 4,000 characters").nullish(),
  })
  .strict();
/** See {@link ticketEventBodySchema}. */
export type TicketEventBody = z.infer<typeof ticketEventBodySchema>;

/** `PUT /api/runs/{runId}/outcome-label`: a supervisor's judgement of an edited run and why. */
export const outcomeLabelBodySchema = z
  .object({
    label: z.enum(OUTCOME_LABELS, { error: "Choose better, same or worse" }),
    reason: z
      .string({ error: "Say why (at least 3 characters)" })
      .trim()
      .min(3, "Say why (at least 3 characters)")
      .max(2000, "Keep the reason under 2,000 characters"),
  })
  .strict();
/** See {@link outcomeLabelBodySchema}. */
export type OutcomeLabelBody = z.infer<typeof outcomeLabelBodySchema>;

const money = z.object({ minor: z.number().int(), currency: z.string() });
const window = z.object({ from: z.string(), to: z.string() });
const isoTime = z.string().meta({ description: "ISO-8601 instant, UTC", format: "date-time" });

/** A stored ticket event as the API answers it. */
export const ticketEventSchema = z
  .object({ id: z.string(), taskId: z.string(), ticketId: z.string(), type: z.enum(TICKET_EVENT_TYPES), at: isoTime, detail: z.string().nullable(), createdAt: isoTime })
  .meta({ id: "TicketEvent" });

/** The outcome record (lib/outcomes/outcome.ts `OutcomeRecord`) as the API answers it; open for additions. */
export const outcomeRecordSchema = z
  .object({
    executedAt: isoTime,
    edited: z.boolean(),
    moneyOut: z.array(money),
    moneyLines: z.array(z.object({ stepId: z.string(), tool: z.string(), kind: z.enum(["refund", "credit", "waived_fee"]), amount: money })),
    proposedMoneyOut: z.array(money).nullable(),
    moneyDifference: z.array(money).nullable(),
    moneyDifferenceMinor: z.number().int(),
    compensationCap: money.nullable(),
    beyondCap: z.array(money),
    // Records stored before deliveries and fees were compared read as none (recomputed by npm run outcomes:backfill).
    deliveries: z.array(z.object({ stepId: z.string(), tool: z.string(), shipmentId: z.string(), window })).default([]),
    deliveryDifference: z.array(z.object({ shipmentId: z.string(), proposed: window.nullable(), executed: window.nullable(), daysLater: z.number().int().nullable() })).nullable().default(null),
    feesWaived: z.array(z.object({ stepId: z.string(), tool: z.string(), invoiceId: z.string(), feeCode: z.string(), amount: money })).default([]),
    feeDifference: z.array(z.object({ invoiceId: z.string(), feeCode: z.string(), proposed: money.nullable(), executed: money.nullable(), difference: money })).nullable().default(null),
    commitments: z.array(z.object({ stepId: z.string(), ticketId: z.string(), kind: z.enum(["money", "date"]), clause: z.string(), amounts: z.array(money).optional(), date: z.string().optional() })),
    unknownEffects: z.array(z.string()),
    reopenWindowDays: z.number().int(),
    afterwards: z.array(z.object({ type: z.enum(TICKET_EVENT_TYPES), at: isoTime, detail: z.string().nullable(), daysAfter: z.number().int(), countsAgainst: z.boolean() })),
    signals: z.array(z.enum(OUTCOME_SIGNALS)),
    suggestion: z.object({ label: z.enum(OUTCOME_LABELS).nullable(), because: z.array(z.string()) }),
    summary: z.string(),
  })
  .meta({ id: "OutcomeRecord" });

/** A supervisor's label as stored: who, when, which and why; null while unlabelled. */
export const outcomeLabelSchema = z.object({ label: z.enum(OUTCOME_LABELS), reason: z.string(), by: z.object({ id: z.string(), name: z.string() }), at: isoTime }).nullable();

/** One run's outcome as the API answers it: the record, the label (never computed) and the run it belongs to. */
export const runOutcomeRecordSchema = z
  .object({ runId: z.string(), ticketId: z.string(), record: outcomeRecordSchema, label: outcomeLabelSchema, computedAt: isoTime })
  .meta({ id: "RunOutcomeRecord" });
