/**
 * The framework-independent half of Plandesk's agent adapters (issue #15): what the Vercel AI
 * SDK, OpenAI Agents and LangGraph adapters (./ai-sdk.ts, ./openai-agents.ts, ./langgraph.ts)
 * share. Plain TypeScript over the typed client (lib/client/agent-client.ts); no framework import.
 *
 * The chain, for the tool calls a framework holds for approval:
 * 1. {@link proposePlan} — the pending calls for one task become ONE Plandesk run (the whole
 *    pending plan, in order), bound to the task's current revision. Each call keeps its
 *    framework call id; the step id is derived from it ({@link stepIdForCall}).
 * 2. {@link waitForDecision} — polls the run with exponential backoff (no connection is held
 *    while a person decides; a `wake` promise, e.g. fed by your webhook receiver, cuts a wait
 *    short). Ends with the operator's decision: approved (maybe edited), rejected with a reason,
 *    expired, or refused with a typed code.
 * 3. {@link verdictFor} — what to tell the framework about each of its calls: approve (the
 *    framework will call the tool's execute) or deny with the operator's reason.
 * 4. {@link PlanExecutor} — the wrapped execute: for the call's step it claims the step with the
 *    digest of the APPROVED arguments (from Plandesk, maybe the operator's edit — never the
 *    framework's history) and the bound task revision, runs your implementation with those
 *    arguments, reports the outcome, and returns what was actually done. Steps run strictly in
 *    plan order, once each, whatever order or concurrency the framework uses; a step the
 *    operator added runs in its place too. A refused claim (stale task, digest mismatch,
 *    expiry…) stops the plan with its typed code: nothing is retried silently.
 *
 * Everything that must survive a restart of the agent ({@link PendingPlan}) is plain JSON.
 */
import { randomUUID } from "node:crypto";
import type { AgentClient, ApiError, Claim, Run, RunStep, StepInput, StepReasons, ValidationIssue } from "../client/agent-client";
import { canonicalJson } from "../plan/canonical-json";
import { digest } from "../plan/digest";

// ── shapes ─────────────────────────────────────────────────────────────────────

/** A JSON value (what tool arguments and tool outputs are made of). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Tool arguments: a JSON object. */
export type ToolArgs = Record<string, unknown>;

/**
 * One tool call the framework paused for approval: its framework call id (AI SDK `toolCallId`,
 * OpenAI Agents `callId`, LangChain `tool_call.id`), the Plandesk tool name, the arguments the
 * model proposed, and optionally the agent's reasons for the step (API.md).
 */
export interface ProposedCall {
  callId: string;
  tool: string;
  args: ToolArgs;
  reasons?: StepReasons;
}

/**
 * A proposal waiting for its decision — plain JSON, safe to store while the agent waits (or
 * across a restart). `calls` maps each framework call to its Plandesk step and keeps the
 * arguments the model proposed (to tell the model what the operator changed).
 */
export interface PendingPlan {
  taskId: string;
  taskRevision: number;
  runId: string;
  /** The idempotency key the run was submitted with (a repeat returns the same run). */
  submissionKey: string;
  calls: { callId: string; stepId: string; tool: string; proposedArgs: ToolArgs }[];
  proposedAt: string;
}

/** One changed argument: dotted `path` inside args, what the model proposed, what was approved. */
export interface ArgChange {
  path: string;
  proposed: unknown;
  approved: unknown;
}

/**
 * The operator's decision on a proposal:
 * - `approved`: every step of the run's current plan version is approved; `run` is that plan
 *   (arguments as approved — maybe edited — and possibly steps added, removed or reordered);
 * - `rejected`: the operator rejected the run; `reason` is theirs, written for the agent;
 * - `expired`: nobody decided before the run's deadline (DESIGN.md §10);
 * - `refused`: Plandesk refused the proposal or stopped the run — `code` is the typed refusal
 *   (`validation_failed` with `issues`, `stale_task`, `stopped_stale_task`, …);
 * - `timed_out`: `PollOptions.timeoutMs` passed while the run still waited (the run is untouched;
 *   wait again later with the same PendingPlan).
 */
export type Decision =
  | { kind: "approved"; run: Run }
  | { kind: "rejected"; run: Run; reason: string }
  | { kind: "expired"; run: Run; reason: string }
  | { kind: "refused"; code: string; reason: string; issues?: ValidationIssue[]; run?: Run }
  | { kind: "timed_out"; runId: string; waitedMs: number };

