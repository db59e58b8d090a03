import { z } from "zod";
import { createAgentSchema, createIntegrationKeySchema, createUserSchema, grantInputSchema, updateUserSchema } from "../admin-schemas";
import { stepIdSchema } from "../plan/schema";
import { reconcileBodySchema } from "../reconcile-schema";
import { RUN_STATES } from "../run-state";
import { reviseTaskBodySchema } from "../task-schema";
import { approveBodySchema, claimBodySchema, demoEffectBodySchema, outcomeBodySchema, rejectBodySchema, submitEditBodySchema, submitRunBodySchema } from "./bodies";
import { defineEndpoint, type Endpoint } from "./contract";
import { importToolsEndpoint, listToolCatalogEndpoint, setAllowedToolsEndpoint } from "./tool-catalog-endpoints";
import {
  adminUserSchema,
  agentViewSchema,
  apiKeySchema,
  approvalSchema,
  claimSchema,
  demoEffectSchema,
  fenceSchema,
  editDetailSchema,
  editResultSchema,
  grantViewSchema,
  integrationKeySchema,
  planDiffResponseSchema,
  queueRowSchema,
  recordOptionSchema,
  runAuditSchema,
  runDetailsSchema,
  runSchema,
  stepExecutionSchema,
  taskSchema,
} from "./schemas";
import { planSchema } from "../plan/schema";

/*
 * Every endpoint of the HTTP API (API.md), declared once (lib/api/contract.ts). A route file
 * under app/api exports `route(<declaration>, handler)`; the OpenAPI document, the typed client
 * and the authorisation matrix read this list.
 */

/** An identifier in a path: 1–128 letters, digits, `_`, `-`, `.` or `:` (anything else is simply not found). */
export const idParam = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "not an identifier");
const version = z.coerce.number().int().min(1).max(2_147_483_647);
const runParams = z.object({ runId: idParam });
const stepParams = z.object({ runId: idParam, stepId: stepIdSchema });
const taskParams = z.object({ taskId: idParam });
const page = { cursor: z.string().max(500).optional(), limit: z.coerce.number().int().min(1).max(200).optional() };

const AGENT = { kind: "agent" } as const;
const PEOPLE = { kind: "session", roles: ["operator", "supervisor", "admin"] } as const;
const DESK = { kind: "session", roles: ["operator", "supervisor"] } as const;
const SUPERVISOR = { kind: "session", roles: ["supervisor"] } as const;
const ADMIN = { kind: "session", roles: ["admin"] } as const;

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
  refusals: ["not_found", "validation_failed", "stale_task", "idempotency_conflict"],
});

export const getAgentRunEndpoint = defineEndpoint({
  id: "getRun",
  method: "GET",
  path: "/api/v1/runs/{runId}",
  summary: "One of the agent's runs",
  caller: AGENT,
  params: runParams,
  success: { status: [200], schema: z.object({ run: runSchema }), description: "{run}" },
  refusals: ["not_found"],
});

export const claimStepEndpoint = defineEndpoint({
  id: "claimStep",
  method: "POST",
  path: "/api/v1/runs/{runId}/steps/{stepId}/claim",
  summary: "Claim a step immediately before writing it",
  description: "Succeeds only for the approved digest, the bound task revision and an active approval; exactly one claim per step.",
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
    "idempotency_conflict",
  ],
});

export const fenceClaimEndpoint = defineEndpoint({
  id: "fenceClaim",
  method: "POST",
  path: "/api/v1/claims/{token}/fence",
  summary: "Does this claim token still hold? (call it inside the write it guards)",
  description:
    "Answers in one transaction whether the run is still executing, the task still at the claimed revision, the approval still claimed and the lease not lapsed. A refusal means: write nothing. A task that moved on also stops the run.",
  caller: AGENT,
  params: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{10,200}$/, "not a claim token") }),
  success: { status: [200], schema: z.object({ fence: fenceSchema }), description: "{fence: {token, runId, stepId, digest, taskRevision, leaseExpiresAt, holds: true}}" },
  refusals: ["invalid_claim_token", "claim_fenced"],
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
  caller: { kind: "integration" },
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
  success: { status: [200], schema: z.object({ effect: demoEffectSchema }), description: "{effect}" },
  refusals: ["not_found", "invalid_claim_token", "claim_fenced", "effect_failed"],
});

// ── operator API (/api, session) ─────────────────────────────────────────────

