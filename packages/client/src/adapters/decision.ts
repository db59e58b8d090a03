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
    pending: { taskId: opts.taskId, taskRevision: task.task.revision, runId: res.run.id, submissionKey, calls: mapped, proposedAt: new Date().toISOString(), expiresAt: res.run.expiresAt },
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

/** Seconds a long poll may take beyond what it asked the console to hold it, before it counts as unanswered. */
const ANSWER_MARGIN_MS = 15_000;
/** What a poll that got no answer in time is taken for. */
const NO_ANSWER = Symbol("no answer");

/** `answer`, or NO_ANSWER when `ms` pass (or `signal` aborts) first; the timer never outlives the race. */
function answeredWithin<T>(answer: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | typeof NO_ANSWER> {
  return new Promise((resolve) => {
    const done = (v: T | typeof NO_ANSWER) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(v);
    };
    const abort = () => done(NO_ANSWER);
    const timer = setTimeout(abort, ms);
    signal?.addEventListener("abort", abort, { once: true });
    answer.then(done, () => done(NO_ANSWER));
  });
}

/**
 * The decision a run's state means, or null while a person still has to decide
 * (`pending_review`, `needs_decision`). `approved`, `executing`, `completed` → approved;
 * `rejected` → rejected (the run's `rejectionReason`); `expired` → expired; `stopped`, `failed` →
 * refused (the run's `stopReason.code`); `superseded` → refused `superseded` (the newer run
 * named); the reason is the run's typed `outcome.message`.
 */
export function decisionOf(run: Run): Decision | null {
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
      return null;
  }
}

/** Event streams that closed within this long of opening, without a run, count as a console that cannot push. */
const SHORT_STREAM_MS = 1000;

/**
 * Waits for the operator's decision on `pending.runId`. By push first: the run's event stream
 * (`GET /api/v1/runs/{runId}/events`, `AgentClient.watchRun`) delivers the run the moment the
 * console commits a change, and is opened again at once — with `Last-Event-ID` — when the console
 * closes it early (its own limit, a drain before a restart). Where the stream cannot be had (a
 * console or proxy without it — 404 or no event stream —, `push: false`, three streams in a row
 * closed within a second) and
 * whenever it breaks, long polls take over, `GET /api/v1/runs/{runId}?wait=<longPollSeconds>`
 * (default 25 s; the console answers as soon as the run changes). A long poll answered "still
 * waiting" is followed at once by the next; after a failed poll (network error, 5xx, or no answer
 * within the hold plus 15 s) the next waits `initialDelayMs` × `factor`ⁿ, capped at `maxDelayMs`
 * (`longPollSeconds: 0` polls with that backoff between answers too); after a broken stream the
 * stream is tried again after that poll. A 401/403/404 ends the wait as `refused`.
 *
 * The wait always ends: by the run's deadline (`pending.expiresAt`, else the run's `expiresAt`
 * from the first answer) plus `graceMs` (default 30 s) — `unreachable` when the console could not
 * be reached by then, the console's own `expired` otherwise — or earlier at `timeoutMs`
 * (`timed_out`) or when `signal` aborts (`timed_out`). Resolves with the {@link Decision} (see
 * {@link decisionOf}); never throws.
 */
