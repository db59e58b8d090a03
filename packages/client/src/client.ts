/**
 * The typed client of Plandesk's agent and executor API, over `openapi-fetch` with the types
 * `openapi-typescript` generated from the console's OpenAPI document (./generated/openapi.ts,
 * made by the repository's scripts/package-openapi.ts; a test fails when it is stale). Paths,
 * bodies, answers and refusal codes are the document's, so client and console cannot drift.
 *
 * Every call resolves — it never throws — with a discriminated union:
 * `{ok: true, status, replayed, ...body}` or `{ok: false, status, error: {code, message, ...details}}`,
 * where `code` is typed per call and the details are the refusal's own fields (e.g. `runId` of
 * `task_has_live_run`, `blockedStepId` of `stopped_stale_task`). A network failure is
 * `{ok: false, status: 0, error: {code: "network_error"}}`; an answer that is not the API's JSON
 * is `code: "bad_response"`. `replayed` is the `Idempotent-Replayed: true` header. Node ≥ 20.
 *
 * A call that can be repeated safely — a GET, or a POST sent with an idempotency key — and is
 * answered `503 database_unavailable` (the console lost its database: a restart or a failover,
 * nothing was saved) is sent again after the answer's `Retry-After` seconds, a bounded number of
 * times (`retry` option, {@link RetryOptions}); the last answer is returned if it never succeeds.
 * Other calls return the 503 at once: without a key, repeating a write is the caller's decision.
 *
 *   const pd = createAgentClient({ baseUrl: "http://localhost:3000", apiKey: "pd_demo_agent_key" });
 *   const claim = await pd.claimStep(runId, stepId, { digest, taskRevision }, { idempotencyKey });
 *   if (!claim.ok && claim.error.code === "stopped_stale_task") console.log(claim.error.blockedStepId);
 */
import createClient from "openapi-fetch";
import type { components, operations, paths } from "./generated/openapi.js";
import { watchRunEvents, type WatchEnd, type WatchOptions } from "./watch-run.js";

type Schemas = components["schemas"];

// ── shapes of the document ─────────────────────────────────────────────────────

/** Money as the API sends it: integer minor units (cents) and an ISO 4217 currency. */
export type Money = { minor: number; currency: string };
/** A task: its ticket, customer account and revision counter. */
export type Task = Schemas["Task"];
/** Run statuses: pending_review, approved, needs_decision, executing, completed, failed, stopped, rejected, expired, superseded. */
export type RunStatus = Schemas["RunStatus"];
/** The typed end of a run that will not move on (`run.outcome`). */
export type RunOutcome = Schemas["RunOutcome"];
/** What an executor reports after a write; `unknown` waits for a person, never replayed. */
export type StepOutcomeStatus = "succeeded" | "failed" | "unknown";
/** One step of a run as stored: the tool call, its digest (hex SHA-256 of RFC 8785 `{tool, args}`), author, gate, approval, execution. */
export type RunStep = Schemas["RunStep"];
/** The `run` object. Times are ISO-8601 UTC strings; money in minor units. */
export type Run = Schemas["Run"];
/** A granted claim: the token to report the outcome with, for exactly this step and digest. */
export type Claim = Schemas["Claim"];
/** The stored execution of a step after an outcome report or reconciliation. */
export type StepExecution = Schemas["StepExecution"];
/**
 * Source versions by record key (`"<kind>:<id>"`, e.g. `{"invoice:in_74119": 8}`): the claim's
 * `recordVersions` (what the approval saw), the fence's and the outcome's `targetVersions`.
 */
export type RecordVersions = Record<string, number>;

/** A claim token that still holds (`POST /api/v1/claims/{token}/fence`). */
export type Fence = Schemas["Fence"];
/** Demo mode only: what the console's demo executor wrote for a claimed step. */
export type DemoEffect = Schemas["DemoEffect"];
/** A write of the demo reference target kept staged under its claim (nothing applied yet): its handle, step and status. */
export type StagedDemoEffect = Schemas["StagedEffect"];
/** The answer of a promotion: every staged write applied in plan order, every step reported, the run's status after. */
export type DemoPromotion = Schemas["DemoPromotion"];
/**
 * A typed validation issue, as a `validation_failed` refusal lists them in `error.issues`: the
 * validator's stage, the issue code, `error` (blocks) or `warning`, the step and argument path it
 * is about, a message for people, and whether a person must acknowledge it.
 */
