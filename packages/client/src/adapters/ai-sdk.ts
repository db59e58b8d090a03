/**
 * Plandesk adapter for the Vercel AI SDK (`ai@6`). Usage (see examples/ai-sdk):
 *
 *   const pd = createAiSdkAdapter({ client, taskId: "task_74991", tools: { reschedule_delivery: gatedTool({...}) } });
 *   let result = await generateText({ model, tools: pd.tools, messages });
 *   const proposal = await pd.propose(result);          // the paused calls → one Plandesk run
 *   const decision = await pd.wait(proposal);           // the run's event stream until a person decides or the run expires
 *   messages.push(...result.response.messages, pd.respond(proposal, decision));
 *   result = await generateText({ model, tools: pd.tools, messages });   // approved calls execute via claims
 *
 * Every gated tool is `needsApproval: true`, so the SDK pauses ALL of the model's calls of one
 * step as `tool-approval-request` parts; `propose` sends them as one run, in order. `respond`
 * answers each request: approved, or denied with the operator's reason (the model sees
 * `execution-denied` with it). The SDK cannot execute an edit (rewriting history is exactly
 * what the console must not trust), so each tool's `execute` is wrapped: it ignores the input
 * the SDK passes and runs the APPROVED arguments from Plandesk through a claim
 * (./core.ts `PlanExecutor`), and returns what was actually done as the tool result.
 */
import { adapterSession } from "./adapter-session.js";
import { tool, type Tool, type ToolModelMessage } from "ai";
import type { AgentClient, Run } from "../client.js";
import {
  PlanExecutor,
  denialForModel,
  newSessionId,
  proposePlan,
  resultForModel,
  verdictFor,
  waitForDecision,
  type BeforeWriteHook,
  type Decision,
  type JsonValue,
  type PendingPlan,
  type PollOptions,
  type ProposedCall,
  type StepResult,
} from "./core.js";
import { splitReasons, withReasonsArg, type GatedToolSet } from "./gated-tool.js";

/** Options of {@link createAiSdkAdapter}. */
export interface AiSdkAdapterOptions<T extends GatedToolSet> {
  client: AgentClient;
  /** The Plandesk task these calls serve, e.g. "task_74991". */
  taskId: string;
  /** The gated tools by Plandesk tool name. */
  tools: T;
  /** Session id for submission idempotency (default: random per adapter). */
  sessionId?: string;
  /** Default backoff for {@link AiSdkAdapter.wait}. */
  poll?: PollOptions;
  /** The fence slot, before every write. */
  beforeWrite?: BeforeWriteHook;
  /** Asked run expiry in seconds (capped by the console). */
  expiresInSeconds?: number;
  /** Offer the model the optional `stepReasons` argument (default true). */
  askForReasons?: boolean;
  log?: (line: string) => void;
}

/** A `tool-approval-request` content part of an AI SDK 6 result (structural). */
export interface ApprovalRequestPart {
  type: "tool-approval-request";
  approvalId: string;
  toolCall: { toolCallId: string; toolName: string; input: unknown };
}

/**
 * The paused calls of one model step, as proposed to Plandesk: the PendingPlan (null when the
 * console refused the proposal — then `refused` says why), and each approval request's id.
 * Plain JSON: store it with the message list while waiting.
 */
export interface AiSdkProposal {
  pending: PendingPlan | null;
  refused?: Extract<Decision, { kind: "refused" }>;
  calls: PendingPlan["calls"];
  approvals: { approvalId: string; callId: string }[];
}

/** The result a wrapped tool returns to the model (JSON; see core `resultForModel`). */
export type GatedToolResult = { [key: string]: JsonValue };

/** What {@link createAiSdkAdapter} returns. */
export interface AiSdkAdapter<T extends GatedToolSet> {
  /** The AI SDK tools: each `needsApproval: true`, its execute wrapped (claim → write approved args → report). */
  readonly tools: { [K in keyof T]: Tool<Record<string, unknown>, GatedToolResult> };
  /** Proposes the result's `tool-approval-request` parts as one run; null when there are none. */
  propose(result: { content: ReadonlyArray<{ type: string }> }): Promise<AiSdkProposal | null>;
  /** Waits for the decision (immediately `refused` when the proposal was refused). */
  wait(proposal: AiSdkProposal, poll?: PollOptions): Promise<Decision>;
  /**
   * The tool message to append after `result.response.messages`: one approval response per
   * request (denials carry the operator's reason). Also arms the wrapped executes for this decision.
   */
  respond(proposal: AiSdkProposal, decision: Decision): ToolModelMessage;
  /** Runs approved steps no model call stands for (added by the operator at the end) and returns their results. */
  finish(): Promise<StepResult[]>;
}

