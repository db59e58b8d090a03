import { z } from "zod";
import { planDiffSchema } from "./diff/plan-diff";
import { ERROR_STATUS } from "./errors";
import { planSchema, stepSchema } from "./plan/schema";
import { importedToolSpecSchema } from "./tools/json-schema-tool";
import { reviseTaskBodySchema } from "./task-schema";
import { VALIDATION_STAGES } from "./validation/types";

/**
 * Request bodies of the HTTP API, by the same zod schemas the handlers parse with. Passed in by
 * the route (which may import server modules) so this file stays free of them.
 */
export interface OpenApiBodies {
  submitRun: z.ZodType;
  claim?: z.ZodType;
  outcome?: z.ZodType;
  edit: z.ZodType;
  approve: z.ZodType;
  reject: z.ZodType;
  /** `POST /api/admin/tools/import` (issue #15). */
  importTools?: z.ZodType;
  /** `PUT /api/admin/agents/{agentId}/allowed-tools` (issue #15). */
  allowedTools?: z.ZodType;
}

const errorBody = z.object({
  error: z.object({ code: z.enum(Object.keys(ERROR_STATUS) as [string, ...string[]]), message: z.string() }).catchall(z.unknown()),
});
const issue = z.object({
  stage: z.enum(VALIDATION_STAGES),
  code: z.string(),
  severity: z.enum(["error", "warning"]),
  stepId: z.string().optional(),
  path: z.string().optional(),
  message: z.string(),
  needsAcknowledgement: z.boolean().optional(),
});
const runStep = stepSchema.extend({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  gate: z.enum(["approval_required", "auto"]),
  approval: z.object({ id: z.string(), state: z.string(), approverId: z.string().nullable() }).nullable(),
});
const run = z.object({
  id: z.string(),
  taskId: z.string(),
  agentId: z.string(),
  status: z.enum(["pending_review", "approved", "rejected", "expired", "executing", "completed", "stopped", "failed"]),
  planVersion: z.number().int(),
  boundTaskRevision: z.number().int(),
  catalogVersion: z.number().int().nullable().describe("Tool catalog version the run is validated against (null: built-in tools only)"),
  expiresAt: z.string(),
  rejectionReason: z.string().nullable(),
  steps: z.array(runStep),
});
const task = z.object({ id: z.string(), ticketId: z.string(), accountId: z.string(), revision: z.number().int(), body: z.string() });

