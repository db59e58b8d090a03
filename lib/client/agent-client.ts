/**
 * The typed client of Plandesk's agent and executor API (docs/api.md "Agent and executor API"),
 * generated from the endpoint declarations (lib/api/endpoints.ts) through `callEndpoint`
 * (lib/client/api-client.ts): paths, bodies, answers and refusal codes come from the same
 * declarations the server's route handlers use, so client and server cannot drift.
 *
 * Every call resolves — it never throws — with a discriminated union:
 * `{ok: true, status, replayed, ...body}` or `{ok: false, status, error: {code, message, ...details}}`,
 * where `code` is typed per call. A network failure is `{ok: false, status: 0, error: {code: "network_error"}}`;
 * an answer that is not the API's JSON is `code: "bad_response"`. Node ≥ 20.
 *
 *   const pd = createAgentClient({ baseUrl: "http://localhost:3000", apiKey: "pd_demo_agent_key" });
 *   const claim = await pd.claimStep(runId, stepId, { digest, taskRevision }, { idempotencyKey });
 *   if (!claim.ok && claim.error.code === "stopped_stale_task") console.log(claim.error.blockedStepId);
 */
import type { z } from "zod";
import {
  agentReviseTaskEndpoint,
  claimStepEndpoint,
  demoEffectEndpoint,
  fenceClaimEndpoint,
  getAgentRunEndpoint,
  getTaskEndpoint,
  listTasksEndpoint,
  reportOutcomeEndpoint,
  submitRunEndpoint,
} from "../api/endpoints";
import type { claimSchema, demoEffectSchema, fenceSchema, runSchema, runStepSchema, stepExecutionSchema, taskSchema, validationIssueSchema } from "../api/schemas";
import type { RunStatus as RunStatusOf } from "../lifecycle/run-state";
import { callEndpoint, type ApiError, type ClientOptions, type RefusalOf, type Result } from "./api-client";

export type { ApiError, CommonErrorCode, Failure, Result } from "./api-client";
/** What the agent knows about a step (docs/api.md: title, rationale, evidence, risk, stopCondition), all optional. */
export type { EvidenceRef, StepReasons } from "../plan/schema";
import type { StepReasons } from "../plan/schema";

// ── shapes of docs/api.md (inferred from the declarations' schemas) ─────────────────

/** Money as docs/api.md sends it: integer minor units (cents) and an ISO 4217 currency. */
export type Money = { minor: number; currency: string };
/** A task: its ticket, customer account and revision counter. */
export type Task = z.output<typeof taskSchema>;
/** Run statuses of docs/api.md. */
export type RunStatus = RunStatusOf;
/** What an executor reports after a write; `unknown` waits for a person, never replayed. */
export type StepOutcomeStatus = "succeeded" | "failed" | "unknown";
/** One step of a run as stored: the tool call, its digest (hex SHA-256 of RFC 8785 `{tool, args}`), author, gate, approval, execution. */
export type RunStep = z.output<typeof runStepSchema>;
/** The `run` object of docs/api.md. Times are ISO-8601 UTC strings. */
export type Run = z.output<typeof runSchema>;
/** A typed validation issue (docs/api.md): stage, code, severity, step, path, message. */
export type ValidationIssue = z.output<typeof validationIssueSchema>;
/** A granted claim: the token to report the outcome with, for exactly this step and digest. */
export type Claim = z.output<typeof claimSchema>;
/** The stored execution of a step after an outcome report or reconciliation. */
export type StepExecution = z.output<typeof stepExecutionSchema>;
/** A claim token that still holds (`POST /api/v1/claims/{token}/fence`). */
export type Fence = z.output<typeof fenceSchema>;
/** Demo mode only: what the console's demo executor wrote for a claimed step. */
export type DemoEffect = z.output<typeof demoEffectSchema>;

/** A step as an agent submits it (`id` optional: the console assigns one), with its optional reasons. */
export interface StepInput extends StepReasons {
  id?: string;
  tool: string;
  args: Record<string, unknown>;
  provenance?: Record<string, unknown>;
  [field: string]: unknown;
}

// ── refusals (from the declarations) ───────────────────────────────────────────

/** Typed refusals of a claim. */
export type ClaimRefusalCode = RefusalOf<typeof claimStepEndpoint>;
/** Typed refusals of a submission. */
export type SubmitRefusalCode = RefusalOf<typeof submitRunEndpoint>;
/** Typed refusals of a fence check. */
export type FenceRefusalCode = RefusalOf<typeof fenceClaimEndpoint>;
/** Typed refusals of an outcome report. */
export type OutcomeRefusalCode = RefusalOf<typeof reportOutcomeEndpoint>;
/** Typed refusals of the demo-only effect writer. */
export type EffectRefusalCode = RefusalOf<typeof demoEffectEndpoint>;

// ── the client ─────────────────────────────────────────────────────────────────