export interface ValidationIssue {
  stage: string;
  code: string;
  severity: "error" | "warning";
  stepId?: string;
  path?: string;
  message: string;
  needsAcknowledgement?: boolean;
  [field: string]: unknown;
}
/** What a step's reasons point at: a record of account data, or a read step of the same plan. */
export type EvidenceRef = { recordType: string; recordId: string; note?: string } | { readStepId: string; note?: string };
/** What the agent knows about a step (title, rationale, evidence, risk, stopCondition), all optional. */
export interface StepReasons {
  title?: string;
  rationale?: string;
  evidence?: EvidenceRef[];
  risk?: string;
  stopCondition?: string;
}

/** A step as an agent submits it (`id` optional: the console assigns one), with its optional reasons. */
export interface StepInput extends StepReasons {
  id?: string;
  tool: string;
  args: Record<string, unknown>;
  provenance?: Record<string, unknown>;
  [field: string]: unknown;
}

// ── results and refusals ───────────────────────────────────────────────────────

/** Refusals any call can get besides its own (transport and generic ones). */
export type CommonErrorCode = "unauthorized" | "forbidden" | "bad_request" | "invalid_json" | "payload_too_large" | "not_found" | "internal" | "network_error" | "bad_response";

/** An error body: `{code, message, ...details}`. */
export type ApiError<C extends string> = { code: C | CommonErrorCode; message: string } & Record<string, unknown>;

/** A refused call: HTTP status (0 for a network failure) and the typed error body. */
export type Failure<C extends string> = { ok: false; status: number; error: ApiError<C> };

/** Every call's answer: the body with `ok: true`, or a `Failure` with the call's refusal codes. */
export type Result<T, C extends string = never> = ({ ok: true; status: number; replayed: boolean } & T) | Failure<C>;

type Responses<Op extends keyof operations> = operations[Op]["responses"];
/** The refusal codes the document lists for operation `Op` (every non-2xx answer's `error.code`). */
export type RefusalOf<Op extends keyof operations> = {
  [S in keyof Responses<Op>]: S extends 200 | 201 | 202 | 204 ? never : Responses<Op>[S] extends { content: { "application/json": { error: { code: infer C } } } } ? C : never;
}[keyof Responses<Op>] &
  string;
/** The JSON body operation `Op` answers with on success (its 200 or 201 answer). */
export type SuccessOf<Op extends keyof operations> = Responses<Op> extends { 201: { content: { "application/json": infer B } } }
  ? B
  : Responses<Op> extends { 200: { content: { "application/json": infer B } } }
    ? B
    : never;

/** Typed refusals of a claim. */
export type ClaimRefusalCode = RefusalOf<"claimStep">;
/** Typed refusals of a submission. */
export type SubmitRefusalCode = RefusalOf<"submitRun">;
/** Typed refusals of a fence check. */
export type FenceRefusalCode = RefusalOf<"fenceClaim">;
/** Typed refusals of an outcome report. */
export type OutcomeRefusalCode = RefusalOf<"reportOutcome">;
/** Typed refusals of the demo-only effect writer. */
export type EffectRefusalCode = RefusalOf<"applyDemoEffect">;
/** Typed refusals of the demo-only promotion of a run's staged writes. */
export type PromoteRefusalCode = RefusalOf<"promoteDemoEffects">;

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
  /** Retries of repeatable calls answered `503 database_unavailable`; `false`: none. */
  retry?: RetryOptions | false;
  /**
   * The W3C `traceparent` to send with every call (or a function asked before each call), so the
   * console's spans join the caller's trace. Absent: when `@opentelemetry/api` is installed (an
   * optional peer dependency) the caller's active OpenTelemetry context is propagated through its
   * global propagator (`traceparent`, `tracestate`); otherwise none is sent. The console answers
   * each call with a `traceresponse` header naming the trace.
   */
  traceparent?: string | (() => string | undefined);
}