/**
 * What to tell the framework about one of its calls after the decision:
 * `approve` — let the framework run the (wrapped) tool; `edited`/`changes` say what the
 * operator changed. `deny` — answer the call with `reason` (the operator's words, or why
 * Plandesk refused), typed by `code`: `rejected`, `removed` (the operator deleted the step),
 * `expired`, `timed_out`, or a refusal code.
 */
export type CallVerdict =
  | { verdict: "approve"; callId: string; stepId: string; tool: string; approvedArgs: ToolArgs; edited: boolean; changes: ArgChange[] }
  | { verdict: "deny"; callId: string; stepId: string; tool: string; code: string; reason: string };

/** What your tool implementation reports: the executor's outcome (API.md) and an optional output for the model. */
export interface ToolOutcome {
  status: "succeeded" | "failed" | "unknown";
  /** One line for the run's record and the model, e.g. "Moved sh_5521 to 2026-04-08". */
  detail?: string;
  /** Anything JSON the model should see (e.g. the written record). */
  output?: JsonValue;
}

/**
 * Passed to your implementation with the APPROVED arguments: the claim (its token is what a
 * system of record may check, and what the demo executor needs), the run and the step.
 */
export interface ExecutionContext {
  runId: string;
  stepId: string;
  tool: string;
  claim: Claim;
  step: RunStep;
  run: Run;
}

/**
 * Runs one approved step against your system. Resolve with the outcome. Throw
 * {@link ToolFailure} when you KNOW nothing was written (reported `failed`); any other throw is
 * reported `unknown` — whether the write happened is not known, so a person reconciles it and it
 * is never replayed (DESIGN.md §9).
 */
export type ToolImplementation = (args: ToolArgs, ctx: ExecutionContext) => Promise<ToolOutcome>;

/** Thrown by a tool implementation for a definite failure: nothing was written. */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolFailure";
  }
}

/**
 * The fence slot (issue #15): called after the claim and immediately before the write. Resolve
 * `{ok: true}` to write, or `{ok: false, code, message}` to stop — the step is then reported
 * `failed` (nothing was written) and the plan stops. The console's fencing endpoint
 * (`POST /api/v1/claims/{token}/fence`) is not built yet; this is where its check goes.
 */
export type BeforeWriteHook = (ctx: ExecutionContext, args: ToolArgs) => Promise<{ ok: true } | { ok: false; code: string; message: string }>;

/**
 * What happened to one step of an approved plan:
 * - `succeeded` | `failed` | `unknown`: claimed, written (or tried), reported with that outcome;
 * - `refused`: the claim (or the fence) was refused with the typed `code` — nothing was written;
 * - `skipped`: not attempted because an earlier step of the plan did not succeed (`blockedBy`);
 *   the plan stops at the first step that does not succeed.
 */
export type StepResult =
  | {
      status: "succeeded" | "failed" | "unknown";
      stepId: string;
      tool: string;
      args: ToolArgs;
      detail: string;
      output?: JsonValue;
      /** The outcome report was refused (e.g. `outcome_already_reported`); the write stands. */
      reportError?: string;
    }
  | { status: "refused"; stepId: string; tool: string; args: ToolArgs; code: string; message: string; details: Record<string, unknown> }
  | { status: "skipped"; stepId: string; tool: string; args: ToolArgs; blockedBy: string; message: string };

/** Backoff of {@link waitForDecision}. Times in milliseconds. */
export interface PollOptions {
  /** First wait (default 500). */
  initialDelayMs?: number;
  /** Longest wait between two polls (default 15 000). */
  maxDelayMs?: number;
  /** Growth per poll (default 1.6). */
  factor?: number;
  /** Give up waiting after this long (default: until the run's own deadline). */
  timeoutMs?: number;
  /** Resolves when something (a webhook, a message queue) says the run changed: poll now. */
  wake?: () => Promise<unknown>;
  /** Stop waiting (resolves `timed_out`). */
  signal?: AbortSignal;
  /** Called after every poll (for logs). */
  onPoll?: (run: Run) => void;
}

// ── step ids ───────────────────────────────────────────────────────────────────

/**
 * The Plandesk step id of a framework call: the call id itself when it is a valid step id
 * (letters, digits, `_`, `-`, at most 64), otherwise `call_` + the first 24 hex digits of its
 * SHA-256. Deterministic, so a restarted agent maps the same call to the same step.
 */
export function stepIdForCall(callId: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(callId)) return callId;
  return `call_${digest({ tool: "call", args: callId }).slice(0, 24)}`;
}

// ── 1. propose ─────────────────────────────────────────────────────────────────

