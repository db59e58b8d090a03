import type { AgentClient, Run } from "../client.js";
import { PlanExecutor, newSessionId, proposePlan, waitForDecision, type BeforeWriteHook, type Decision, type PendingPlan, type PollOptions, type ProposedCall, type StepResult } from "./core.js";
import { implementationsOf, type GatedToolSet } from "./gated-tool.js";

/** Options every framework adapter takes: the client, the task, the gated tools and how to wait. */
export interface AdapterOptions {
  client: AgentClient;
  /** The Plandesk task these calls serve. */
  taskId: string;
  /** The gated tools by Plandesk tool name. */
  tools: GatedToolSet;
  /** Keys the run's idempotency (default: a new one per adapter). */
  sessionId?: string;
  poll?: PollOptions;
  beforeWrite?: BeforeWriteHook;
  /** The run's deadline, in seconds from submission (absent: the console's default). */
  expiresInSeconds?: number;
  /** Offer the model the optional `stepReasons` argument (default true). */
  askForReasons?: boolean;
  log?: (line: string) => void;
}

/** The proposal of one pause (plain JSON): the run it became, or the typed refusal, and its calls. */
export interface AdapterProposal {
  pending: PendingPlan | null;
  refused?: Extract<Decision, { kind: "refused" }>;
  calls: PendingPlan["calls"];
}

/**
 * The framework-independent part of one adapter instance: one executor per approved run (steps
 * run once each, in plan order), proposing a pause's calls as one run, waiting for the decision,
 * and running the approved steps no model call stands for. The LangGraph and LangChain adapters
 * (./langgraph.ts, ./langchain.ts) use all of it; the AI SDK and OpenAI Agents adapters, whose
 * frameworks decide per call, use its executors and `finish`.
 */
export function adapterSession(opts: AdapterOptions) {
  const sessionId = opts.sessionId ?? newSessionId();
  const implementations = implementationsOf(opts.tools);
  const executors = new Map<string, PlanExecutor>();
  return {
    /** The executor of `run` (made once per run). */
    executorFor(run: Run): PlanExecutor {
      let ex = executors.get(run.id);
      if (!ex) {
        ex = new PlanExecutor(opts.client, run, { implementations, beforeWrite: opts.beforeWrite, log: opts.log });
        executors.set(run.id, ex);
      }
      return ex;
    },
    /** Proposes `calls` as one Plandesk run for the task; a refusal comes back as `refused`, never thrown. */
    async propose(calls: ProposedCall[]): Promise<AdapterProposal> {
      const proposed = await proposePlan(opts.client, { taskId: opts.taskId, calls, sessionId, expiresInSeconds: opts.expiresInSeconds });
      if (!proposed.ok) return { pending: null, refused: proposed.decision, calls: proposed.calls };
      opts.log?.(`proposed run ${proposed.run.id} (${calls.length} steps) for ${opts.taskId}`);
      return { pending: proposed.pending, calls: proposed.pending.calls };
    },
    /** Waits for the decision (immediately `refused` when the proposal was refused). */
    async wait(proposal: AdapterProposal, poll?: PollOptions): Promise<Decision> {
      if (!proposal.pending) return proposal.refused ?? { kind: "refused", code: "not_proposed", reason: "The calls were not proposed." };
      return waitForDecision(opts.client, proposal.pending, { ...opts.poll, ...poll });
    },
    /** Runs approved steps no model call stands for (added by the operator at the end). */
    async finish(): Promise<StepResult[]> {
      const out: StepResult[] = [];
      for (const ex of executors.values()) out.push(...(await ex.finish()));
      return out;
    },
  };
}