/**
 * Bounds of the retries of a repeatable call answered `503 database_unavailable`. Each wait is the
 * answer's `Retry-After` (seconds; the body's `retryAfterSeconds` if the header is missing, else 1),
 * never shortened; the call gives up — returning that last 503 — after `maxRetries` retries, or
 * when the next wait is longer than `maxWaitSeconds` or would take the total waited beyond
 * `budgetSeconds`.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 6). */
  maxRetries?: number;
  /** Longest Retry-After in seconds the client waits out (default 30); a longer one ends the retries. */
  maxWaitSeconds?: number;
  /** Longest total wait of one call in seconds (default 60). */
  budgetSeconds?: number;
}

/** The retry bounds used when `retry` is not given. */
export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 6, maxWaitSeconds: 30, budgetSeconds: 60 };

/** The calls of the agent and executor API; none throws (see the file docstring). */
export interface AgentClient {
  listTasks(filter?: { ticketId?: string }): Promise<Result<SuccessOf<"listTasks">, RefusalOf<"listTasks">>>;
  getTask(taskId: string): Promise<Result<{ task: Task }, RefusalOf<"getTask">>>;
  submitRun(
    taskId: string,
    body: { taskRevision: number; steps: StepInput[]; expiresInSeconds?: number; sessionId?: string },
    opts?: { idempotencyKey?: string },
  ): Promise<Result<{ run: Run }, SubmitRefusalCode>>;
  /** `opts.waitSeconds` (1–30): long poll — held while the run waits for review, until it changes or the time passes. */
  getRun(runId: string, opts?: { waitSeconds?: number }): Promise<Result<{ run: Run }, RefusalOf<"getRun">>>;
  /**
   * Watches the run's event stream (`GET /api/v1/runs/{runId}/events`, server-sent events):
   * `onRun` gets the run at once and again the moment it changes, until `onRun` returns true, the
   * console ends the stream (the run's outcome, or a reconnect hint), or `opts.signal` aborts.
   * Resolves how it ended (see `WatchEnd`: pass its `lastEventId` to the next watch); never throws.
   * No retries of its own: `waitForDecision` reconnects, and falls back to long polls.
   */
  watchRun(runId: string, onRun: (run: Run) => boolean | void, opts?: WatchOptions): Promise<WatchEnd>;
  claimStep(runId: string, stepId: string, body: { digest: string; taskRevision: number }, opts: { idempotencyKey: string }): Promise<Result<{ claim: Claim }, ClaimRefusalCode>>;
  /**
   * Whether a claim token still holds — call it inside the write it guards. `body.targetVersions`:
   * the live source versions of the step's records read right before the write
   * (`{"invoice:in_74119": 8}`); one that differs from the claim's `recordVersions` is refused
   * `target_changed` (and the run stops).
   */
  fenceClaim(token: string, body?: { targetVersions?: RecordVersions }): Promise<Result<{ fence: Fence }, FenceRefusalCode>>;
  /** `body.targetVersions` (with `succeeded`): the versions the system of record gave the target after the write. */
  reportOutcome(
    runId: string,
    stepId: string,
    body: { token: string; status: StepOutcomeStatus | "cannot_execute"; detail?: string; stopConditionMet?: boolean; targetVersions?: RecordVersions },
  ): Promise<Result<{ step: StepExecution; run: { id: string; status: RunStatus } }, OutcomeRefusalCode>>;
  /** The ticketing integration's call (needs `integrationKey`): records a change of the task. */
  reviseTask(taskId: string, body: { body?: string; comment?: string }): Promise<Result<{ task: Task }, RefusalOf<"reviseTask">>>;
  /** Demo mode only: let the console's demo executor write a claimed step. */
  applyDemoEffect(body: { runId: string; stepId: string; token: string }): Promise<Result<{ effect: DemoEffect }, EffectRefusalCode>>;
  /**
   * Demo mode only: the same checks as `applyDemoEffect`, but the write is kept staged under the
   * claim (nothing applied, the claim stays open) until `promoteDemoEffects` applies every staged
   * write of the run at once (`POST /api/v1/demo/effects` with `stage: true`).
   */
  stageDemoEffect(body: { runId: string; stepId: string; token: string }): Promise<Result<{ staged: StagedDemoEffect }, EffectRefusalCode>>;
  /**
   * Demo mode only: applies every staged write of run `runId` in one transaction, all or nothing,
   * after fencing every claim again; reports each step `succeeded` (`POST /api/v1/demo/effects/promote`).
   * A refusal applies nothing and discards the staged writes (their claims reported `failed`);
   * `effect_failed` {reason: "not_all_staged", missing} discards nothing: stage the rest first.
   */
  promoteDemoEffects(runId: string): Promise<Result<{ promotion: DemoPromotion }, PromoteRefusalCode>>;
}