/** Options of {@link proposePlan}. */
export interface ProposeOptions {
  taskId: string;
  calls: ProposedCall[];
  /**
   * Distinguishes this agent session's proposals: part of the submission's idempotency key with
   * the task revision and the calls, so a repeated proposal (a retry after a lost answer, a
   * restart) returns the same run while another session's identical calls make their own run.
   */
  sessionId: string;
  /** Asked expiry of the run, capped by the console's policy. */
  expiresInSeconds?: number;
}

/**
 * Submits the pending calls as one run for the task's current revision (API.md
 * `POST /api/v1/tasks/{taskId}/runs`), in the order given. Returns the PendingPlan to wait on,
 * or a `refused` Decision (`validation_failed` with `issues`, `stale_task`, `not_found`,
 * `network_error`…) that the framework adapters turn into a denial of every call, so the model
 * learns what was wrong. Never throws for a refusal.
 */
export async function proposePlan(
  client: AgentClient,
  opts: ProposeOptions,
): Promise<{ ok: true; pending: PendingPlan; run: Run } | { ok: false; decision: Extract<Decision, { kind: "refused" }>; calls: PendingPlan["calls"] }> {
  const calls = opts.calls.map((c) => ({ ...c, stepId: stepIdForCall(c.callId) }));
  const mapped = calls.map((c) => ({ callId: c.callId, stepId: c.stepId, tool: c.tool, proposedArgs: c.args }));
  if (opts.calls.length === 0) return { ok: false, decision: { kind: "refused", code: "empty_plan", reason: "There are no tool calls to propose." }, calls: mapped };
  const task = await client.getTask(opts.taskId);
  if (!task.ok) return { ok: false, decision: refusedBy(task.error), calls: mapped };
  const steps: StepInput[] = calls.map((c) => ({ id: c.stepId, tool: c.tool, args: c.args, provenance: modelProvenance(c.args), ...(c.reasons ?? {}) }));
  const submissionKey = `adapter:${opts.sessionId}:${digest({ tool: "plan", args: { taskId: opts.taskId, revision: task.task.revision, steps: steps.map(({ id, tool, args }) => ({ id, tool, args })) } }).slice(0, 32)}`;
  const res = await client.submitRun(
    opts.taskId,
    { taskRevision: task.task.revision, steps, ...(opts.expiresInSeconds ? { expiresInSeconds: opts.expiresInSeconds } : {}) },
    { idempotencyKey: submissionKey },
  );
  if (!res.ok) return { ok: false, decision: refusedBy(res.error), calls: mapped };
  return {
    ok: true,
    run: res.run,
    pending: { taskId: opts.taskId, taskRevision: task.task.revision, runId: res.run.id, submissionKey, calls: mapped, proposedAt: new Date().toISOString() },
  };
}

/** Every top-level argument the model proposed is recorded as coming from the model (DESIGN.md §3). */
function modelProvenance(args: ToolArgs): Record<string, { kind: "model" }> {
  return Object.fromEntries(Object.keys(args).map((k) => [k, { kind: "model" as const }]));
}

function refusedBy(error: ApiError<string>): Extract<Decision, { kind: "refused" }> {
  const issues = Array.isArray(error.issues) ? (error.issues as ValidationIssue[]) : undefined;
  return { kind: "refused", code: error.code, reason: error.message, ...(issues ? { issues } : {}) };
}

// ── 2. wait ────────────────────────────────────────────────────────────────────

const sleep = (ms: number, signal?: AbortSignal, wake?: Promise<unknown>) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
    wake?.then(done, done);
  });

/**
 * Waits for the operator's decision on `pending.runId` by polling `GET /api/v1/runs/{runId}`
 * with exponential backoff (`initialDelayMs` × `factor`ⁿ, capped at `maxDelayMs`); nothing is
 * held open in between. Network errors and 5xx answers are retried with the same backoff; a
 * 401/404 ends the wait as `refused`. Resolves with the {@link Decision}; never throws.
 * Status mapping: `approved`, `executing`, `completed` → approved; `rejected` → rejected (the
 * run's `rejectionReason`); `expired` → expired; `stopped`, `failed` → refused (the run's
 * `stopReason.code`); `pending_review` → keep waiting.
 */