export async function waitForDecision(client: AgentClient, pending: Pick<PendingPlan, "runId" | "expiresAt">, poll: PollOptions = {}): Promise<Decision> {
  const started = Date.now();
  const grace = poll.graceMs ?? 30_000;
  const timeoutAt = poll.timeoutMs !== undefined ? started + poll.timeoutMs : Infinity;
  let endsAt = pending.expiresAt ? Date.parse(pending.expiresAt) + grace : Infinity;
  let delay = poll.initialDelayMs ?? 500;
  const longPoll = poll.longPollSeconds ?? 25;
  let lastFailure: string | null = null;
  let push = poll.push !== false && typeof client.watchRun === "function";
  let lastEventId: string | undefined;
  let shortStreams = 0;
  const seen = (run: Run): Decision | null => {
    lastFailure = null;
    poll.onPoll?.(run);
    if (run.expiresAt) endsAt = Date.parse(run.expiresAt) + grace;
    return decisionOf(run);
  };
  for (;;) {
    const stopAt = Math.min(endsAt, timeoutAt);
    // ── push: the run's event stream, until a decision, the end of the wait, or a break
    let pushed = false;
    if (push && !poll.signal?.aborted && stopAt > Date.now()) {
      const opened = Date.now();
      let decided: Decision | null = null;
      let runs = 0;
      const until = new AbortController();
      const stopTimer = Number.isFinite(stopAt) ? setTimeout(() => until.abort(), Math.min(stopAt - Date.now(), 2 ** 31 - 1)) : undefined;
      const onAbort = () => until.abort();
      poll.signal?.addEventListener("abort", onAbort, { once: true });
      const end = await client.watchRun(pending.runId, (run) => {
        runs++;
        decided = seen(run);
        return decided !== null;
      }, { signal: until.signal, ...(lastEventId ? { lastEventId } : {}) });
      clearTimeout(stopTimer);
      poll.signal?.removeEventListener("abort", onAbort);
      lastEventId = end.lastEventId ?? lastEventId;
      if (decided) return decided;
      // the wait's own end came while the stream had not sent the run even once: nothing reached us
      if (end.ended === "aborted" && !poll.signal?.aborted && runs === 0) lastFailure = "the console's event stream sent nothing";
      if (end.ended === "failed") {
        if (end.status === 401 || end.status === 403) return refusedBy(end.error);
        // 404: the run is not the agent's, or a console or proxy without the stream — the long poll tells which
        if (end.unsupported || end.status === 404) push = false;
        else lastFailure = `${end.error.code}: ${end.error.message}`;
      } else {
        pushed = true;
        shortStreams = end.ended === "closed" && runs === 0 && Date.now() - opened < SHORT_STREAM_MS ? shortStreams + 1 : 0;
        if (shortStreams >= 3) push = false;
      }
    }
    // ── pull: one long poll (a plain poll with longPollSeconds 0) when the stream is not in use
    let failed = false;
    let held = false;
    if (!pushed) {
      const waitSeconds = poll.signal?.aborted ? 0 : Math.floor(Math.min(longPoll, (stopAt - Date.now()) / 1000));
      held = waitSeconds >= 1;
      const answerBy = Math.min(waitSeconds * 1000 + ANSWER_MARGIN_MS, Math.max(1000, stopAt - Date.now()));
      const res = await answeredWithin(client.getRun(pending.runId, held ? { waitSeconds } : undefined), answerBy, poll.signal);
      if (res === NO_ANSWER) {
        failed = true;
        lastFailure = poll.signal?.aborted ? lastFailure : `no answer from the console within ${Math.round(answerBy / 1000)} s`;
      } else if (res.ok) {
        const decided = seen(res.run);
        if (decided) return decided;
      } else if (res.status === 401 || res.status === 403 || res.status === 404) {
        return refusedBy(res.error);
      } else {
        failed = true;
        lastFailure = `${res.error.code}: ${res.error.message}`;
      }
    }
    const now = Date.now();
    const waitedMs = now - started;
    if (poll.signal?.aborted || now >= timeoutAt) return { kind: "timed_out", runId: pending.runId, waitedMs };
    if (now >= endsAt) {
      if (lastFailure) return { kind: "unreachable", runId: pending.runId, waitedMs, reason: `The console could not be reached until run ${pending.runId}'s deadline had passed (${lastFailure}); it expires the run, so nothing of it will run.` };
      return { kind: "timed_out", runId: pending.runId, waitedMs };
    }
    if (pushed || (!failed && held)) {
      delay = poll.initialDelayMs ?? 500;
      continue; // the stream closed or the console held the poll until now: ask again at once
    }
    await sleep(Math.min(delay, Math.max(0, Math.min(endsAt, timeoutAt) - now)), poll.signal, poll.wake?.());
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
    case "unreachable":
      return deny("unreachable", decision.reason);
  }
}

function refusalText(d: Extract<Decision, { kind: "refused" }>): string {
  const issues = (d.issues ?? []).filter((i) => i.severity === "error").map((i) => i.message);
  return `Plandesk refused the plan (${d.code}): ${d.reason}${issues.length ? ` ${issues.join("; ")}` : ""}`;
}