/** What openapi-fetch answers when the body is read as text (parsed here, so a non-JSON answer is `bad_response`). */
type TextAnswer = { data?: unknown; error?: unknown; response: Response };

/**
 * Seconds to wait before repeating a call answered `res` with error body `err`, or null when the
 * answer is not a `503 database_unavailable`. `Retry-After` in seconds (an HTTP date is read too),
 * else the body's `retryAfterSeconds`, else 1.
 */
function retryAfterSeconds(res: Response, err: { code?: unknown; retryAfterSeconds?: unknown } | undefined): number | null {
  if (res.status !== 503 || err?.code !== "database_unavailable") return null;
  const header = res.headers.get("retry-after")?.trim();
  if (header) {
    const seconds = /^\d+$/.test(header) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
    if (Number.isFinite(seconds)) return Math.max(0, seconds);
  }
  return typeof err.retryAfterSeconds === "number" && err.retryAfterSeconds >= 0 ? err.retryAfterSeconds : 1;
}

/**
 * Sends a call with {@link settle}, repeating it (when `retry` is not false: a repeatable call) while
 * it is answered `503 database_unavailable`, within the bounds of `retry`.
 */
async function settleRetrying<T, C extends string>(baseUrl: string, call: () => Promise<TextAnswer>, retry: Required<RetryOptions> | false): Promise<Result<T, C>> {
  let waited = 0;
  for (let retries = 0; ; retries++) {
    let wait: number | null = null;
    const result = await settle<T, C>(baseUrl, call, (res, err) => (wait = retryAfterSeconds(res, err)));
    if (!retry || wait === null || retries >= retry.maxRetries) return result;
    // Retry-After is honoured, never shortened: a longer wait than the bounds allow ends the retries
    const seconds: number = wait;
    if (seconds > retry.maxWaitSeconds || waited + seconds > retry.budgetSeconds) return result;
    waited += seconds;
    await new Promise((r) => setTimeout(r, seconds * 1000));
  }
}

/**
 * Turns one openapi-fetch answer (or its rejection) into a {@link Result}; never throws.
 * `onRefusal` sees a refused answer's response and error body.
 */
