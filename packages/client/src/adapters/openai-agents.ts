/**
 * Plandesk adapter for the OpenAI Agents SDK for JavaScript (`@openai/agents@0.20`).
 * Usage (see examples/openai-agents):
 *
 *   const pd = createOpenAiAgentsAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client) });
 *   const agent = new Agent({ name: "desk", model, tools: pd.tools });
 *   let result = await run(agent, prompt);
 *   const proposal = await pd.propose(result.interruptions);  // the pending approvals → one Plandesk run
 *   const stored = result.state.toString();                    // safe to persist while a person decides
 *   const decision = await pd.wait(proposal);
 *   const state = await RunState.fromString(agent, stored);
 *   pd.respond(state, proposal, decision);                      // state.approve / state.reject(item, {message})
 *   result = await run(agent, state);                           // approved calls execute via claims
 *
 * Every gated tool is `needsApproval: true`, so a model turn's calls all wait in
 * `result.interruptions`. The SDK cannot run an edited call (changing `rawItem.arguments` is
 * refused as a reused call id), so the wrapped `execute` ignores the input the SDK passes and
 * runs the APPROVED arguments from Plandesk through a claim (./core.ts), returning
 * what was actually done as the tool output. A rejection reaches the model as the rejection
 * message of each call: the operator's reason.
 */
import { tool, type RunToolApprovalItem, type Tool } from "@openai/agents";
import type { Run } from "../client.js";
import {
  PlanExecutor,
  denialForModel,
  newSessionId,
  proposePlan,
  resultForModel,
  verdictFor,
  waitForDecision,
  type Decision,
  type PollOptions,
  type ProposedCall,
  type StepResult,
} from "./core.js";
import { type AdapterOptions, type AdapterProposal, adapterSession } from "./adapter-session.js";
import { splitReasons, withReasonsArg } from "./gated-tool.js";

/** Options of {@link createOpenAiAgentsAdapter} (the options every adapter takes). */
export type OpenAiAgentsAdapterOptions = AdapterOptions;

/** The proposal of one turn's interruptions (plain JSON; store it beside `result.state.toString()`). */
export type OpenAiAgentsProposal = AdapterProposal;

/** The part of the SDK's `RunState` the adapter uses (any `RunState<TContext, TAgent>` has it). */
export interface ApprovalState {
  getInterruptions(): RunToolApprovalItem[];
  approve(item: RunToolApprovalItem): void;
  reject(item: RunToolApprovalItem, options?: { message?: string }): void;
}

/** What {@link createOpenAiAgentsAdapter} returns. */
export interface OpenAiAgentsAdapter {
  /** Function tools for `new Agent({tools})`: each `needsApproval: true`, execute wrapped (claim → write approved args → report). */
  readonly tools: Tool[];
  /** Proposes the run's pending tool approvals as one Plandesk run; null when there are none. */
  propose(interruptions: readonly RunToolApprovalItem[]): Promise<OpenAiAgentsProposal | null>;
  /** Waits for the decision (immediately `refused` when the proposal was refused). */
  wait(proposal: OpenAiAgentsProposal, poll?: PollOptions): Promise<Decision>;
  /** Approves or rejects (with the reason as the model's message) each interruption of `state`, and arms the wrapped executes. */
  respond(state: ApprovalState, proposal: OpenAiAgentsProposal, decision: Decision): void;
  /** Runs approved steps no model call stands for (added by the operator at the end). */
  finish(): Promise<StepResult[]>;
}

/** The framework call id of an approval item (function calls carry `callId`). */
function callIdOf(item: RunToolApprovalItem): string | undefined {
  const raw = item.rawItem as { callId?: unknown; id?: unknown };
  return typeof raw.callId === "string" ? raw.callId : typeof raw.id === "string" ? raw.id : undefined;
}

function parseArguments(item: RunToolApprovalItem): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(item.arguments ?? "{}");
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Creates the OpenAI Agents adapter for one task (see the module comment for the flow). */
export function createOpenAiAgentsAdapter(opts: OpenAiAgentsAdapterOptions): OpenAiAgentsAdapter {
  const sessionId = opts.sessionId ?? newSessionId();
  const armed = new Map<string, { proposal: OpenAiAgentsProposal; decision: Decision; executor: PlanExecutor | null }>();
  // one executor per approved run, as every adapter keeps them (./adapter-session.ts)
  const session = adapterSession(opts);
  const executorFor = (run: Run) => session.executorFor(run);

  const tools: Tool[] = Object.entries(opts.tools).map(([name, spec]) =>
    tool({
      name,
      description: spec.description,
      parameters: opts.askForReasons === false ? spec.inputSchema : withReasonsArg(spec.inputSchema),
      needsApproval: true,
      execute: async (_input, _ctx, details) => {
        const callId = details?.toolCall?.callId;
        const entry = callId ? armed.get(callId) : undefined;
        if (!callId || !entry) return JSON.stringify({ status: "not_done", code: "not_approved", message: "This call was never approved in Plandesk; nothing was written." });
        const verdict = verdictFor(entry.decision, entry.proposal, callId);
        if (verdict.verdict === "deny" || !entry.executor) return JSON.stringify({ status: "not_done", code: verdict.verdict === "deny" ? verdict.code : "not_approved", message: verdict.verdict === "deny" ? denialForModel(verdict) : "Not approved." });
        const { result, ranBefore, ranAfter } = await entry.executor.executeThrough(verdict.stepId);
        return JSON.stringify(resultForModel(verdict, result, ranBefore, ranAfter));
      },
    }),
  );

  return {
    tools,
    async propose(interruptions) {
      const items = interruptions.filter((i) => callIdOf(i) !== undefined && typeof i.name === "string");
      if (items.length === 0) return null;
      const calls: ProposedCall[] = items.map((i) => {
        const { args, reasons } = splitReasons(parseArguments(i));
        return { callId: callIdOf(i)!, tool: i.name!, args, ...(reasons ? { reasons } : {}) };
      });
      const proposed = await proposePlan(opts.client, { taskId: opts.taskId, calls, sessionId, expiresInSeconds: opts.expiresInSeconds });
      if (!proposed.ok) return { pending: null, refused: proposed.decision, calls: proposed.calls };
      opts.log?.(`proposed run ${proposed.run.id} (${calls.length} steps) for ${opts.taskId}`);
      return { pending: proposed.pending, calls: proposed.pending.calls };
    },
    async wait(proposal, poll) {
      if (!proposal.pending) return proposal.refused ?? { kind: "refused", code: "not_proposed", reason: "The calls were not proposed." };
      return waitForDecision(opts.client, proposal.pending, { ...opts.poll, ...poll });
    },
    respond(state, proposal, decision) {
      const executor = decision.kind === "approved" ? executorFor(decision.run) : null;
      for (const item of state.getInterruptions()) {
        const callId = callIdOf(item);
        if (!callId || !proposal.calls.some((c) => c.callId === callId)) continue;
        armed.set(callId, { proposal, decision, executor });
        const verdict = verdictFor(decision, proposal, callId);
        if (verdict.verdict === "approve") state.approve(item);
        else state.reject(item, { message: denialForModel(verdict) });
      }
    },
    async finish() {
      return session.finish();
    },
  };
}