export const listQueueEndpoint = defineEndpoint({
  id: "listQueue",
  method: "GET",
  path: "/api/runs",
  summary: "The queue: runs of the viewer's desk, newest first, one page",
  caller: PEOPLE,
  query: z.object({ status: z.enum(RUN_STATES).optional(), ...page }),
  success: { status: [200], schema: z.object({ runs: z.array(queueRowSchema), nextCursor: z.string().nullable() }), description: "{runs, nextCursor}" },
  refusals: [],
});

export const searchRecordsEndpoint = defineEndpoint({
  id: "searchRecords",
  method: "GET",
  path: "/api/account-data/{kind}",
  summary: "Account records of a kind whose id starts with q (the edit form's id fields)",
  caller: PEOPLE,
  params: z.object({ kind: z.enum(["invoice", "shipment", "ticket", "account"]) }),
  query: z.object({ q: z.string().max(128).default("") }),
  success: { status: [200], schema: z.object({ records: z.array(recordOptionSchema) }), description: "{records} (at most 20, id order)" },
  refusals: [],
});

export const getRunDetailsEndpoint = defineEndpoint({
  id: "getRunDetails",
  method: "GET",
  path: "/api/runs/{runId}",
  summary: "A run with its plan versions, validation and account context",
  caller: PEOPLE,
  params: runParams,
  success: { status: [200], schema: runDetailsSchema, description: "{run, planVersions, validation, accountContext, …}" },
  refusals: ["not_found"],
});

export const submitEditEndpoint = defineEndpoint({
  id: "submitEdit",
  method: "POST",
  path: "/api/runs/{runId}/edits",
  summary: "Edit a run's plan (validated from scratch, diffed on the server)",
  caller: DESK,
  params: runParams,
  body: submitEditBodySchema,
  success: { status: [201, 200], schema: editResultSchema, description: "201 {planVersion, diff, validation, reapproval}; 200 with unchanged: true" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_task", "stale_plan_version", "authorship_denied", "validation_failed"],
});

export const discardEditEndpoint = defineEndpoint({
  id: "discardEdit",
  method: "POST",
  path: "/api/runs/{runId}/edits/{version}/discard",
  summary: "Discard my edits: back to the pre-edit plan, as a new version",
  caller: DESK,
  params: z.object({ runId: idParam, version }),
  success: { status: [201], schema: z.object({ planVersion: planSchema }), description: "{planVersion}" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_plan_version", "validation_failed"],
});

export const getEditEndpoint = defineEndpoint({
  id: "getEdit",
  method: "GET",
  path: "/api/runs/{runId}/edits/{version}",
  summary: "The stored edit that produced a plan version (pre-edit plan, post-edit plan, diff)",
  caller: DESK,
  params: z.object({ runId: idParam, version }),
  query: z.object({ part: z.enum(["before", "after", "diff"]).optional(), download: z.enum(["1"]).optional() }),
  success: { status: [200], schema: z.union([editDetailSchema, planSchema, planDiffResponseSchema]), description: "the edit, or only `part`" },
  refusals: ["not_found"],
});

export const diffVersionsEndpoint = defineEndpoint({
  id: "diffVersions",
  method: "GET",
  path: "/api/runs/{runId}/diff",
  summary: "The semantic diff between two plan versions",
  caller: PEOPLE,
  params: runParams,
  query: z.object({ from: version, to: version }),
  success: { status: [200], schema: z.object({ diff: planDiffResponseSchema, reapproval: z.string(), from: planSchema, to: planSchema }), description: "{diff, reapproval, from, to}" },
  refusals: ["not_found"],
});

export const approveStepsEndpoint = defineEndpoint({
  id: "approveSteps",
  method: "POST",
  path: "/api/runs/{runId}/approvals",
  summary: "Approve steps of the current plan version",
  caller: DESK,
  params: runParams,
  body: approveBodySchema,
  success: { status: [201], schema: z.object({ approvals: z.array(approvalSchema), run: runSchema }), description: "{approvals, run}; the same key again gives the same body" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_plan_version", "stale_task", "approval_denied", "acknowledgement_required", "validation_failed", "idempotency_conflict"],
});

export const rejectRunEndpoint = defineEndpoint({
  id: "rejectRun",
  method: "POST",
  path: "/api/runs/{runId}/rejections",
  summary: "Reject a run with a reason for the agent",
  caller: DESK,
  params: runParams,
  body: rejectBodySchema,
  success: { status: [201], schema: z.object({ run: runSchema }), description: "{run}" },
  refusals: ["not_found", "expired", "run_not_pending", "stale_plan_version", "forbidden"],
});

export const reconcileStepEndpoint = defineEndpoint({
  id: "reconcileStep",
  method: "POST",
  path: "/api/runs/{runId}/steps/{stepId}/reconcile",
  summary: "Record what really happened to a step whose outcome is unknown",
  caller: SUPERVISOR,
  params: stepParams,
  body: reconcileBodySchema,
  success: {
    status: [201, 200],
    schema: z.object({ step: stepExecutionSchema, run: z.object({ id: z.string(), status: z.enum(RUN_STATES) }) }),
    description: "201 {step, run}; 200 when the same resolution was already recorded",
  },
  refusals: ["not_found", "nothing_to_reconcile"],
});

export const runAuditEndpoint = defineEndpoint({
  id: "getRunAudit",
  method: "GET",
  path: "/api/runs/{runId}/audit",
  summary: "A run's audit trail: events, plan versions, edits",
  caller: DESK,
  params: runParams,
  success: { status: [200], schema: runAuditSchema, description: "{events, run, planVersions, edits}" },
  refusals: ["not_found"],
});

export const operatorReviseTaskEndpoint = defineEndpoint({
  id: "reviseTaskAsSupervisor",
  method: "POST",
  path: "/api/tasks/{taskId}/revisions",
  summary: "A supervisor changes what done means for a task",
  caller: SUPERVISOR,
  params: taskParams,
  body: reviseTaskBodySchema,
  success: { status: [201], schema: z.object({ task: taskSchema }), description: "{task}" },
  refusals: ["not_found"],
});

export const diffCorpusEndpoint = defineEndpoint({
  id: "exportDiffCorpus",
  method: "GET",
  path: "/api/audit/diffs.jsonl",
  summary: "Every stored edit as one JSON object per line (evaluation cases)",
  caller: SUPERVISOR,
  success: { status: [200], schema: z.string(), description: "application/x-ndjson", contentType: "application/x-ndjson" },
  refusals: [],
});

// ── admin API ────────────────────────────────────────────────────────────────

const userParams = z.object({ userId: idParam });

export const listUsersEndpoint = defineEndpoint({
  id: "listUsers",
  method: "GET",
  path: "/api/admin/users",
  summary: "People, one page",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ users: z.array(adminUserSchema), nextCursor: z.string().nullable().optional() }), description: "{users, nextCursor}" },
  refusals: [],
});

