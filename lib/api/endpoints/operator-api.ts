/** Declarations of the operator API (`/api`, session): queue, run details, edits, diffs, approvals, rejections, reconciliation, audit (docs/api.md). */
import { z } from "zod";
import { reconcileBodySchema } from "../reconcile-body";
import { RUN_STATES } from "../../lifecycle/run-state";
import { reviseTaskBodySchema } from "../../task-contract/task-revision";
import { approveBodySchema, rejectBodySchema, submitEditBodySchema } from "../bodies";
import { defineEndpoint } from "../contract";
import { CORPUS_SIGNALS } from "./outcomes-api";
import { approvalSchema, editDetailSchema, editResultSchema, planDiffResponseSchema, queuePageSchema, recordOptionSchema, runAuditSchema, runDetailsSchema, runSchema, stepExecutionSchema, taskSchema } from "../schemas";
import { planSchema } from "../../plan/schema";
import { DECLARED_KIND_NAME } from "../../records/record-kinds";
import { queueOwnershipQuery } from "./ownership-api";
import { idParam, version, runParams, stepParams, taskParams, page, PEOPLE, DESK, SUPERVISOR } from "./common";

// ── operator API (/api, session) ─────────────────────────────────────────────

export const listQueueEndpoint = defineEndpoint({
  id: "listQueue",
  method: "GET",
  path: "/api/runs",
  summary: "The queue: runs of the viewer's desk, newest first, one page",
  caller: PEOPLE,
  query: z.object({ status: z.enum(RUN_STATES).optional(), ...page, ...queueOwnershipQuery }),
  success: {
    status: [200],
    schema: queuePageSchema,
    description: "{runs, nextCursor, serverNow}",
  },
  refusals: [],
});

export const searchRecordsEndpoint = defineEndpoint({
  id: "searchRecords",
  method: "GET",
  path: "/api/account-data/{kind}",
  summary: "Account records of a kind whose id starts with q (the edit form's id fields)",
  caller: PEOPLE,
  params: z.object({
    kind: z.union([z.enum(["invoice", "shipment", "ticket", "account"]), z.string().regex(DECLARED_KIND_NAME, "A record kind: invoice, shipment, ticket, account or a kind the desk declared")]).meta({
      description: "A built-in kind, or a kind the desk declared (its records of the caller's desk, or of `desk`; a supervisor or admin who names no desk finds none of a declared kind)",
    }),
  }),
  query: z.object({ q: z.string().max(128).default(""), desk: z.string().max(64).optional() }),
  success: { status: [200], schema: z.object({ records: z.array(recordOptionSchema) }), description: "{records} (at most 20, id order) of the caller's desk (operators) or of `desk`" },
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
  success: {
    status: [201, 200],
    schema: z.object({ approvals: z.array(approvalSchema), run: runSchema, alreadyApproved: z.array(z.string()).optional(), added: z.number().int().optional(), approvedAgain: z.array(z.string()).optional().describe("needs_decision: the blocked step this person approved again after a fresh validation") }),
    description: "201 {approvals, run, alreadyApproved, added}; 200 with added: 0 and the steps in alreadyApproved when every listed step was already approved; the same key again gives the same body",
  },
  refusals: ["not_found", "expired", "run_not_pending", "stale_plan_version", "stale_task", "approval_denied", "author_may_not_approve", "already_approved_by_you", "acknowledgement_required", "concurrent_run_unacknowledged", "validation_failed", "stale_account_data", "idempotency_conflict", "signature_required", "signature_mismatch", "signature_replayed"],
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
  summary: "Every stored edit as one JSON object per line (evaluation cases), with its run's outcome record and label",
  description:
    "Discarded edits (\"discard my edits\") are left out, as insights leave them out; ?discarded=include adds them, each line saying so (`discarded: true`). A line whose plan before or after the edit has signed approvals carries `signedApprovals` (step, plan version, digest, approver, state and the signature record with the approver's credential id and COSE public key), which `npm run verify-approvals -- --file` re-checks offline. ?label=better|same|worse|none and ?signal=<signal>|none keep the edits whose run has that label (none: unlabelled) or computed signal (none: an outcome with no signal).",
  caller: SUPERVISOR,
  query: z.object({ label: z.enum(["better", "same", "worse", "none"]).optional(), signal: z.enum(CORPUS_SIGNALS).optional(), discarded: z.enum(["include"]).optional() }),
  success: { status: [200], schema: z.string(), description: "application/x-ndjson", contentType: "application/x-ndjson" },
  refusals: [],
});
