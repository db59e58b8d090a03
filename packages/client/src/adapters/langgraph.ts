/**
 * Plandesk adapter for LangGraph JS (`@langchain/langgraph@1.7` + `@langchain/core@1.4`).
 * Usage (see examples/langgraph):
 *
 *   const pd = createLangGraphAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client) });
 *   const graph = new StateGraph(MessagesAnnotation)
 *     .addNode("agent", callModel)                                   // model bound to pd.tools
 *     .addNode("review", (s: typeof MessagesAnnotation.State) => pd.reviewNode(s), { ends: ["tools", "agent"] }) // interrupt() → Plandesk
 *     .addNode("tools", new ToolNode(pd.tools))                      // wrapped: claim → write approved args → report
 *     ...compile({ checkpointer });
 *   let out = await graph.invoke(input, config);
 *   const proposal = await pd.propose(out);                         // out.__interrupt__'s calls → one Plandesk run
 *   const decision = await pd.wait(proposal);
 *   out = await graph.invoke(pd.resume(proposal, decision), config); // Command({resume: [...]})
 *
 * `reviewNode` pauses the last AI message's calls with `interrupt()`, in agent-inbox's
 * HumanInterrupt shape (action request, allow accept/edit/respond/ignore), plus each call's id.
 * The resume value answers each request: `accept`; `edit` with the APPROVED arguments (LangGraph
 * edits natively, so the history shows what was approved); `response` with the operator's reason
 * (a rejection: the model reads it as the tool message); `ignore` for a step the operator removed.
 * The tools are still wrapped: each claims its step and runs the approved arguments from
 * Plandesk — never those in the graph's history — and returns what was actually done.
 * State lives in the graph's checkpointer under `thread_id` (use a persistent one in production).
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import { Command, interrupt } from "@langchain/langgraph";
import { adapterSession, type AdapterOptions, type AdapterProposal } from "./adapter-session.js";
import { PlanExecutor, denialForModel, resultForModel, stepIdForCall, verdictFor, type Decision, type PendingPlan, type PollOptions, type StepResult } from "./core.js";
import { splitReasons, withReasonsArg, type GatedToolSet } from "./gated-tool.js";

/** agent-inbox's HumanInterrupt for one call, plus the call's id (and its Plandesk step id). */
export interface PlandeskInterrupt {
  action_request: { action: string; args: Record<string, unknown> };
  config: { allow_accept: boolean; allow_edit: boolean; allow_respond: boolean; allow_ignore: boolean };
  description: string;
  callId: string;
  stepId: string;
}

/** agent-inbox's HumanResponse: what the resume value holds for each interrupt, in order. */
export type PlandeskHumanResponse =
  | { type: "accept"; args: null }
  | { type: "edit"; args: { action: string; args: Record<string, unknown> } }
  | { type: "response"; args: string }
  | { type: "ignore"; args: null };

/** Options of {@link createLangGraphAdapter}. */
export interface LangGraphAdapterOptions extends AdapterOptions {
  /** Graph node names `reviewNode` routes to (defaults "tools" and "agent"). */
  nodes?: { tools?: string; agent?: string };
}

/** The proposal of one interrupt (plain JSON). */
export type LangGraphProposal = AdapterProposal;

/** The graph state `reviewNode` reads: a message list (e.g. `MessagesAnnotation`). */
export interface MessagesState {
  messages: BaseMessage[];
}

/** What {@link createLangGraphAdapter} returns. */
export interface LangGraphAdapter {
  /** LangChain tools for `model.bindTools` and `new ToolNode`: execute wrapped (claim → write approved args → report). */
  readonly tools: DynamicStructuredTool[];
  /** The review node: interrupts on the last AI message's calls of gated tools and applies the resume answers. */
  reviewNode(state: MessagesState): Command;
  /** Proposes the calls of the graph output's interrupt (`output.__interrupt__`) as one Plandesk run; null when there is none. */
  propose(output: object): Promise<LangGraphProposal | null>;
  /** Waits for the decision (immediately `refused` when the proposal was refused). */
  wait(proposal: LangGraphProposal, poll?: PollOptions): Promise<Decision>;
  /** The `Command({resume})` answering each interrupt request, and arms the wrapped tools. */
  resume(proposal: LangGraphProposal, decision: Decision): Command<PlandeskHumanResponse[], Record<string, never>, never>;
  /** Runs approved steps no model call stands for (added by the operator at the end). */
  finish(): Promise<StepResult[]>;
}

/** What a wrapped LangChain tool needs for one call: the proposal, its decision and the run's executor. */
export interface ArmedCall {
  proposal: Pick<PendingPlan, "calls">;
  decision: Decision;
  executor: PlanExecutor | null;
}

/**
 * LangChain tools (`@langchain/core` `tool`) for the gated tool set, shared by the LangGraph and
 * the LangChain `createAgent` adapters: each call claims its Plandesk step and runs the APPROVED
 * arguments — never those in the framework's history — through the run's executor, and returns
 * what was actually done as JSON for the model. A call with no armed decision (`armedFor` gives
 * undefined: never proposed or not yet decided) writes nothing and says so.
 */