export const createUserEndpoint = defineEndpoint({
  id: "createUser",
  method: "POST",
  path: "/api/admin/users",
  summary: "Create a person with a role and an initial password",
  caller: ADMIN,
  body: createUserSchema,
  success: { status: [201], schema: z.object({ user: adminUserSchema }), description: "{user}" },
  refusals: ["email_taken"],
});

export const getUserEndpoint = defineEndpoint({
  id: "getUser",
  method: "GET",
  path: "/api/admin/users/{userId}",
  summary: "A person with a grant row per tool",
  caller: ADMIN,
  params: userParams,
  success: { status: [200], schema: z.object({ user: adminUserSchema, grants: z.array(grantViewSchema) }), description: "{user, grants}" },
  refusals: ["not_found"],
});

export const updateUserEndpoint = defineEndpoint({
  id: "updateUser",
  method: "PATCH",
  path: "/api/admin/users/{userId}",
  summary: "Change a person's role or disable them (ends their sessions)",
  caller: ADMIN,
  params: userParams,
  body: updateUserSchema,
  success: { status: [200], schema: z.object({ user: adminUserSchema }), description: "{user}" },
  refusals: ["not_found", "last_admin"],
});

export const setGrantEndpoint = defineEndpoint({
  id: "setGrant",
  method: "PUT",
  path: "/api/admin/users/{userId}/grants/{tool}",
  summary: "Set a person's authority over one tool (approve, author, ceilings)",
  caller: ADMIN,
  params: z.object({ userId: idParam, tool: idParam }),
  body: grantInputSchema,
  success: { status: [200], schema: z.object({ grant: grantViewSchema }), description: "{grant}" },
  refusals: ["not_found"],
});

export const listAgentsEndpoint = defineEndpoint({
  id: "listAgents",
  method: "GET",
  path: "/api/admin/agents",
  summary: "Agents with their allowlists and keys",
  caller: ADMIN,
  success: { status: [200], schema: z.object({ agents: z.array(agentViewSchema) }), description: "{agents}" },
  refusals: [],
});