export async function waitForDecision(client: AgentClient, pending: Pick<PendingPlan, "runId">, poll: PollOptions = {}): Promise<Decision> {
  const started = Date.now();
  let delay = poll.initialDelayMs ?? 500;
  for (;;) {
    const res = await client.getRun(pending.runId);
    if (res.ok) {
      poll.onPoll?.(res.run);
      const run = res.run;
      switch (run.status) {
        case "approved":
        case "executing":
        case "completed":
          return { kind: "approved", run };
        case "rejected":
          return { kind: "rejected", run, reason: run.rejectionReason ?? "The operator rejected the plan." };
        case "expired":
          return { kind: "expired", run, reason: `Nobody decided on run ${run.id} before it expired at ${run.expiresAt}; nothing was done.` };
        case "stopped":
        case "failed": {
          const stop = (run.stopReason ?? {}) as { code?: unknown };
          return { kind: "refused", code: typeof stop.code === "string" ? stop.code : run.status, reason: `Run ${run.id} is ${run.status}.`, run };
        }
        default:
          break;
      }
    } else if (res.status === 401 || res.status === 403 || res.status === 404) {
      return refusedBy(res.error);
    }
    const waited = Date.now() - started;
    if (poll.signal?.aborted || (poll.timeoutMs !== undefined && waited >= poll.timeoutMs)) return { kind: "timed_out", runId: pending.runId, waitedMs: waited };
    const wait = poll.timeoutMs !== undefined ? Math.min(delay, Math.max(0, poll.timeoutMs - waited)) : delay;
    await sleep(wait, poll.signal, poll.wake?.());
    delay = Math.min(poll.maxDelayMs ?? 15_000, delay * (poll.factor ?? 1.6));
  }
}

// ── 3. verdicts ────────────────────────────────────────────────────────────────

/**
 * The dotted paths at which `approved` differs from `proposed` (objects compared key by key,
 * any other value — arrays included — as a whole by canonical JSON). `[]` when equal.
 */
export function argChanges(proposed: unknown, approved: unknown, path = ""): ArgChange[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(proposed) && isObj(approved)) {
    const keys = [...new Set([...Object.keys(proposed), ...Object.keys(approved)])].sort();
    return keys.flatMap((k) => argChanges(proposed[k], approved[k], path ? `${path}.${k}` : k));
  }
  if (sameJson(proposed, approved)) return [];
  return [{ path, proposed, approved }];
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/**
 * What to tell the framework about call `callId` of `pending` after `decision`. Approved runs:
 * the call's step approved → `approve` with the approved arguments (and what changed); the step
 * no longer in the plan → `deny` with code `removed`. Any other decision denies every call with
 * its reason (the operator's words for a rejection). Unknown call ids are denied `unknown_call`.
 */
export function verdictFor(decision: Decision, pending: Pick<PendingPlan, "calls">, callId: string): CallVerdict {
  const call = pending.calls.find((c) => c.callId === callId);
  if (!call) return { verdict: "deny", callId, stepId: stepIdForCall(callId), tool: "unknown", code: "unknown_call", reason: `Call ${callId} was not part of the proposal; it was not run.` };
  const deny = (code: string, reason: string): CallVerdict => ({ verdict: "deny", callId, stepId: call.stepId, tool: call.tool, code, reason });
  switch (decision.kind) {
    case "approved": {
      const step = decision.run.steps.find((s) => s.id === call.stepId && s.tool === call.tool);
      if (!step) return deny("removed", "The operator removed this step from the plan; it was not run.");
      const changes = argChanges(call.proposedArgs, step.args);
      return { verdict: "approve", callId, stepId: step.id, tool: step.tool, approvedArgs: step.args, edited: changes.length > 0, changes };
    }
    case "rejected":
      return deny("rejected", `The operator rejected the plan: ${decision.reason}`);
    case "expired":
      return deny("expired", decision.reason);
    case "refused":
      return deny(decision.code, refusalText(decision));
    case "timed_out":
      return deny("timed_out", `No decision on run ${decision.runId} after ${Math.round(decision.waitedMs / 1000)} s; nothing was run.`);
  }
}

function refusalText(d: Extract<Decision, { kind: "refused" }>): string {
  const issues = (d.issues ?? []).filter((i) => i.severity === "error").map((i) => i.message);
  return `Plandesk refused the plan (${d.code}): ${d.reason}${issues.length ? ` ${issues.join("; ")}` : ""}`;
}

// ── 4. execute ─────────────────────────────────────────────────────────────────

/** Options of {@link PlanExecutor}. */
export interface ExecutorOptions {
  /** Your implementations by Plandesk tool name: called with the APPROVED arguments. */
  implementations: Readonly<Record<string, ToolImplementation>>;
  /** The fence slot: checked after the claim, before the write. */
  beforeWrite?: BeforeWriteHook;
  /** One line per event (claims, outcomes, refusals). */
  log?: (line: string) => void;
}

