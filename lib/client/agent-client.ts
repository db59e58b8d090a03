/**
 * A small typed client for Plandesk's agent and executor API (API.md "Agent and executor API"),
 * fetch-based with no dependencies, usable from Node ≥ 20, Deno, Bun or a browser.
 *
 * Every call resolves — it never throws — with a discriminated union:
 * `{ok: true, status, ...body}` or `{ok: false, status, error: {code, message, ...details}}`,
 * where `code` is typed per call (the refusals API.md lists for it, plus the generic ones).
 * A network failure is `{ok: false, status: 0, error: {code: "network_error"}}`; an answer
 * that is not the API's JSON is `code: "bad_response"`.
 *
 *   const pd = createAgentClient({ baseUrl: "http://localhost:3000", apiKey: "pd_demo_agent_key" });
 *   const claim = await pd.claimStep(runId, stepId, { digest, taskRevision }, { idempotencyKey });
 *   if (!claim.ok && claim.error.code === "stopped_stale_task") console.log(claim.error.blockedStepId);
 */

// ── shapes of API.md ───────────────────────────────────────────────────────────

/** Money as API.md sends it: integer minor units (cents) and an ISO 4217 currency. */
export type Money = { minor: number; currency: string };

/** A task (`GET /api/v1/tasks/{taskId}`): its ticket, customer account and revision counter. */
export interface Task {
  id: string;
  ticketId: string;
  accountId: string;
  revision: number;
  body: string;
  updatedAt?: string;
}

/** Run statuses of API.md. */
export type RunStatus = "pending_review" | "approved" | "rejected" | "expired" | "executing" | "completed" | "stopped" | "failed";
/** What an executor reports after a write; `unknown` waits for a person, never replayed. */
export type StepOutcomeStatus = "succeeded" | "failed" | "unknown";

/** A record a step relies on, e.g. `{recordType: "shipment", recordId: "sh_5521"}` (API.md step reasons). */
export interface EvidenceRef {
  recordType: string;
  recordId: string;
  note?: string;
}

/**
 * What the agent knows about a step, all optional (API.md): a short `title`, the `rationale`,
 * the `evidence` it relies on, the `risk`, and a `stopCondition`. Shown to the operator; not
 * part of the digest; kept across operator edits.
 */
export interface StepReasons {
  title?: string;
  rationale?: string;
  evidence?: EvidenceRef[];
  risk?: string;
  stopCondition?: string;
}

/** One step of a run as stored: the tool call, its digest (hex SHA-256 of RFC 8785 `{tool, args}`), author, gate and approval. */
export interface RunStep extends StepReasons {
  id: string;
  position?: number;
  tool: string;
  args: Record<string, unknown>;
  provenance?: Record<string, unknown>;
  digest: string;
  author: { kind: "model" } | { kind: "user"; userId: string };
  gate: "approval_required" | "auto";
  approval: null | { id: string; state: string; approverId: string | null };
  execution?: null | { status: string; claimedAt: string; reportedAt: string | null; detail: string | null };
}

/** The `run` object of API.md. Times are ISO-8601 UTC strings. */
export interface Run {
  id: string;
  taskId: string;
  ticketId?: string;
  agentId: string;
  status: RunStatus;
  planVersion: number;
  approvedVersion?: number | null;
  boundTaskRevision: number;
  /** Tool catalog version the run is validated against (null: built-in tools only). */
  catalogVersion?: number | null;
  createdAt?: string;
  expiresAt: string;
  escalateAt?: string;
  rejectionReason?: string | null;
  stopReason?: unknown;
  steps: RunStep[];
}

/** A step as an agent submits it (`id` optional: the console assigns one), with its optional reasons. */
export interface StepInput extends StepReasons {
  id?: string;
  tool: string;
  args: Record<string, unknown>;
  provenance?: Record<string, unknown>;
}

/** A typed validation issue (API.md): stage, code, severity, step, path, message. */
export interface ValidationIssue {
  stage: "shape" | "structure" | "allowlist" | "argument_bounds" | "task_contract" | "content" | "authorship" | "gate";
  code: string;
  severity: "error" | "warning";
  stepId?: string;
  path?: string;
  message: string;
}

/** A granted claim: the token to report the outcome with, for exactly this step and digest. */
export interface Claim {
  token: string;
  stepId: string;
  digest: string;
  runId?: string;
  planVersion?: number;
  taskRevision?: number;
  approvalId?: string;
  claimedAt?: string;
}

/** The stored execution of a step after an outcome report or reconciliation. */
export interface StepExecution {
  runId: string;
  stepId: string;
  status: "claimed" | StepOutcomeStatus;
  outcome: "claimed" | StepOutcomeStatus;
  detail: string | null;
  claimedAt: string;
  reportedAt: string | null;
  resolution: "succeeded" | "failed" | null;
  [key: string]: unknown;
}

/** Demo mode only: what the console's demo executor wrote for a claimed step. */
export interface DemoEffect {
  runId: string;
  stepId: string;
  tool: string;
  summary: string;
  record: null | { type: string; id: string; before: Record<string, unknown>; after: Record<string, unknown> };
  appliedAt: string;
}