export const createAgentEndpoint = defineEndpoint({
  id: "createAgent",
  method: "POST",
  path: "/api/admin/agents",
  summary: "Create an agent with a tool allowlist",
  caller: ADMIN,
  body: createAgentSchema,
  success: { status: [201], schema: z.object({ agent: agentViewSchema }), description: "{agent}" },
  refusals: [],
});

export const createApiKeyEndpoint = defineEndpoint({
  id: "createApiKey",
  method: "POST",
  path: "/api/admin/agents/{agentId}/keys",
  summary: "Create an API key for an agent (shown once)",
  caller: ADMIN,
  params: z.object({ agentId: idParam }),
  success: { status: [201], schema: z.object({ apiKey: apiKeySchema, key: z.string() }), description: "{apiKey, key} — the key is shown only here" },
  refusals: ["not_found"],
});

export const revokeApiKeyEndpoint = defineEndpoint({
  id: "revokeApiKey",
  method: "POST",
  path: "/api/admin/agents/{agentId}/keys/{keyId}/revoke",
  summary: "Revoke an agent's API key",
  caller: ADMIN,
  params: z.object({ agentId: idParam, keyId: idParam }),
  success: { status: [200], schema: z.object({ apiKey: apiKeySchema }), description: "{apiKey}" },
  refusals: ["not_found"],
});

export const listIntegrationKeysEndpoint = defineEndpoint({
  id: "listIntegrationKeys",
  method: "GET",
  path: "/api/admin/integration-keys",
  summary: "Ticketing-integration keys (prefix, created, last used, revoked)",
  caller: ADMIN,
  success: { status: [200], schema: z.object({ integrationKeys: z.array(integrationKeySchema) }), description: "{integrationKeys}" },
  refusals: [],
});

export const createIntegrationKeyEndpoint = defineEndpoint({
  id: "createIntegrationKey",
  method: "POST",
  path: "/api/admin/integration-keys",
  summary: "Create a ticketing-integration key (shown once); it may post task revisions and nothing else",
  caller: ADMIN,
  body: createIntegrationKeySchema,
  success: { status: [201], schema: z.object({ integrationKey: integrationKeySchema, key: z.string() }), description: "{integrationKey, key} — the key is shown only here" },
  refusals: [],
});

export const revokeIntegrationKeyEndpoint = defineEndpoint({
  id: "revokeIntegrationKey",
  method: "POST",
  path: "/api/admin/integration-keys/{keyId}/revoke",
  summary: "Revoke a ticketing-integration key (its next request gets 401)",
  caller: ADMIN,
  params: z.object({ keyId: idParam }),
  success: { status: [200], schema: z.object({ integrationKey: integrationKeySchema }), description: "{integrationKey}" },
  refusals: ["not_found"],
});

// ── public ───────────────────────────────────────────────────────────────────

export const openApiEndpoint = defineEndpoint({
  id: "getOpenApi",
  method: "GET",
  path: "/api/openapi.json",
  summary: "This document",
  caller: { kind: "public" },
  success: { status: [200], schema: z.record(z.string(), z.unknown()), description: "OpenAPI 3.1" },
  refusals: [],
});

/** Every declared endpoint, in the order API.md lists them. */
export const ENDPOINTS: readonly Endpoint[] = [
  listTasksEndpoint,
  getTaskEndpoint,
  submitRunEndpoint,
  getAgentRunEndpoint,
  claimStepEndpoint,
  fenceClaimEndpoint,
  reportOutcomeEndpoint,
  agentReviseTaskEndpoint,
  demoEffectEndpoint,
  listQueueEndpoint,
  searchRecordsEndpoint,
  getRunDetailsEndpoint,
  submitEditEndpoint,
  discardEditEndpoint,
  getEditEndpoint,
  diffVersionsEndpoint,
  approveStepsEndpoint,
  rejectRunEndpoint,
  reconcileStepEndpoint,
  runAuditEndpoint,
  operatorReviseTaskEndpoint,
  diffCorpusEndpoint,
  listUsersEndpoint,
  createUserEndpoint,
  getUserEndpoint,
  updateUserEndpoint,
  setGrantEndpoint,
  listAgentsEndpoint,
  createAgentEndpoint,
  createApiKeyEndpoint,
  revokeApiKeyEndpoint,
  listIntegrationKeysEndpoint,
  createIntegrationKeyEndpoint,
  revokeIntegrationKeyEndpoint,
  listToolCatalogEndpoint,
  importToolsEndpoint,
  setAllowedToolsEndpoint,
  openApiEndpoint,
];