const json = (schema: z.ZodType) => ({ content: { "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) } } });
const refusal = (description: string) => ({ description, ...json(errorBody) });

/**
 * Builds the OpenAPI 3.1 document of API.md from zod schemas (bodies, run, task, diff, issues).
 * Pure; the route `GET /api/openapi.json` serves it.
 */
export function buildOpenApi(bodies: OpenApiBodies) {
  const agent = [{ agentKey: [] }];
  const session = [{ session: [] }];
  const idem = { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string" } };
  const p = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });
  return {
    openapi: "3.1.0",
    info: { title: "Plandesk API", version: "1.0.0", description: "Agents submit plans and claim steps before every write; operators review, edit and approve." },
    components: {
      securitySchemes: {
        agentKey: { type: "http", scheme: "bearer", description: "Agent API key (/api/v1 only)" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token", description: "Operator session (same-origin only)" },
      },
      schemas: {
        Error: z.toJSONSchema(errorBody),
        Run: z.toJSONSchema(run, { unrepresentable: "any" }),
        Task: z.toJSONSchema(task),
        Plan: z.toJSONSchema(planSchema, { io: "input", unrepresentable: "any" }),
        ValidationIssue: z.toJSONSchema(issue),
        PlanDiff: z.toJSONSchema(planDiffSchema, { unrepresentable: "any" }),
        ImportedTool: z.toJSONSchema(importedToolSpecSchema, { unrepresentable: "any" }),
      },
    },
    paths: {
      "/api/v1/tasks": { get: { security: agent, parameters: [{ name: "ticketId", in: "query", schema: { type: "string" } }], responses: { 200: { description: "{tasks}", ...json(z.object({ tasks: z.array(task) })) }, 401: refusal("unauthorized") } } },
      "/api/v1/tasks/{taskId}": { get: { security: agent, parameters: [p("taskId")], responses: { 200: { description: "{task}", ...json(z.object({ task })) }, 404: refusal("not_found") } } },
      "/api/v1/tasks/{taskId}/runs": {
        post: {
          security: agent,
          parameters: [p("taskId"), idem],
          requestBody: json(bodies.submitRun),
          responses: { 201: { description: "{run}", ...json(z.object({ run })) }, 409: refusal("stale_task {boundRevision, liveRevision}"), 422: { description: "validation_failed {issues}", ...json(z.object({ error: z.object({ code: z.literal("validation_failed"), message: z.string(), issues: z.array(issue) }) })) } },
        },
      },
      "/api/v1/tasks/{taskId}/revisions": { post: { security: agent, parameters: [p("taskId")], requestBody: json(reviseTaskBodySchema), responses: { 201: { description: "{task}", ...json(z.object({ task })) }, 404: refusal("not_found") } } },
      "/api/v1/runs/{runId}": { get: { security: agent, parameters: [p("runId")], responses: { 200: { description: "{run}", ...json(z.object({ run })) }, 404: refusal("not_found") } } },
      "/api/v1/runs/{runId}/steps/{stepId}/claim": {
        post: {
          security: agent,
          parameters: [p("runId"), p("stepId"), idem],
          ...(bodies.claim ? { requestBody: json(bodies.claim) } : {}),
          responses: { 200: { description: "{claim: {token, stepId, digest}}" }, 409: refusal("stopped_stale_task | digest_mismatch | approval_missing | approval_revoked | already_claimed | run_not_approved | expired | stale_task"), 422: refusal("validation_failed (the step no longer passes against live account data)") },
        },
      },
      "/api/v1/runs/{runId}/steps/{stepId}/outcome": {
        post: { security: agent, parameters: [p("runId"), p("stepId")], ...(bodies.outcome ? { requestBody: json(bodies.outcome) } : {}), responses: { 200: { description: "{step}" }, 409: refusal("invalid_claim_token") } },
      },
      "/api/runs": { get: { security: session, parameters: [{ name: "status", in: "query", schema: { type: "string" } }], responses: { 200: { description: "{runs}" }, 401: refusal("unauthorized") } } },
      "/api/runs/{runId}": { get: { security: session, parameters: [p("runId")], responses: { 200: { description: "{run, planVersions, validation, accountContext}" }, 404: refusal("not_found") } } },
      "/api/runs/{runId}/edits": {
        post: {
          security: session,
          parameters: [p("runId")],
          requestBody: json(bodies.edit),
          responses: { 201: { description: "{planVersion, diff, validation}", ...json(z.object({ planVersion: planSchema, diff: planDiffSchema })) }, 403: refusal("authorship_denied | cross_origin"), 409: refusal("stale_plan_version {currentVersion, plan}"), 422: refusal("validation_failed {issues}") },
        },
      },
      "/api/runs/{runId}/edits/{version}/discard": { post: { security: session, parameters: [p("runId"), p("version")], responses: { 201: { description: "{planVersion}" }, 409: refusal("stale_plan_version") } } },
      "/api/runs/{runId}/approvals": {
        post: { security: session, parameters: [p("runId")], requestBody: json(bodies.approve), responses: { 201: { description: "{approvals, run}" }, 403: refusal("approval_denied"), 409: refusal("stale_plan_version | expired | stale_task"), 422: refusal("acknowledgement_required | validation_failed") } },
      },
      "/api/runs/{runId}/rejections": { post: { security: session, parameters: [p("runId")], requestBody: json(bodies.reject), responses: { 201: { description: "{run}" }, 409: refusal("stale_plan_version | expired") } } },
      "/api/runs/{runId}/diff": { get: { security: session, parameters: [p("runId"), { name: "from", in: "query", required: true, schema: { type: "integer" } }, { name: "to", in: "query", required: true, schema: { type: "integer" } }], responses: { 200: { description: "{diff, reapproval, from, to}" } } } },
      "/api/tasks/{taskId}/revisions": { post: { security: session, parameters: [p("taskId")], requestBody: json(reviseTaskBodySchema), responses: { 201: { description: "{task}" }, 403: refusal("forbidden (supervisors only)") } } },
      "/api/runs/{runId}/audit": { get: { security: session, parameters: [p("runId")], responses: { 200: { description: "{events: [{seq, type, actor: {kind, id, name?}, at, data}], run, planVersions, edits} — operators and supervisors" }, 403: refusal("forbidden (admins)"), 404: refusal("not_found") } } },
      "/api/runs/{runId}/edits/{version}": { get: { security: session, parameters: [p("runId"), p("version"), { name: "part", in: "query", schema: { type: "string", enum: ["before", "after", "diff"] } }, { name: "download", in: "query", schema: { type: "string", enum: ["1"] } }], responses: { 200: { description: "{before, after, diff, editorId, createdAt, runId, fromVersion, toVersion, editorName} (or only `part`)" }, 403: refusal("forbidden (admins)"), 404: refusal("not_found") } } },
      "/api/admin/tools": {
        get: { security: session, responses: { 200: { description: "{catalogVersion, imported: [ImportedTool], builtIn: [name]} — admins", ...json(z.object({ catalogVersion: z.number().int().nullable(), imported: z.array(importedToolSpecSchema), builtIn: z.array(z.string()) })) }, 403: refusal("forbidden") } },
      },
      "/api/admin/tools/import": {
        post: {
          security: session,
          description: "Imports tools from a pasted MCP tools/list result, pasted OpenAI function definitions, or a server named in PLANDESK_MCP_SERVERS. A change makes catalog version N+1; MCP annotations set gate defaults (readOnlyHint → auto; destructiveHint false → approval; destructive or unannotated → irreversible).",
          ...(bodies.importTools ? { requestBody: json(bodies.importTools) } : {}),
          responses: { 201: { description: "{catalogVersion, created, added, changed, unchanged, problems: [{name, reason}]}" }, 400: refusal("bad_request"), 403: refusal("forbidden | cross_origin"), 422: refusal("validation_failed {problems}") },
        },
      },
      "/api/admin/agents/{agentId}/allowed-tools": {
        put: { security: session, parameters: [p("agentId")], ...(bodies.allowedTools ? { requestBody: json(bodies.allowedTools) } : {}), responses: { 200: { description: "{agent: {id, allowedTools}}" }, 400: refusal("bad_request {unknown}"), 403: refusal("forbidden | cross_origin"), 404: refusal("not_found") } },
      },
      "/api/audit/diffs.jsonl": { get: { security: session, responses: { 200: { description: "application/x-ndjson: one {runId, fromVersion, toVersion, editorId, before, after, diff, outcome} per edit", content: { "application/x-ndjson": { schema: { type: "string" } } } }, 403: refusal("forbidden (supervisors only)") } } },
    },
  };
}