export function langChainTools(specs: GatedToolSet, askForReasons: boolean, armedFor: (callId: string) => ArmedCall | undefined): DynamicStructuredTool[] {
  return Object.entries(specs).map(
    ([name, spec]) =>
      tool(
        async (_input: Record<string, unknown>, config): Promise<string> => {
          const callId = config?.toolCall?.id;
          const entry = callId ? armedFor(callId) : undefined;
          if (!callId || !entry) return JSON.stringify({ status: "not_done", code: "not_approved", message: "This call was never approved in Plandesk; nothing was written." });
          const verdict = verdictFor(entry.decision, entry.proposal, callId);
          if (verdict.verdict === "deny" || !entry.executor) return JSON.stringify({ status: "not_done", code: verdict.verdict === "deny" ? verdict.code : "not_approved", message: verdict.verdict === "deny" ? denialForModel(verdict) : "Not approved." });
          const { result, ranBefore, ranAfter } = await entry.executor.executeThrough(verdict.stepId);
          return JSON.stringify(resultForModel(verdict, result, ranBefore, ranAfter));
        },
        { name, description: spec.description, schema: askForReasons ? withReasonsArg(spec.inputSchema) : spec.inputSchema },
      ) as unknown as DynamicStructuredTool,
  );
}

function isInterrupt(v: unknown): v is PlandeskInterrupt {
  const i = v as Partial<PlandeskInterrupt> | null;
  return !!i && typeof i === "object" && typeof i.callId === "string" && typeof i.action_request?.action === "string";
}

/** Creates the LangGraph adapter for one task (see the module comment for the flow). */
export function createLangGraphAdapter(opts: LangGraphAdapterOptions): LangGraphAdapter {
  const session = adapterSession(opts);
  const gated = new Set(Object.keys(opts.tools));
  const toolsNode = opts.nodes?.tools ?? "tools";
  const agentNode = opts.nodes?.agent ?? "agent";
  const armed = new Map<string, ArmedCall>();
  const tools = langChainTools(opts.tools, opts.askForReasons !== false, (callId) => armed.get(callId));

  return {
    tools,
    reviewNode(state) {
      const last = state.messages[state.messages.length - 1];
      const calls = (AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []).filter((tc) => gated.has(tc.name) && typeof tc.id === "string");
      if (!AIMessage.isInstance(last) || calls.length === 0) return new Command({ goto: agentNode });
      const requests: PlandeskInterrupt[] = calls.map((tc) => ({
        action_request: { action: tc.name, args: tc.args },
        config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
        description: `Plandesk step ${stepIdForCall(tc.id!)}: ${tc.name}`,
        callId: tc.id!,
        stepId: stepIdForCall(tc.id!),
      }));
      const answers = interrupt<PlandeskInterrupt[], PlandeskHumanResponse[]>(requests);
      const toolCalls = (last.tool_calls ?? []).map((tc) => {
        const k = calls.findIndex((c) => c.id === tc.id);
        const a = k >= 0 ? answers[k] : undefined;
        return a?.type === "edit" ? { ...tc, args: a.args.args } : tc;
      });
      const replies = calls
        .map((tc, k) => ({ tc, a: answers[k] }))
        .filter(({ a }) => a && (a.type === "response" || a.type === "ignore"))
        .map(({ tc, a }) => new ToolMessage({ tool_call_id: tc.id!, name: tc.name, content: a.type === "response" ? a.args : "The operator removed this step from the plan; it was not run." }));
      const anyToRun = calls.some((_, k) => answers[k]?.type === "accept" || answers[k]?.type === "edit");
      return new Command({
        goto: anyToRun ? toolsNode : agentNode,
        update: { messages: [new AIMessage({ id: last.id, content: last.content, tool_calls: toolCalls }), ...replies] },
      });
    },
    async propose(output) {
      const interrupts = (output as { __interrupt__?: unknown }).__interrupt__;
      const requests = (Array.isArray(interrupts) ? interrupts : [])
        .flatMap((i: { value?: unknown }) => (Array.isArray(i?.value) ? i.value : []))
        .filter(isInterrupt);
      if (requests.length === 0) return null;
      return session.propose(
        requests.map((r) => {
          const { args, reasons } = splitReasons(r.action_request.args);
          return { callId: r.callId, tool: r.action_request.action, args, ...(reasons ? { reasons } : {}) };
        }),
      );
    },
    wait: (proposal, poll) => session.wait(proposal, poll),
    resume(proposal, decision) {
      const executor = decision.kind === "approved" ? session.executorFor(decision.run) : null;
      const answers: PlandeskHumanResponse[] = proposal.calls.map((c) => {
        armed.set(c.callId, { proposal, decision, executor });
        const v = verdictFor(decision, proposal, c.callId);
        if (v.verdict === "approve") return v.edited ? { type: "edit", args: { action: v.tool, args: v.approvedArgs } } : { type: "accept", args: null };
        return v.code === "removed" ? { type: "ignore", args: null } : { type: "response", args: denialForModel(v) };
      });
      return new Command<PlandeskHumanResponse[], Record<string, never>, never>({ resume: answers });
    },
    finish: () => session.finish(),
  };
}
