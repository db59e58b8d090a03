/**
 * Plandesk adapter for LangChain v1's own human-in-the-loop convention: `createAgent` with
 * `humanInTheLoopMiddleware` (`langchain@1.5`, `@langchain/core@1.4`). Usage (see examples/langchain):
 *
 *   const pd = createLangChainAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client) });
 *   const agent = createAgent({ model, tools: pd.tools, checkpointer,
 *     middleware: [humanInTheLoopMiddleware({ interruptOn: pd.interruptOn })] });
 *   let out = await agent.invoke({ messages }, config);
 *   const proposal = await pd.propose(out);                  // the action requests → one Plandesk run
 *   const decision = await pd.wait(proposal!);
 *   out = await agent.invoke(pd.resume(proposal!, decision), config); // Command({resume: {decisions}})
 *
 * The middleware pauses before the gated calls run and asks for one decision per action request
 * (`{name, args}`); the adapter proposes those calls as one Plandesk run (the call ids come from
 * the last AI message's `tool_calls`, in the order of the requests) and answers each request from
 * the operator's decision: `approve`, `edit` with the APPROVED arguments (the edit lands in the
 * agent's history), or `reject` with the operator's reason (the model reads it). The tools are
 * wrapped like the LangGraph adapter's: each claims its step and runs the approved arguments from
 * Plandesk — never those in the history — and returns what was actually done.
 * State lives in the agent's checkpointer under `thread_id`.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { adapterSession, type AdapterOptions, type AdapterProposal } from "./adapter-session.js";
import { denialForModel, verdictFor, type Decision, type PollOptions, type StepResult } from "./core.js";
import { splitReasons } from "./gated-tool.js";
import { langChainTools, type ArmedCall } from "./langgraph.js";

/** One decision of `humanInTheLoopMiddleware`'s resume value, per action request in order. */
export type HitlDecision = { type: "approve" } | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } } | { type: "reject"; message: string };

/** Options of {@link createLangChainAdapter}. */
export type LangChainAdapterOptions = AdapterOptions;

/** The proposal of one interrupt (plain JSON). */
export type LangChainProposal = AdapterProposal;

/** What {@link createLangChainAdapter} returns. */
export interface LangChainAdapter {
  /** LangChain tools for `createAgent({tools})`: execute wrapped (claim → write approved args → report). */
  readonly tools: DynamicStructuredTool[];
  /** `humanInTheLoopMiddleware({interruptOn})` for every gated tool: approve, edit or reject. */
  readonly interruptOn: Record<string, { allowedDecisions: ("approve" | "edit" | "reject")[] }>;
  /** Proposes the action requests of the agent output's interrupt as one Plandesk run; null when there is none. */
  propose(output: object): Promise<LangChainProposal | null>;
  /** Waits for the decision (immediately `refused` when the proposal was refused). */
  wait(proposal: LangChainProposal, poll?: PollOptions): Promise<Decision>;
  /** The `Command({resume: {decisions}})` answering each action request, and arms the wrapped tools. */
  resume(proposal: LangChainProposal, decision: Decision): Command<{ decisions: HitlDecision[] }, Record<string, never>, never>;
  /** Runs approved steps no model call stands for (added by the operator at the end). */
  finish(): Promise<StepResult[]>;
}

interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
}

/** The action requests of `output.__interrupt__` (humanInTheLoopMiddleware's `{actionRequests}` values). */
function actionRequestsOf(output: object): ActionRequest[] {
  const interrupts = (output as { __interrupt__?: unknown }).__interrupt__;
  return (Array.isArray(interrupts) ? interrupts : []).flatMap((i: { value?: { actionRequests?: unknown } }) =>
    Array.isArray(i?.value?.actionRequests) ? (i.value.actionRequests as ActionRequest[]).filter((r) => typeof r?.name === "string") : [],
  );
}

/**
 * The call id of each action request: the last AI message's tool calls of the requested tools,
 * matched in order (the middleware asks in the order of the message's calls). Errors: throws when
 * a request has no call to match (the output is not the middleware's).
 */
function callIdsOf(messages: readonly BaseMessage[], requests: readonly ActionRequest[]): string[] {
  const last = [...messages].reverse().find((m) => AIMessage.isInstance(m)) as AIMessage | undefined;
  const pool = (last?.tool_calls ?? []).filter((tc) => typeof tc.id === "string");
  return requests.map((r) => {
    const k = pool.findIndex((tc) => tc.name === r.name);
    if (k < 0) throw new Error(`No tool call of ${r.name} in the agent's last message for its action request.`);
    return pool.splice(k, 1)[0].id!;
  });
}

/** Creates the LangChain `createAgent` adapter for one task (see the module comment for the flow). */
export function createLangChainAdapter(opts: LangChainAdapterOptions): LangChainAdapter {
  const session = adapterSession(opts);
  const armed = new Map<string, ArmedCall>();
  return {
    tools: langChainTools(opts.tools, opts.askForReasons !== false, (callId) => armed.get(callId)),
    interruptOn: Object.fromEntries(Object.keys(opts.tools).map((name) => [name, { allowedDecisions: ["approve", "edit", "reject"] }])),
    async propose(output) {
      const requests = actionRequestsOf(output);
      if (requests.length === 0) return null;
      const ids = callIdsOf((output as { messages?: BaseMessage[] }).messages ?? [], requests);
      return session.propose(
        requests.map((r, k) => {
          const { args, reasons } = splitReasons(r.args);
          return { callId: ids[k], tool: r.name, args, ...(reasons ? { reasons } : {}) };
        }),
      );
    },
    wait: (proposal, poll) => session.wait(proposal, poll),
    resume(proposal, decision) {
      const executor = decision.kind === "approved" ? session.executorFor(decision.run) : null;
      const decisions: HitlDecision[] = proposal.calls.map((c) => {
        armed.set(c.callId, { proposal, decision, executor });
        const v = verdictFor(decision, proposal, c.callId);
        if (v.verdict === "approve") return v.edited ? { type: "edit", editedAction: { name: v.tool, args: v.approvedArgs } } : { type: "approve" };
        return { type: "reject", message: denialForModel(v) };
      });
      return new Command<{ decisions: HitlDecision[] }, Record<string, never>, never>({ resume: { decisions } });
    },
    finish: () => session.finish(),
  };
}