/**
 * Executes an APPROVED run (DESIGN.md §9) for the framework adapters: each step at most once,
 * strictly in plan order — {@link PlanExecutor.executeThrough} runs every earlier step first
 * (including steps the operator added, which no framework call stands for), so a framework that
 * runs tools concurrently or in another order cannot break the order the operator approved.
 *
 * For one step: claim (`digest` = digest of the approved `{tool, args}` computed here,
 * `taskRevision` = the run's bound revision, idempotency key `<runId>:<stepId>`) → fence hook →
 * your implementation with the approved args → outcome report. A refused claim stops the plan
 * with its typed code (`stopped_stale_task`, `digest_mismatch`, `expired`, `approval_missing`,
 * `already_claimed`, `validation_failed`, …); a claim answered from an earlier attempt of this
 * executor (`replayed`) is NOT written again: it is reported `unknown` for a person to reconcile.
 * After a step that did not succeed, later steps are `skipped`.
 */
export class PlanExecutor {
  private readonly results = new Map<string, StepResult>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: AgentClient,
    private readonly run: Run,
    private readonly opts: ExecutorOptions,
  ) {}

  /** The approved steps, in plan order. */
  get steps(): readonly RunStep[] {
    return this.run.steps;
  }

  /** Results so far, in plan order. */
  get executed(): StepResult[] {
    return this.run.steps.map((s) => this.results.get(s.id)).filter((r): r is StepResult => r !== undefined);
  }

  /**
   * Executes every step up to and including `stepId` that has not run yet, in plan order, and
   * resolves with the result of `stepId` plus the results of the steps it ran before it that
   * were not already known (e.g. steps the operator added). Unknown step ids reject with Error.
   */
  async executeThrough(stepId: string): Promise<{ result: StepResult; ranBefore: StepResult[] }> {
    const index = this.run.steps.findIndex((s) => s.id === stepId);
    if (index < 0) throw new Error(`Step ${stepId} is not in the approved plan of run ${this.run.id}.`);
    const before = new Set(this.results.keys());
    await this.enqueue(index);
    const ranBefore = this.run.steps
      .slice(0, index)
      .filter((s) => !before.has(s.id))
      .map((s) => this.results.get(s.id))
      .filter((r): r is StepResult => r !== undefined);
    return { result: this.results.get(stepId)!, ranBefore };
  }

  /** Executes every remaining step (e.g. steps the operator added at the end); resolves with the results it produced. */
  async finish(): Promise<StepResult[]> {
    const before = new Set(this.results.keys());
    await this.enqueue(this.run.steps.length - 1);
    return this.executed.filter((r) => !before.has(r.stepId));
  }

  private enqueue(index: number): Promise<void> {
    const next = this.chain.then(() => this.runUpTo(index));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async runUpTo(index: number): Promise<void> {
    for (let i = 0; i <= index; i++) {
      const step = this.run.steps[i];
      if (this.results.has(step.id)) continue;
      const blocker = this.run.steps.slice(0, i).map((s) => this.results.get(s.id)).find((r) => r && r.status !== "succeeded");
      if (blocker) {
        this.results.set(step.id, {
          status: "skipped",
          stepId: step.id,
          tool: step.tool,
          args: step.args,
          blockedBy: blocker.stepId,
          message: `Not run: step ${blocker.stepId} (${blocker.tool}) before it ${blocker.status === "refused" ? `was refused (${blocker.code})` : blocker.status === "skipped" ? "was not run" : `ended ${blocker.status}`}, and the plan stops there.`,
        });
        continue;
      }
      this.results.set(step.id, await this.runOne(step));
    }
  }

  private async runOne(step: RunStep): Promise<StepResult> {
    const log = this.opts.log ?? (() => {});
    const base = { stepId: step.id, tool: step.tool, args: step.args };
    const impl = Object.prototype.hasOwnProperty.call(this.opts.implementations, step.tool) ? this.opts.implementations[step.tool] : undefined;
    if (!impl) {
      return { status: "refused", ...base, code: "no_implementation", message: `This agent has no implementation of ${step.tool}; step ${step.id} was not claimed or run.`, details: {} };
    }
    const claimed = await this.client.claimStep(
      this.run.id,
      step.id,
      { digest: digest({ tool: step.tool, args: step.args }), taskRevision: this.run.boundTaskRevision },
      { idempotencyKey: `${this.run.id}:${step.id}` },
    );
    if (!claimed.ok) {
      const { code, message, ...details } = claimed.error;
      log(`claim of ${step.id} (${step.tool}) refused: ${code}: ${message}`);
      return { status: "refused", ...base, code, message, details };
    }
    const claim = claimed.claim;
    log(`claimed ${step.id} (${step.tool})`);
    if (claimed.replayed) {
      const detail = "This step was claimed by an earlier attempt of this executor; whether that attempt wrote it is not known, so it is not written again and waits for a person to reconcile.";
      return this.report(step, claim, { status: "unknown", detail });
    }
    const ctx: ExecutionContext = { runId: this.run.id, stepId: step.id, tool: step.tool, claim, step, run: this.run };
    if (this.opts.beforeWrite) {
      const fence = await this.opts.beforeWrite(ctx, step.args);
      if (!fence.ok) {
        await this.report(step, claim, { status: "failed", detail: `Fence refused the write (${fence.code}): ${fence.message}` });
        return { status: "refused", ...base, code: fence.code, message: fence.message, details: { fence: true } };
      }
    }
    let outcome: ToolOutcome;
    try {
      outcome = await impl(structuredClone(step.args), ctx);
    } catch (e) {
      outcome =
        e instanceof ToolFailure
          ? { status: "failed", detail: e.message }
          : { status: "unknown", detail: `The tool threw before reporting (${e instanceof Error ? e.message : String(e)}); whether it wrote is not known.` };
    }
    return this.report(step, claim, outcome);
  }

  private async report(step: RunStep, claim: Claim, outcome: ToolOutcome): Promise<StepResult> {
    const detail = outcome.detail ?? outcome.status;
    const res = await this.client.reportOutcome(this.run.id, step.id, { token: claim.token, status: outcome.status, detail: detail.slice(0, 4000) });
    (this.opts.log ?? (() => {}))(`reported ${step.id} (${step.tool}) ${outcome.status}: ${detail}${res.ok ? "" : ` (report refused: ${res.error.code})`}`);
    return {
      status: outcome.status,
      stepId: step.id,
      tool: step.tool,
      args: step.args,
      detail,
      ...(outcome.output !== undefined ? { output: outcome.output } : {}),
      ...(res.ok ? {} : { reportError: `${res.error.code}: ${res.error.message}` }),
    };
  }
}