function isApprovalRequest(part: { type: string }): part is ApprovalRequestPart {
  return part.type === "tool-approval-request";
}

/**
 * Creates the AI SDK adapter for one task (see the module comment for the flow). Errors are
 * never thrown for refusals: they reach the model as denials or typed tool results.
 */
export function createAiSdkAdapter<T extends GatedToolSet>(opts: AiSdkAdapterOptions<T>): AiSdkAdapter<T> {
  const sessionId = opts.sessionId ?? newSessionId();
  const armed = new Map<string, { proposal: AiSdkProposal; decision: Decision; executor: PlanExecutor | null }>();
  // one executor per approved run, as every adapter keeps them (./adapter-session.ts)
  const session = adapterSession(opts);
  const executorFor = (run: Run) => session.executorFor(run);

  const tools = Object.fromEntries(
    Object.entries(opts.tools).map(([name, spec]) => [
      name,
      tool<Record<string, unknown>, GatedToolResult>({
        description: spec.description,
        inputSchema: opts.askForReasons === false ? spec.inputSchema : withReasonsArg(spec.inputSchema),
        needsApproval: true,
        execute: async (_input, { toolCallId }) => {
          const entry = armed.get(toolCallId);
          if (!entry) return { status: "not_done", code: "not_approved", message: "This call was never approved in Plandesk; nothing was written." };
          const verdict = verdictFor(entry.decision, entry.proposal, toolCallId);
          if (verdict.verdict === "deny" || !entry.executor) return { status: "not_done", code: verdict.verdict === "deny" ? verdict.code : "not_approved", message: verdict.verdict === "deny" ? denialForModel(verdict) : "Not approved." };
          const { result, ranBefore, ranAfter } = await entry.executor.executeThrough(verdict.stepId);
          return resultForModel(verdict, result, ranBefore, ranAfter);
        },
      }),
    ]),
  ) as { [K in keyof T]: Tool<Record<string, unknown>, GatedToolResult> };

  return {
    tools,
    async propose(result) {
      const requests = result.content.filter(isApprovalRequest);
      if (requests.length === 0) return null;
      const calls: ProposedCall[] = requests.map((r) => {
        const input = (typeof r.toolCall.input === "object" && r.toolCall.input !== null ? r.toolCall.input : {}) as Record<string, unknown>;
        const { args, reasons } = splitReasons(input);
        return { callId: r.toolCall.toolCallId, tool: r.toolCall.toolName, args, ...(reasons ? { reasons } : {}) };
      });
      const approvals = requests.map((r) => ({ approvalId: r.approvalId, callId: r.toolCall.toolCallId }));
      const proposed = await proposePlan(opts.client, { taskId: opts.taskId, calls, sessionId, expiresInSeconds: opts.expiresInSeconds });
      if (!proposed.ok) return { pending: null, refused: proposed.decision, calls: proposed.calls, approvals };
      opts.log?.(`proposed run ${proposed.run.id} (${calls.length} steps) for ${opts.taskId}`);
      return { pending: proposed.pending, calls: proposed.pending.calls, approvals };
    },
    async wait(proposal, poll) {
      if (!proposal.pending) return proposal.refused ?? { kind: "refused", code: "not_proposed", reason: "The calls were not proposed." };
      return waitForDecision(opts.client, proposal.pending, { ...opts.poll, ...poll });
    },
    respond(proposal, decision) {
      const executor = decision.kind === "approved" ? executorFor(decision.run) : null;
      return {
        role: "tool",
        content: proposal.approvals.map(({ approvalId, callId }) => {
          armed.set(callId, { proposal, decision, executor });
          const verdict = verdictFor(decision, proposal, callId);
          return verdict.verdict === "approve"
            ? { type: "tool-approval-response" as const, approvalId, approved: true }
            : { type: "tool-approval-response" as const, approvalId, approved: false, reason: denialForModel(verdict) };
        }),
      };
    },
    async finish() {
      return session.finish();
    },
  };
}
