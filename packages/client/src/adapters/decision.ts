/** Steps 1–3 of the adapters' chain (./core.ts): propose the pending calls as one run, wait for the decision, tell the framework what to do with each call. */
import type { AgentClient, ApiError, Run, StepInput, ValidationIssue } from "../client.js";
import { canonicalJson } from "../canonical-json.js";
import { digest } from "../digest.js";
import type { ArgChange, CallVerdict, Decision, PendingPlan, PollOptions, ProposedCall, ToolArgs } from "./types.js";

// ── step ids ───────────────────────────────────────────────────────────────────

/**
 * The Plandesk step id of a framework call: the call id itself when it is a valid step id
 * (a letter or digit, then letters, digits, `_`, `-`; at most 64), otherwise `call_` + the first 24 hex digits of its
 * SHA-256. Deterministic, so a restarted agent maps the same call to the same step.
 */
export function stepIdForCall(callId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(callId)) return callId;
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
 * Submits the pending calls as one run for the task's current revision (docs/api.md
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
  if (!res.ok) {
    // A session proposing again after its run ended: tell the model what became of that run
    // (what was written), so it does not repeat a write it already did.
    if (res.error.code === "already_completed" && typeof res.error.runId === "string") {
      const ended = await client.getRun(res.error.runId);
      if (ended.ok) return { ok: false, decision: { kind: "refused", code: "already_completed", reason: alreadyCompletedText(ended.run), run: ended.run }, calls: mapped };
    }
    return { ok: false, decision: refusedBy(res.error), calls: mapped };
  }
  return {
    ok: true,
    run: res.run,
    pending: { taskId: opts.taskId, taskRevision: task.task.revision, runId: res.run.id, submissionKey, calls: mapped, proposedAt: new Date().toISOString() },
  };
}

/** What the model is told about its session's run that already ended: the outcome and each step's execution. */
function alreadyCompletedText(run: Run): string {
  const steps = run.steps.map((s) => `${s.id} (${s.tool}): ${s.execution ? s.execution.status : "not run"}`).join("; ");
  return `This exact plan was already submitted as run ${run.id}, which ended ${run.status}; nothing was submitted or run again. ${run.outcome?.message ?? ""} Steps: ${steps}.`.replace(/\s+/g, " ").trim();
}

/** Every top-level argument the model proposed is recorded as coming from the model (docs/design.md §3). */
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
 * Waits for the operator's decision on `pending.runId` with a long poll,
 * `GET /api/v1/runs/{runId}?wait=<longPollSeconds>` (default 25 s; the console answers as soon as
 * the run changes — within about a second of the decision), repeated with exponential backoff
 * between answers (`initialDelayMs` × `factor`ⁿ, capped at `maxDelayMs`) when the run is still
 * waiting. `longPollSeconds: 0` polls without holding a request open. Network errors and 5xx answers are retried with the same backoff; a
 * 401/404 ends the wait as `refused`. Resolves with the {@link Decision}; never throws.
 * Status mapping: `approved`, `executing`, `completed` → approved; `rejected` → rejected (the
 * run's `rejectionReason`); `expired` → expired; `stopped`, `failed` → refused (the run's
 * `stopReason.code`); `superseded` → refused `superseded` (the newer run named); the reason is
 * the run's typed `outcome.message`; `pending_review`, `needs_decision` (a person decides again) → keep waiting.
 */
export async function waitForDecision(client: AgentClient, pending: Pick<PendingPlan, "runId">, poll: PollOptions = {}): Promise<Decision> {
  const started = Date.now();
  let delay = poll.initialDelayMs ?? 500;
  const longPoll = poll.longPollSeconds ?? 25;
  for (;;) {
    const left = poll.timeoutMs !== undefined ? (poll.timeoutMs - (Date.now() - started)) / 1000 : Infinity;
    const waitSeconds = poll.signal?.aborted ? 0 : Math.floor(Math.min(longPoll, left));
    const res = await client.getRun(pending.runId, waitSeconds >= 1 ? { waitSeconds } : undefined);
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
        case "superseded":
          return { kind: "refused", code: "superseded", reason: run.outcome?.message ?? `Run ${run.id} was superseded by ${run.supersededById ?? "a newer plan"}; nothing of it will run.`, run };
        case "stopped":
        case "failed": {
          const stop = (run.stopReason ?? {}) as { code?: unknown };
          const code = run.outcome?.code === "stopped" || !run.outcome ? (typeof stop.code === "string" ? stop.code : run.status) : run.outcome.code;
          return { kind: "refused", code, reason: run.outcome?.message ?? `Run ${run.id} is ${run.status}.`, run };
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