async function settle<T, C extends string>(
  baseUrl: string,
  call: () => Promise<TextAnswer>,
  onRefusal?: (res: Response, err: ApiError<C>) => void,
): Promise<Result<T, C>> {
  let answer: TextAnswer;
  try {
    answer = await call();
  } catch (e) {
    return { ok: false, status: 0, error: { code: "network_error", message: `The console at ${baseUrl} could not be reached: ${e instanceof Error ? e.message : String(e)}` } };
  }
  const res = answer.response;
  const text = typeof answer.data === "string" ? answer.data : typeof answer.error === "string" ? answer.error : JSON.stringify(answer.error ?? answer.data ?? null);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without a JSON body.` } };
  }
  if (!res.ok) {
    const err = (json as { error?: ApiError<C> } | null)?.error;
    if (!err || typeof err.code !== "string") return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without an error body.` } };
    onRefusal?.(res, err);
    return { ok: false, status: res.status, error: err };
  }
  if (!json || typeof json !== "object") return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without a JSON object.` } };
  return { ok: true, status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", ...(json as object) } as Result<T, C>;
}

/** The part of `@opentelemetry/api` the client uses to propagate the caller's trace. */
interface OtelApi {
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Record<string, string>): void };
}

let otelApi: Promise<OtelApi | null> | undefined;
/** `@opentelemetry/api` when the caller has it installed (loaded once), else null. */
function loadOtelApi(): Promise<OtelApi | null> {
  const name = "@opentelemetry/api"; // not a literal import: the package is an optional peer
  otelApi ??= import(name).then(
    (m: OtelApi & { default?: OtelApi }) => (m.propagation ? m : (m.default ?? null)),
    () => null,
  );
  return otelApi;
}

/** Sets the trace headers of `request`: `opts.traceparent`, else the caller's active OpenTelemetry context, unless the request has one. */
async function withTraceContext(request: Request, traceparent: AgentClientOptions["traceparent"]): Promise<Request> {
  if (request.headers.has("traceparent")) return request;
  const given = typeof traceparent === "function" ? traceparent() : traceparent;
  if (given) {
    request.headers.set("traceparent", given);
    return request;
  }
  const otel = await loadOtelApi();
  if (!otel) return request;
  const carrier: Record<string, string> = {};
  otel.propagation.inject(otel.context.active(), carrier);
  for (const name of ["traceparent", "tracestate"]) if (carrier[name]) request.headers.set(name, carrier[name]);
  return request;
}

/** Creates a client for one console and one agent key. See the module comment for the result shape. */
export function createAgentClient(opts: AgentClientOptions): AgentClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, "");
  const make = (credential: string) =>
    createClient<paths>({
      baseUrl,
      headers: { accept: "application/json", authorization: `Bearer ${credential}` },
      // Resolved at call time, so a test's stubbed global fetch is used too.
      fetch: async (request: Request) => (opts.fetch ?? globalThis.fetch)(await withTraceContext(request, opts.traceparent)),
    });
  const api = make(opts.apiKey);
  const integration = make(opts.integrationKey ?? opts.apiKey);
  const idem = (key?: string) => (key ? { "idempotency-key": key } : {});
  const text = { parseAs: "text" as const };
  const bounds = opts.retry === false ? false : { ...DEFAULT_RETRY, ...opts.retry };
  // GETs repeat safely; a POST only with an idempotency key (the console answers a repeat with the first answer)
  const read = <T, C extends string>(call: () => Promise<TextAnswer>) => settleRetrying<T, C>(baseUrl, call, bounds);
  const write = <T, C extends string>(key: string | undefined, call: () => Promise<TextAnswer>) => settleRetrying<T, C>(baseUrl, call, key ? bounds : false);
  return {
    listTasks: (filter = {}) => read(() => api.GET("/api/v1/tasks", { params: { query: filter }, ...text })),
    getTask: (taskId) => read(() => api.GET("/api/v1/tasks/{taskId}", { params: { path: { taskId } }, ...text })),
    submitRun: (taskId, body, o = {}) =>
      write(o.idempotencyKey, () =>
        api.POST("/api/v1/tasks/{taskId}/runs", {
          params: { path: { taskId } },
          body: body as never,
          headers: idem(o.idempotencyKey),
          ...text,
        }),
      ),
    watchRun: (runId, onRun, o) =>
      watchRunEvents(
        async (request) => (opts.fetch ?? globalThis.fetch)(await withTraceContext(request, opts.traceparent)),
        `${baseUrl}/api/v1/runs/${encodeURIComponent(runId)}/events`,
        { authorization: `Bearer ${opts.apiKey}` },
        onRun,
        o,
      ),
    getRun: (runId, o) =>
      read(() =>
        api.GET("/api/v1/runs/{runId}", {
          params: { path: { runId }, ...(o?.waitSeconds ? { query: { wait: Math.min(30, Math.max(1, Math.floor(o.waitSeconds))) } } : {}) },
          ...text,
        }),
      ),
    claimStep: (runId, stepId, body, o) =>
      write(o.idempotencyKey, () => api.POST("/api/v1/runs/{runId}/steps/{stepId}/claim", { params: { path: { runId, stepId } }, body, headers: idem(o.idempotencyKey), ...text })),
    fenceClaim: (token, body) => settle(baseUrl, () => api.POST("/api/v1/claims/{token}/fence", { params: { path: { token } }, ...(body ? { body } : {}), ...text })),
    reportOutcome: (runId, stepId, body) => settle(baseUrl, () => api.POST("/api/v1/runs/{runId}/steps/{stepId}/outcome", { params: { path: { runId, stepId } }, body, ...text })),
    reviseTask: (taskId, body) => settle(baseUrl, () => integration.POST("/api/v1/tasks/{taskId}/revisions", { params: { path: { taskId } }, body, ...text })),
    applyDemoEffect: (body) => settle(baseUrl, () => api.POST("/api/v1/demo/effects", { body, ...text })),
    stageDemoEffect: (body) => settle(baseUrl, () => api.POST("/api/v1/demo/effects", { body: { ...body, stage: true }, ...text })),
    promoteDemoEffects: (runId) => settle(baseUrl, () => api.POST("/api/v1/demo/effects/promote", { body: { runId }, ...text })),
  };
}
