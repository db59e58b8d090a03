/** Declarations of the agent and executor API (`/api/v1`, agent key): tasks, runs, claims, fences, outcomes (docs/api.md). */
import { z } from "zod";
import { RUN_STATES } from "../../lifecycle/run-state";
import { reviseTaskBodySchema } from "../../task-contract/task-revision";
import { openTaskBodySchema } from "../../task-contract/task-open";
import { claimBodySchema, demoEffectBodySchema, demoPromoteBodySchema, fenceBodySchema, outcomeBodySchema, submitRunBodySchema } from "../bodies";
import { defineEndpoint } from "../contract";
import { claimSchema, demoEffectSchema, demoPromotionSchema, fenceSchema, stagedEffectSchema, runSchema, stepExecutionSchema, taskSchema } from "../schemas";
import { idParam, runParams, stepParams, taskParams, AGENT } from "./common";

// ── agent and executor API (/api/v1) ─────────────────────────────────────────

export const listTasksEndpoint = defineEndpoint({
  id: "listTasks",
  method: "GET",
  path: "/api/v1/tasks",
  summary: "Tasks of a ticket (newest first)",
  caller: AGENT,
  query: z.object({ ticketId: idParam.optional() }),
  success: { status: [200], schema: z.object({ tasks: z.array(taskSchema) }), description: "{tasks}" },
  refusals: [],
});

export const openTaskEndpoint = defineEndpoint({
  id: "openTask",
  method: "POST",
  path: "/api/v1/tasks",
  summary: "The ticketing integration opens the task of a new ticket (revision 1)",
  description:
    "Needs an integration key; an agent key is refused (403). Creates the ticket (id = ticketId, on accountId) and its task at revision 1 (id task_<ticketId> on the default desk, task_<desk>_<ticketId> on others). Ticket and account ids are per desk: another desk's ticket or account of the same id is neither read nor changed, and is never a refusal. Idempotent per desk and ticket id: the same body again answers the same task (200, created: false, header Idempotent-Replayed: true); another body for that ticket is 409 task_exists {taskId} — change a task through POST /api/v1/tasks/{taskId}/revisions. The account must be a live account of the key's desk (422 unknown_account; a key bound to no desk: the account id must be live on exactly one desk). This desk's ticket of that id on another account or subject without a task is 409 ticket_taken.",
  caller: { kind: "integration", scope: "tasks" },
  body: openTaskBodySchema,
  success: { status: [201, 200], schema: z.object({ task: taskSchema, created: z.boolean() }), description: "{task, created}: 201 when created, 200 when the same ticket was opened with the same body before" },
  refusals: ["validation_failed", "unknown_account", "task_exists", "ticket_taken"],
});

export const getTaskEndpoint = defineEndpoint({
  id: "getTask",
  method: "GET",
  path: "/api/v1/tasks/{taskId}",
  summary: "One task with its live revision",
  caller: AGENT,
  params: taskParams,
  success: { status: [200], schema: z.object({ task: taskSchema }), description: "{task}" },
  refusals: ["not_found"],
});

export const submitRunEndpoint = defineEndpoint({
  id: "submitRun",
  method: "POST",
  path: "/api/v1/tasks/{taskId}/runs",
  summary: "Submit a plan for a task",
  description: "Validated by the one pipeline; bound to the task revision. A repeated Idempotency-Key returns the saved run (header Idempotent-Replayed: true).",
  caller: AGENT,
  params: taskParams,
  body: submitRunBodySchema,
  idempotencyKey: "optional",
  success: { status: [201], schema: z.object({ run: runSchema }), description: "{run}" },
  refusals: ["not_found", "validation_failed", "stale_task", "idempotency_conflict", "task_has_live_run", "already_completed"],
});

export const getAgentRunEndpoint = defineEndpoint({
  id: "getRun",
  method: "GET",
  path: "/api/v1/runs/{runId}",
  summary: "One of the agent's runs",
  description:
    "With ?wait=N (1–30 seconds) a long poll: while the run waits for review the answer is held until it changes (approved, rejected, edited, superseded, stopped…) or N seconds pass, then the run as it is. run.outcome is the typed end of a run that will not move on.",
  caller: AGENT,
  params: runParams,
  query: z.object({ wait: z.coerce.number().int().min(0).max(30).optional() }),
  success: { status: [200], schema: z.object({ run: runSchema }), description: "{run}" },
  refusals: ["not_found"],
});

export const agentRunEventsEndpoint = defineEndpoint({
  id: "runEvents",
  method: "GET",
  path: "/api/v1/runs/{runId}/events",
  summary: "Wait for a decision on one of the agent's runs: server-sent events",
  description:
    "With `Accept: text/event-stream`: `retry: 3000`, then `run` {run} at once and again whenever the run changes (approved, edited, rejected, superseded, stopped, expired, a step claimed or reported; about a second after the change), `end` {outcome} when run.outcome is set (then the stream closes), a comment line every 15 s; after 10 minutes `end` {outcome: null, reconnect: true}. Without it, {run} like GET /api/v1/runs/{runId}.",
  caller: AGENT,
  params: runParams,
  success: { status: [200], schema: z.object({ run: runSchema }), description: "text/event-stream, or {run}" },
  refusals: ["not_found"],
});