// ── 5. tell the model ──────────────────────────────────────────────────────────

/**
 * The tool result a model sees for an executed (or stopped) step — plain JSON: `status`; the
 * arguments actually used (`executedArgs`, which are the operator's when `operatorEdited`);
 * each `changes` entry (proposed → approved); the executor's `detail` and the tool's `output`;
 * for a refused claim its typed `code`; and `alsoRan` for steps the operator added that ran
 * before this one. Source: issue #15 ("tell the model what was actually done").
 */
export function resultForModel(verdict: Extract<CallVerdict, { verdict: "approve" }>, result: StepResult, ranBefore: StepResult[] = []): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {
    status: result.status === "refused" ? "not_done" : result.status === "skipped" ? "not_done" : result.status,
    step: result.stepId,
    tool: result.tool,
    executedArgs: toJson(result.args),
    operatorEdited: verdict.edited,
  };
  if (verdict.edited) out.changes = verdict.changes.map((c) => ({ path: c.path, proposed: toJson(c.proposed), approved: toJson(c.approved) }));
  if (result.status === "refused") {
    out.code = result.code;
    out.message = `Nothing was written: ${result.message}`;
  } else if (result.status === "skipped") {
    out.code = "skipped";
    out.message = result.message;
  } else {
    out.detail = result.detail;
    if (result.output !== undefined) out.output = result.output;
  }
  if (ranBefore.length) out.alsoRan = ranBefore.map((r) => ({ step: r.stepId, tool: r.tool, status: r.status, args: toJson(r.args) }));
  return out;
}

/** The text a model sees for a denied call: the code and the reason (the operator's words for a rejection). */
export function denialForModel(verdict: Extract<CallVerdict, { verdict: "deny" }>): string {
  return verdict.code === "rejected" || verdict.code === "removed" ? verdict.reason : `${verdict.reason} (${verdict.code})`;
}

function toJson(v: unknown): JsonValue {
  if (v === undefined) return null;
  return JSON.parse(JSON.stringify(v)) as JsonValue;
}

/** A fresh random session id for {@link ProposeOptions.sessionId}. */
export function newSessionId(): string {
  return randomUUID();
}