// ── refusals ───────────────────────────────────────────────────────────────────

/** Refusals any call can get. */
export type CommonErrorCode = "unauthorized" | "bad_request" | "invalid_json" | "not_found" | "internal" | "network_error" | "bad_response";

/** Typed refusals of a claim (API.md), plus what this console adds. */
export type ClaimRefusalCode =
  | "stopped_stale_task"
  | "digest_mismatch"
  | "approval_missing"
  | "already_claimed"
  | "run_not_approved"
  | "expired"
  | "stale_task"
  | "idempotency_conflict"
  | "validation_failed"
  | "approval_revoked";
/** Typed refusals of a submission. */
export type SubmitRefusalCode = "validation_failed" | "stale_task";
/** Typed refusals of an outcome report. */
export type OutcomeRefusalCode = "invalid_claim_token" | "outcome_already_reported";
/** Typed refusals of the demo-only effect writer. */
export type EffectRefusalCode = "invalid_claim_token" | "effect_failed";

/** An error body of API.md: `{code, message, ...details}`, with the details of the codes that carry some. */
export type ApiError<C extends string> = { code: C | CommonErrorCode; message: string } & {
  boundRevision?: number;
  liveRevision?: number;
  executedStepIds?: string[];
  blockedStepId?: string;
  issues?: ValidationIssue[];
  approvedDigest?: string;
  requestDigest?: string;
  stepStatus?: string;
  status?: string;
  reportedStatus?: string;
  [detail: string]: unknown;
};

/** A refused call: HTTP status (0 for a network failure) and the typed error body. */
export type Failure<C extends string> = { ok: false; status: number; error: ApiError<C> };
/** Every call's answer: the body with `ok: true`, or a `Failure` with the call's refusal codes. */
export type Result<T, C extends string = never> = ({ ok: true; status: number; replayed: boolean } & T) | Failure<C>;

// ── the client ─────────────────────────────────────────────────────────────────

/** `baseUrl` of the console, the agent `apiKey`, and an optional `fetch` (tests). */
export interface AgentClientOptions {
  /** Origin of the console, e.g. "http://localhost:3000". */
  baseUrl: string;
  /** The agent's API key (sent as `Authorization: Bearer <key>`). */
  apiKey: string;
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
  getRun(runId: string): Promise<Result<{ run: Run }>>;
  claimStep(
    runId: string,
    stepId: string,
    body: { digest: string; taskRevision: number },
    opts: { idempotencyKey: string },
  ): Promise<Result<{ claim: Claim }, ClaimRefusalCode>>;
  reportOutcome(
    runId: string,
    stepId: string,
    body: { token: string; status: StepOutcomeStatus; detail?: string },
  ): Promise<Result<{ step: StepExecution; run?: { id: string; status: RunStatus } }, OutcomeRefusalCode>>;
  reviseTask(taskId: string, body: { body?: string; comment?: string }): Promise<Result<{ task: Task }>>;
  /** Demo mode only (not in API.md): let the console's demo executor write a claimed step. */
  applyDemoEffect(body: { runId: string; stepId: string; token: string }): Promise<Result<{ effect: DemoEffect }, EffectRefusalCode>>;
}

/** Creates a client for one console and one agent key. See the module comment for the result shape. */
export function createAgentClient(opts: AgentClientOptions): AgentClient {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? fetch;
  const enc = encodeURIComponent;

  async function call<T, C extends string>(method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Result<T, C>> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${opts.apiKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      return { ok: false, status: 0, error: { code: "network_error", message: `The console at ${base} could not be reached: ${e instanceof Error ? e.message : String(e)}` } };
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without a JSON body.` } };
    }
    if (!res.ok) {
      const err = (json as { error?: ApiError<C> } | null)?.error;
      if (!err || typeof err.code !== "string") {
        return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without an error body.` } };
      }
      return { ok: false, status: res.status, error: err };
    }
    return { ok: true, status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", ...(json as T) };
  }

  return {
    listTasks: (filter = {}) => call("GET", `/api/v1/tasks${filter.ticketId ? `?ticketId=${enc(filter.ticketId)}` : ""}`),
    getTask: (taskId) => call("GET", `/api/v1/tasks/${enc(taskId)}`),
    submitRun: (taskId, body, o = {}) =>
      call("POST", `/api/v1/tasks/${enc(taskId)}/runs`, body, o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {}),
    getRun: (runId) => call("GET", `/api/v1/runs/${enc(runId)}`),
    claimStep: (runId, stepId, body, o) =>
      call("POST", `/api/v1/runs/${enc(runId)}/steps/${enc(stepId)}/claim`, body, { "idempotency-key": o.idempotencyKey }),
    reportOutcome: (runId, stepId, body) => call("POST", `/api/v1/runs/${enc(runId)}/steps/${enc(stepId)}/outcome`, body),
    reviseTask: (taskId, body) => call("POST", `/api/v1/tasks/${enc(taskId)}/revisions`, body),
    applyDemoEffect: (body) => call("POST", `/api/v1/demo/effects`, body),
  };
}