/** `baseUrl` of the console, the agent `apiKey`, an optional ticketing `integrationKey` and `fetch` (tests). */
export interface AgentClientOptions {
  /** Origin of the console, e.g. "http://localhost:3000". */
  baseUrl: string;
  /** The agent's API key (sent as `Authorization: Bearer <key>`). */
  apiKey: string;
  /** The ticketing integration's key, for `reviseTask` (task revisions are not an agent's to make). */
  integrationKey?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

/** The calls of the agent and executor API; none throws (see the file docstring). */
export interface AgentClient {
  listTasks(filter?: { ticketId?: string }): Promise<Result<{ tasks: Task[] }>>;
  getTask(taskId: string): Promise<Result<{ task: Task }>>;
  submitRun(
    taskId: string,
    body: { taskRevision: number; steps: StepInput[]; expiresInSeconds?: number },
    opts?: { idempotencyKey?: string },
  ): Promise<Result<{ run: Run }, SubmitRefusalCode>>;
  /** `opts.waitSeconds` (1–30): long poll — held while the run waits for review, until it changes or the time passes. */
  getRun(runId: string, opts?: { waitSeconds?: number }): Promise<Result<{ run: Run }>>;
  claimStep(runId: string, stepId: string, body: { digest: string; taskRevision: number }, opts: { idempotencyKey: string }): Promise<Result<{ claim: Claim }, ClaimRefusalCode>>;
  /** Whether a claim token still holds — call it inside the write it guards. */
  fenceClaim(token: string): Promise<Result<{ fence: Fence }, FenceRefusalCode>>;
  reportOutcome(
    runId: string,
    stepId: string,
    body: { token: string; status: StepOutcomeStatus | "cannot_execute"; detail?: string },
  ): Promise<Result<{ step: StepExecution; run: { id: string; status: RunStatus } }, OutcomeRefusalCode>>;
  /** The ticketing integration's call (needs `integrationKey`): records a change of the task. */
  reviseTask(taskId: string, body: { body?: string; comment?: string }): Promise<Result<{ task: Task }>>;
  /** Demo mode only (not in docs/api.md): let the console's demo executor write a claimed step. */
  applyDemoEffect(body: { runId: string; stepId: string; token: string }): Promise<Result<{ effect: DemoEffect }, EffectRefusalCode>>;
}

/** Creates a client for one console and one agent key. See the module comment for the result shape. */
export function createAgentClient(opts: AgentClientOptions): AgentClient {
  const agent: ClientOptions = { baseUrl: opts.baseUrl, credential: opts.apiKey, fetch: opts.fetch };
  const integration: ClientOptions = { ...agent, credential: opts.integrationKey ?? opts.apiKey };
  return {
    listTasks: (filter = {}) => callEndpoint(agent, listTasksEndpoint, { query: filter }),
    getTask: (taskId) => callEndpoint(agent, getTaskEndpoint, { params: { taskId } }),
    submitRun: (taskId, body, o = {}) => callEndpoint(agent, submitRunEndpoint, { params: { taskId }, body, idempotencyKey: o.idempotencyKey }),
    getRun: (runId, opts) => callEndpoint(agent, getAgentRunEndpoint, { params: { runId }, ...(opts?.waitSeconds ? { query: { wait: Math.min(30, Math.max(1, Math.floor(opts.waitSeconds))) } } : {}) }),
    claimStep: (runId, stepId, body, o) => callEndpoint(agent, claimStepEndpoint, { params: { runId, stepId }, body, idempotencyKey: o.idempotencyKey }),
    fenceClaim: (token) => callEndpoint(agent, fenceClaimEndpoint, { params: { token } }),
    reportOutcome: (runId, stepId, body) => callEndpoint(agent, reportOutcomeEndpoint, { params: { runId, stepId }, body }),
    reviseTask: (taskId, body) => callEndpoint(integration, agentReviseTaskEndpoint, { params: { taskId }, body }),
    applyDemoEffect: (body) => callEndpoint(agent, demoEffectEndpoint, { body }),
  };
}

/** What a write reports: its outcome and a line for the console. */
export interface WriteOutcome {
  status: StepOutcomeStatus;
  detail?: string;
}

/** What `executeStep` did: claimed and wrote (with the outcome reported), or stopped with the typed reason, writing nothing. */
export type ExecuteResult =
  | { ok: true; claim: Claim; outcome: WriteOutcome; reported: boolean }
  | { ok: false; stage: "claim" | "fence"; error: ApiError<string>; claim?: Claim };

/**
 * Claim → write → report, the reference executor's loop for one step (docs/design.md §9):
 * claims the step with its approved `digest` and the bound `taskRevision`; hands `write` the claim
 * and a `fence` that asks the console whether the token still holds — call it inside the write's
 * own transaction, right before committing; if it does not hold, write nothing and return
 * `{status: "failed"}` or throw. The outcome `write` returns is reported; a `write` that throws
 * after the fence held is reported `unknown` (a person finds out what happened — never retried).
 * A refused claim or fence stops with the typed reason. Never throws for API refusals.
 */
export async function executeStep(
  client: AgentClient,
  step: { runId: string; stepId: string; digest: string; taskRevision: number; idempotencyKey: string },
  write: (ctx: { claim: Claim; fence: () => Promise<Result<{ fence: Fence }, FenceRefusalCode>> }) => Promise<WriteOutcome>,
): Promise<ExecuteResult> {
  const claimed = await client.claimStep(step.runId, step.stepId, { digest: step.digest, taskRevision: step.taskRevision }, { idempotencyKey: step.idempotencyKey });
  if (!claimed.ok) return { ok: false, stage: "claim", error: claimed.error };
  const claim = claimed.claim;
  let fenceRefusal: ApiError<string> | null = null;
  const fence = async () => {
    const f = await client.fenceClaim(claim.token);
    if (!f.ok) fenceRefusal = f.error;
    return f;
  };
  let outcome: WriteOutcome;
  try {
    outcome = await write({ claim, fence });
  } catch (e) {
    outcome = fenceRefusal ? { status: "failed", detail: `not written: ${(fenceRefusal as ApiError<string>).code}` } : { status: "unknown", detail: `the write threw: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (fenceRefusal && outcome.status === "succeeded") outcome = { status: "failed", detail: `not written: the fence refused (${(fenceRefusal as ApiError<string>).code})` };
  const reported = await client.reportOutcome(step.runId, step.stepId, { token: claim.token, status: outcome.status, ...(outcome.detail ? { detail: outcome.detail } : {}) });
  if (fenceRefusal) return { ok: false, stage: "fence", error: fenceRefusal, claim };
  return { ok: true, claim, outcome, reported: reported.ok };
}
