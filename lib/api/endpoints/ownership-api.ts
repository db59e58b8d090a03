/**
 * Declarations of the operator endpoints of run ownership: taking and assigning runs, the run's ownership
 * panel (who acts next by name), hand-offs (Request approval), suggested steps, notifications.
 */
import { z } from "zod";
import { MAX_FILTER_AGE_HOURS, MAX_FILTER_MINOR, QUEUE_SORTS, QUEUE_VIEWS } from "../../queue/queue-views";
import { currencySchema } from "../../money/money";
import { defineEndpoint } from "../contract";
import { runStatusSchema } from "../schemas";
import { stepReasonsShape } from "../../plan/schema";
import { idParam, runParams, page, PEOPLE, DESK, SUPERVISOR } from "./common";

const isoTime = z.string();
const note = z.string().trim().min(1, "Write a note saying what you need.").max(1000);

/** The queue's ownership query parameters, spread into `listQueueEndpoint`'s query. */
export const queueOwnershipQuery = {
  q: z.string().max(64).optional(),
  sort: z.enum(QUEUE_SORTS).optional(),
  view: z.enum(QUEUE_VIEWS).optional(),
  tool: z.string().min(1).max(64).optional(),
  accountId: z.string().min(1).max(128).optional(),
  minAmountMinor: z.coerce.number().int().min(0).max(MAX_FILTER_MINOR, "Amounts filter up to 2,147,483,647 minor units").optional(),
  maxAmountMinor: z.coerce.number().int().min(0).max(MAX_FILTER_MINOR, "Amounts filter up to 2,147,483,647 minor units").optional(),
  minAgeHours: z.coerce.number().min(0).max(MAX_FILTER_AGE_HOURS).optional(),
  maxAgeHours: z.coerce.number().min(0).max(MAX_FILTER_AGE_HOURS).optional(),
};

export const assignmentSchema = z.object({ runId: z.string(), assigneeId: z.string().nullable(), assigneeName: z.string().nullable(), assignedAt: isoTime.nullable() }).meta({ id: "Assignment" });

/** A hand-off of a run (or one step) to a person or a role. */
export const approvalRequestSchema = z
  .object({ id: z.string(), runId: z.string(), stepId: z.string().nullable(), toUserId: z.string().nullable(), toRole: z.string().nullable(), note: z.string(), byUserId: z.string(), createdAt: isoTime, resolvedAt: isoTime.nullable() })
  .meta({ id: "ApprovalRequest" });

/** A step someone suggested for a run's plan, and what became of it. */
export const suggestionSchema = z
  .object({
    id: z.string(),
    runId: z.string(),
    planVersion: z.number().int(),
    step: z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()), position: z.number().int().nullable() }),
    note: z.string(),
    byUserId: z.string(),
    state: z.enum(["open", "accepted", "declined"]),
    decidedById: z.string().nullable(),
    decidedAt: isoTime.nullable(),
    reason: z.string().nullable(),
    acceptedVersion: z.number().int().nullable(),
    createdAt: isoTime,
  })
  .meta({ id: "StepSuggestion" });

const notificationSchema = z.object({ id: z.string(), kind: z.string(), runId: z.string().nullable(), text: z.string(), createdAt: isoTime, readAt: isoTime.nullable() }).meta({ id: "Notification" });

const person = z.object({ id: z.string(), name: z.string(), role: z.string() });
const money = z.object({ minor: z.number().int(), currency: currencySchema });

/** What the run page's ownership panel shows (times ISO-8601 UTC; money in minor units). */
export const runOwnershipSchema = z.object({
  runId: z.string(),
  status: runStatusSchema,
  planVersion: z.number().int(),
  assignee: z.object({ id: z.string(), name: z.string(), assignedAt: isoTime.nullable() }).nullable(),
  /** Each step of the current plan still waiting for an approval, and who can decide it. */
  deciders: z.array(z.object({ stepId: z.string(), position: z.number().int(), tool: z.string(), amount: money.nullable(), people: z.array(person), beyondViewer: z.boolean(), sentence: z.string() })),
  /** True when some waiting step is beyond the viewer's own authority. */
  beyondMyLimit: z.boolean(),
  /** Open hand-offs of this run, newest first (at most 20), with names. */
  requests: z.array(approvalRequestSchema.extend({ byName: z.string(), toName: z.string().nullable() })),
  /**
   * The run's suggestions, newest first (at most 20), with names; for an open one, `stale` when the
   * plan moved on since it was made (accepting it is refused `stale_plan_version`), and
   * `acceptBlocked`: why the viewer cannot accept it as their own edit (no author grant for its
   * tool, or its amount over their author limit), null when they can.
   */
  suggestions: z.array(suggestionSchema.extend({ byName: z.string(), decidedByName: z.string().nullable(), stale: z.boolean(), acceptBlocked: z.string().nullable() })),
  /** Who may be asked or assigned: active operators of the run's desk and supervisors (at most 50). */
  people: z.array(person),
});
/** A parsed {@link runOwnershipSchema}. */
export type RunOwnership = z.output<typeof runOwnershipSchema>;
/** A parsed {@link approvalRequestSchema}. */
export type ApprovalRequestView = z.output<typeof approvalRequestSchema>;
/** A parsed {@link suggestionSchema}. */
export type SuggestionView = z.output<typeof suggestionSchema>;

