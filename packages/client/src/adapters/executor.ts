/** Step 4 of the adapters' chain (./core.ts): the wrapped execute — claim, fence, write with the APPROVED arguments, report. */
import { randomUUID } from "node:crypto";
import type { AgentClient, Claim, Run, RunStep } from "../client.js";
import { digest } from "../digest.js";
import type { BeforeWriteHook, CallVerdict, ExecutionContext, JsonValue, StepResult, ToolImplementation, ToolOutcome } from "./types.js";
import { ToolFailure } from "./types.js";

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
 * Executes an APPROVED run (docs/design.md §9) for the framework adapters: each step at most once,
 * strictly in plan order — {@link PlanExecutor.executeThrough} runs every earlier step first
 * (including steps the operator added, which no framework call stands for), so a framework that
 * runs tools concurrently or in another order cannot break the order the operator approved.
 *
 * For one step: claim (`digest` = digest of the approved `{tool, args}` computed here,
 * `taskRevision` = the run's bound revision, idempotency key `<runId>:<stepId>`) → fence hook →
 * your implementation with the approved args and the step's stop condition (`ctx.stopCondition`,
 * from the claim) → outcome report (a tool that reports `stopConditionMet` is reported `failed`
 * with the flag, and the server stops the run: later steps are `skipped`). A refused claim stops the plan
 * with its typed code (`stopped_stale_task`, `digest_mismatch`, `expired`, `approval_missing`,
 * `already_claimed`, `validation_failed`, …); a step whose tool has no implementation here is
 * claimed and reported `cannot_execute` (the run ends typed; a person reconciles); a claim answered from an earlier attempt of this
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
   * resolves with the result of `stepId` plus the results of the steps an operator added that it
   * ran before it (`ranBefore`; the model's own calls are answered as their own results). When
   * `stepId` is the plan's last step the model proposed, the steps an operator added after it run
   * too (`ranAfter`): no framework call stands for them, so without this they would wait for
   * `finish()`, and a run whose agent never calls it would stay executing. Unknown step ids reject with Error.
   */
  async executeThrough(stepId: string): Promise<{ result: StepResult; ranBefore: StepResult[]; ranAfter: StepResult[] }> {
    const index = this.run.steps.findIndex((s) => s.id === stepId);
    if (index < 0) throw new Error(`Step ${stepId} is not in the approved plan of run ${this.run.id}.`);
    const before = new Set(this.results.keys());
    const lastModelStep = this.run.steps.findLastIndex((s) => s.author.kind === "model");
    await this.enqueue(index >= lastModelStep ? this.run.steps.length - 1 : index);
    // Only steps an operator added: the model's own calls are answered as their own tool results.
    const ranNow = (from: number, to: number) =>
      this.run.steps
        .slice(from, to)
        .filter((s) => !before.has(s.id) && s.author.kind !== "model")
        .map((s) => this.results.get(s.id))
        .filter((r): r is StepResult => r !== undefined);
    return { result: this.results.get(stepId)!, ranBefore: ranNow(0, index), ranAfter: ranNow(index + 1, this.run.steps.length) };
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
    if (!impl) {
      // A step this executor cannot run (typically a tool an operator's edit added): it says so,
      // which ends the run typed (`cannot_execute`) and lists the step for a person, instead of
      // leaving the run executing for ever.
      const message = `This executor has no implementation of ${step.tool}; step ${step.id} was not run and nothing was written.`;
      const res = await this.client.reportOutcome(this.run.id, step.id, { token: claim.token, status: "cannot_execute", detail: message });
      log(`reported ${step.id} (${step.tool}) cannot_execute${res.ok ? "" : ` (report refused: ${res.error.code})`}`);
      return { status: "refused", ...base, code: "cannot_execute", message, details: {} };
    }
    if (claimed.replayed) {
      const detail = "This step was claimed by an earlier attempt of this executor; whether that attempt wrote it is not known, so it is not written again and waits for a person to reconcile.";
      return this.report(step, claim, { status: "unknown", detail });
    }
    const ctx: ExecutionContext = { runId: this.run.id, stepId: step.id, tool: step.tool, claim, step, run: this.run, stopCondition: claim.stopCondition ?? null };
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
    // A met stop condition: nothing was written, whatever status the tool gave; the run stops.
    const stop = outcome.stopConditionMet === true;
    const status = stop ? "failed" : outcome.status;
    const detail = outcome.detail ?? (stop ? `Stop condition met: ${claim.stopCondition ?? "(none stated)"}` : outcome.status);
    const versions = !stop && status === "succeeded" && outcome.targetVersions ? { targetVersions: outcome.targetVersions } : {};
    const res = await this.client.reportOutcome(this.run.id, step.id, { token: claim.token, status, detail: detail.slice(0, 4000), ...(stop ? { stopConditionMet: true } : {}), ...versions });
    (this.opts.log ?? (() => {}))(`reported ${step.id} (${step.tool}) ${outcome.status}: ${detail}${res.ok ? "" : ` (report refused: ${res.error.code})`}`);
    return {
      status,
      stepId: step.id,
      tool: step.tool,
      args: step.args,
      detail,
      ...(outcome.output !== undefined ? { output: outcome.output } : {}),
      ...(stop ? { stopConditionMet: true } : {}),
      ...(res.ok ? {} : { reportError: `${res.error.code}: ${res.error.message}` }),
    };
  }
}

// ── 5. tell the model ──────────────────────────────────────────────────────────

/**
 * The tool result a model sees for an executed (or stopped) step — plain JSON: `status`; the
 * arguments actually used (`executedArgs`, which are the operator's when `operatorEdited`);
 * each `changes` entry (proposed → approved); the executor's `detail` and the tool's `output`;
 * for a refused claim its typed `code`; `alsoRan` for steps the operator added that ran before
 * this one and `thenRan` for those that ran after it (each with its status, and the typed `code`
 * and message of one that was not done — a step this agent cannot execute is `cannot_execute`, and
 * the run ends so). Source: ("tell the model what was actually done").
 */
export function resultForModel(verdict: Extract<CallVerdict, { verdict: "approve" }>, result: StepResult, ranBefore: StepResult[] = [], ranAfter: StepResult[] = []): { [key: string]: JsonValue } {
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
    if (result.stopConditionMet) out.stopConditionMet = true;
  }
  if (ranBefore.length) out.alsoRan = ranBefore.map(addedStepForModel);
  if (ranAfter.length) out.thenRan = ranAfter.map(addedStepForModel);
  return out;
}

/** What the model is told of one step an operator added: tool, arguments, status, and why it was not done. */
function addedStepForModel(r: StepResult): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { step: r.stepId, tool: r.tool, status: r.status, args: toJson(r.args), addedBy: "operator" };
  if (r.status === "refused") {
    out.code = r.code;
    out.message = `Not done: ${r.message}`;
  } else if (r.status === "skipped") {
    out.code = "skipped";
    out.message = r.message;
  }
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
