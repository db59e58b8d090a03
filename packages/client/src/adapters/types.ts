/** Shapes shared by the agent adapters: proposed calls, pending plans, decisions, verdicts, outcomes. Plain JSON where it must survive a restart. See ./core.ts for the chain. */
import type { Claim, Run, RunStep, StepReasons, ValidationIssue } from "../client.js";

// ── shapes ─────────────────────────────────────────────────────────────────────

/** A JSON value (what tool arguments and tool outputs are made of). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Tool arguments: a JSON object. */
export type ToolArgs = Record<string, unknown>;

/**
 * One tool call the framework paused for approval: its framework call id (AI SDK `toolCallId`,
 * OpenAI Agents `callId`, LangChain `tool_call.id`), the Plandesk tool name, the arguments the
 * model proposed, and optionally the agent's reasons for the step (docs/api.md).
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
  /**
   * The run's deadline as the console set it at submission (ISO 8601, UTC). The wait ends by it
   * (plus `PollOptions.graceMs`) even when the console is never reached again. Absent in plans
   * saved before it existed: the wait learns it from the first answer.
   */
  expiresAt?: string;
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
 * - `expired`: nobody decided before the run's deadline (docs/design.md §10);
 * - `refused`: Plandesk refused the proposal or stopped the run — `code` is the typed refusal
 *   (`validation_failed` with `issues`, `stale_task`, `stopped_stale_task`, …);
 * - `timed_out`: `PollOptions.timeoutMs` passed while the run still waited (the run is untouched;
 *   wait again later with the same PendingPlan);
 * - `unreachable`: the console could not be reached (network errors, 5xx answers, no answer)
 *   until the run's deadline plus `PollOptions.graceMs` had passed. The console expires the run
 *   at its deadline, so nothing of it will run; `reason` names the last failure.
 */
export type Decision =
  | { kind: "approved"; run: Run }
  | { kind: "rejected"; run: Run; reason: string }
  | { kind: "expired"; run: Run; reason: string }
  | { kind: "refused"; code: string; reason: string; issues?: ValidationIssue[]; run?: Run }
  | { kind: "timed_out"; runId: string; waitedMs: number }
  | { kind: "unreachable"; runId: string; waitedMs: number; reason: string };

/**
 * What to tell the framework about one of its calls after the decision:
 * `approve` — let the framework run the (wrapped) tool; `edited`/`changes` say what the
 * operator changed. `deny` — answer the call with `reason` (the operator's words, or why
 * Plandesk refused), typed by `code`: `rejected`, `removed` (the operator deleted the step),
 * `expired`, `timed_out`, `unreachable`, or a refusal code.
 */
export type CallVerdict =
  | { verdict: "approve"; callId: string; stepId: string; tool: string; approvedArgs: ToolArgs; edited: boolean; changes: ArgChange[] }
  | { verdict: "deny"; callId: string; stepId: string; tool: string; code: string; reason: string };

/** What your tool implementation reports: the executor's outcome (docs/api.md) and an optional output for the model. */
export interface ToolOutcome {
  status: "succeeded" | "failed" | "unknown";
  /** One line for the run's record and the model, e.g. "Moved sh_5521 to 2026-04-08". */
  detail?: string;
  /** Anything JSON the model should see (e.g. the written record). */
  output?: JsonValue;
  /**
   * True when the tool found the step's stop condition (`ctx.stopCondition`) met and wrote
   * nothing: reported as `failed` with `stopConditionMet`, and the run stops (`stopped`,
   * stopReason `stop_condition_met`). Say what you found in `detail`.
   */
  stopConditionMet?: boolean;
  /**
   * With `succeeded`: the versions the system of record gave the written records
   * (`{"invoice:in_74119": 9}`), reported with the outcome, so the written amount holds until the
   * console's local copy syncs that version and the run's later steps on the record pass the fence.
   */
  targetVersions?: Record<string, number>;
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
  /** When NOT to write this step, as the approver saw it (the claim's `stopCondition`), or null. Check it before writing. */
  stopCondition: string | null;
}

/**
 * Runs one approved step against your system. Resolve with the outcome. Throw
 * {@link ToolFailure} when you KNOW nothing was written (reported `failed`); any other throw is
 * reported `unknown` — whether the write happened is not known, so a person reconciles it and it
 * is never replayed (docs/design.md §9).
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
 * A check before every write: called after the claim and before your implementation, outside its
 * transaction. Resolve `{ok: true}` to write, or `{ok: false, code, message}` to stop — the step
 * is then reported `failed` (nothing was written) and the plan stops. It is not the fence: the
 * fence (`POST /api/v1/claims/{token}/fence`, `AgentClient.fenceClaim`) belongs inside the write's
 * own transaction, in your implementation (docs/adapters.md "What every adapter does").
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
      /** The tool found the step's stop condition met and wrote nothing (status is then `failed`). */
      stopConditionMet?: boolean;
      /** The outcome report was refused (e.g. `outcome_already_reported`); the write stands. */
      reportError?: string;
    }
  | { status: "refused"; stepId: string; tool: string; args: ToolArgs; code: string; message: string; details: Record<string, unknown> }
  | { status: "skipped"; stepId: string; tool: string; args: ToolArgs; blockedBy: string; message: string };

/**
 * How {@link waitForDecision} waits. Times in milliseconds. A long poll the console answered
 * "still waiting" is followed at once by the next (the console holds each one open until the run
 * changes); the backoff applies only after a failed poll (network error, 5xx, no answer) and to
 * plain polling (`longPollSeconds: 0`).
 */
export interface PollOptions {
  /** First wait of the backoff (default 500). */
  initialDelayMs?: number;
  /** Longest wait of the backoff (default 15 000). */
  maxDelayMs?: number;
  /** Growth of the backoff per failed poll (default 1.6). */
  factor?: number;
  /** Wait by the run's event stream first (default true); false: long polls only. */
  push?: boolean;
  /** Seconds each read may be held open by the console until the run changes (long poll; default 25, 0 = plain polling). */
  longPollSeconds?: number;
  /** Give up waiting after this long (`timed_out`; default: the run's deadline plus `graceMs`, then `unreachable` or the console's `expired`). Only ever shortens the wait. */
  timeoutMs?: number;
  /** How long after the run's deadline a console that cannot be reached is still tried (default 30 000). */
  graceMs?: number;
  /** Resolves when something (a webhook, a message queue) says the run changed: poll now. */
  wake?: () => Promise<unknown>;
  /** Stop waiting (resolves `timed_out`). */
  signal?: AbortSignal;
  /** Called after every poll (for logs). */
  onPoll?: (run: Run) => void;
}