export const takeRunEndpoint = defineEndpoint({
  id: "takeRun",
  method: "POST",
  path: "/api/runs/{runId}/take",
  summary: "Take a waiting run (only while it is unassigned or already yours)",
  caller: DESK,
  params: runParams,
  success: { status: [200], schema: z.object({ assignment: assignmentSchema }), description: "{assignment}" },
  refusals: ["not_found", "run_not_pending", "already_assigned"],
});

export const assignRunEndpoint = defineEndpoint({
  id: "assignRun",
  method: "PUT",
  path: "/api/runs/{runId}/assignee",
  summary: "Assign a waiting run to a person, or unassign it (supervisors)",
  caller: SUPERVISOR,
  params: runParams,
  body: z.object({ assigneeId: idParam.nullable() }).strict(),
  success: { status: [200], schema: z.object({ assignment: assignmentSchema }), description: "{assignment}" },
  refusals: ["not_found", "run_not_pending", "validation_failed"],
});

export const runOwnershipEndpoint = defineEndpoint({
  id: "getRunOwnership",
  method: "GET",
  path: "/api/runs/{runId}/ownership",
  summary: "Who has the run, who can decide each waiting step (by name), hand-offs and suggestions",
  caller: PEOPLE,
  params: runParams,
  success: {
    status: [200],
    schema: runOwnershipSchema,
    description: "{assignee, deciders, beyondMyLimit, requests, suggestions, people}",
  },
  refusals: ["not_found"],
});

export const requestApprovalEndpoint = defineEndpoint({
  id: "requestApproval",
  method: "POST",
  path: "/api/runs/{runId}/approval-requests",
  summary: "Hand a run (or one step) to a named person or a role, with a note",
  caller: DESK,
  params: runParams,
  body: z
    .object({ stepId: z.string().min(1).max(64).nullable().optional(), toUserId: idParam.nullable().optional(), toRole: z.enum(["operator", "supervisor"]).nullable().optional(), note })
    .strict(),
  success: { status: [201], schema: z.object({ request: approvalRequestSchema }), description: "{request}" },
  refusals: ["not_found", "run_not_pending", "validation_failed"],
});

export const suggestStepEndpoint = defineEndpoint({
  id: "suggestStep",
  method: "POST",
  path: "/api/runs/{runId}/suggestions",
  summary: "Suggest a step for the plan (for a person with the author grant to accept or decline)",
  caller: DESK,
  params: runParams,
  body: z
    .object({
      planVersion: z.number().int().min(1),
      tool: z.string().min(1).max(64),
      args: z.record(z.string(), z.unknown()),
      position: z.number().int().min(0).max(100).nullable().optional(),
      note: z.string().max(1000).optional(),
    })
    .strict(),
  success: { status: [201], schema: z.object({ suggestion: suggestionSchema }), description: "{suggestion}" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_plan_version", "validation_failed"],
});

const suggestionParams = z.object({ runId: idParam, suggestionId: idParam });

export const acceptSuggestionEndpoint = defineEndpoint({
  id: "acceptSuggestion",
  method: "POST",
  path: "/api/runs/{runId}/suggestions/{suggestionId}/accept",
  summary: "Accept a suggested step as your own edit (validated with your authorship)",
  caller: DESK,
  params: suggestionParams,
  body: z
    .object({
      reasons: z
        .object(stepReasonsShape)
        .strict()
        .optional()
        .meta({ description: "The acceptor's reasons for the suggested step (title, rationale, evidence, risk, stopCondition): the fields the gate policy requires of the step must be filled, as of any step a person adds (else 422 validation_failed with missing_required_field / evidence_missing at steps.N.<field>)." }),
    })
    .strict(),
  success: { status: [201], schema: z.object({ suggestion: suggestionSchema, edit: z.object({ planVersion: z.object({ version: z.number().int() }) }) }), description: "{suggestion, edit}" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_task", "stale_plan_version", "suggestion_closed", "authorship_denied", "validation_failed"],
});

export const declineSuggestionEndpoint = defineEndpoint({
  id: "declineSuggestion",
  method: "POST",
  path: "/api/runs/{runId}/suggestions/{suggestionId}/decline",
  summary: "Decline a suggested step with a reason",
  caller: DESK,
  params: suggestionParams,
  body: z.object({ reason: z.string().trim().min(1, "Say why you decline it.").max(1000) }).strict(),
  success: { status: [201], schema: z.object({ suggestion: suggestionSchema }), description: "{suggestion}" },
  refusals: ["not_found", "suggestion_closed"],
});

export const listNotificationsEndpoint = defineEndpoint({
  id: "listNotifications",
  method: "GET",
  path: "/api/notifications",
  summary: "My in-console notifications, newest first, and the unread count",
  caller: PEOPLE,
  query: z.object({ unread: z.enum(["1"]).optional(), ...page }),
  success: { status: [200], schema: z.object({ notifications: z.array(notificationSchema), unread: z.number().int(), nextCursor: z.string().nullable() }), description: "{notifications, unread, nextCursor}" },
  refusals: [],
});

export const markNotificationsReadEndpoint = defineEndpoint({
  id: "markNotificationsRead",
  method: "POST",
  path: "/api/notifications/read",
  summary: "Mark my notifications read (the listed ids, or all)",
  caller: PEOPLE,
  body: z.object({ ids: z.union([z.literal("all"), z.array(idParam).min(1).max(200)]) }).strict(),
  success: { status: [200], schema: z.object({ marked: z.number().int(), unread: z.number().int() }), description: "{marked, unread}" },
  refusals: [],
});