export const claimStepEndpoint = defineEndpoint({
  id: "claimStep",
  method: "POST",
  path: "/api/v1/runs/{runId}/steps/{stepId}/claim",
  summary: "Claim a step immediately before writing it",
  description:
    "Succeeds only for the approved digest, the bound task revision and an active approval; exactly one claim per step. A refusal no executor can fix (validation_failed at dispatch, approval_revoked, prerequisite_failed) also moves the run to needs_decision (run.decisionReason): a person edits, approves again or rejects it; wait on GET /api/v1/runs/{runId}.",
  caller: AGENT,
  params: stepParams,
  body: claimBodySchema,
  idempotencyKey: "optional",
  success: { status: [200], schema: z.object({ claim: claimSchema }), description: "{claim: {token, stepId, digest, …}}" },
  refusals: [
    "not_found",
    "stopped_stale_task",
    "digest_mismatch",
    "approval_missing",
    "already_claimed",
    "prerequisite_pending",
    "prerequisite_failed",
    "run_not_approved",
    "expired",
    "stale_task",
    "validation_failed",
    "approval_revoked",
    "stale_account_data",
    "idempotency_conflict",
  ],
});

export const fenceClaimEndpoint = defineEndpoint({
  id: "fenceClaim",
  method: "POST",
  path: "/api/v1/claims/{token}/fence",
  summary: "Does this claim token still hold? (call it inside the write it guards)",
  description:
    "Answers in one transaction whether the run is still executing, the task still at the claimed revision, the approval still claimed and the lease not lapsed. With the optional body {targetVersions: {\"invoice:in_74119\": 8}} (the live source versions of the step's records, read right before the write) it also compares them with the versions the approval saw (the claim's recordVersions): one that differs is refused target_changed {record, approvedVersion, liveVersion} and stops the run; a key the approval did not see is ignored. A refusal means: write nothing. A task that moved on also stops the run.",
  caller: AGENT,
  params: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{10,200}$/, "not a claim token") }),
  body: fenceBodySchema,
  success: { status: [200], schema: z.object({ fence: fenceSchema }), description: "{fence: {token, runId, stepId, digest, taskRevision, leaseExpiresAt, holds: true}}" },
  refusals: ["invalid_claim_token", "claim_fenced", "target_changed"],
});

export const reportOutcomeEndpoint = defineEndpoint({
  id: "reportOutcome",
  method: "POST",
  path: "/api/v1/runs/{runId}/steps/{stepId}/outcome",
  summary: "Report what the write did (succeeded, failed, unknown)",
  caller: AGENT,
  params: stepParams,
  body: outcomeBodySchema,
  success: {
    status: [200],
    schema: z.object({ step: stepExecutionSchema, run: z.object({ id: z.string(), status: z.enum(RUN_STATES) }) }),
    description: "{step, run: {id, status}}",
  },
  refusals: ["invalid_claim_token", "outcome_already_reported"],
});

export const agentReviseTaskEndpoint = defineEndpoint({
  id: "reviseTask",
  method: "POST",
  path: "/api/v1/tasks/{taskId}/revisions",
  summary: "The ticketing integration records a change of the task (bumps its revision)",
  description: "Needs an integration key; an agent key is refused (403) — an agent may not rewrite the task its approvals are bound to.",
  caller: { kind: "integration", scope: "tasks" },
  params: taskParams,
  body: reviseTaskBodySchema,
  success: { status: [201], schema: z.object({ task: taskSchema }), description: "{task}" },
  refusals: ["not_found"],
});

export const demoEffectEndpoint = defineEndpoint({
  id: "applyDemoEffect",
  method: "POST",
  path: "/api/v1/demo/effects",
  summary: "Demo mode: the reference executor writes a claimed step (fenced in its own transaction)",
  caller: AGENT,
  body: demoEffectBodySchema,
  success: {
    status: [200],
    schema: z.union([z.object({ effect: demoEffectSchema }), z.object({ staged: stagedEffectSchema })]),
    description: "{effect}, or {staged} (the staging handle) with stage: true",
  },
  refusals: ["not_found", "invalid_claim_token", "claim_fenced", "target_changed", "effect_failed"],
});

export const demoPromoteEndpoint = defineEndpoint({
  id: "promoteDemoEffects",
  method: "POST",
  path: "/api/v1/demo/effects/promote",
  summary: "Demo mode: the reference executor applies every staged write of a run in one transaction, all or nothing",
  description: "Every claim is fenced again first; a refusal applies nothing, discards the staged writes and reports their claims failed.",
  caller: AGENT,
  body: demoPromoteBodySchema,
  success: { status: [200], schema: z.object({ promotion: demoPromotionSchema }), description: "{promotion}" },
  refusals: ["not_found", "claim_fenced", "target_changed", "effect_failed"],
});
