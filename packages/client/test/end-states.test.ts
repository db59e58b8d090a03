/**
 * Every framework meets every way a wait can end, and each ends typed: the four adapters (AI SDK,
 * OpenAI Agents, LangGraph, LangChain) × eight end states — approved as proposed, approved with an
 * operator's edit, rejected, the task revised while waiting, superseded by a newer plan, expired
 * while nobody decided, the console unreachable for good (no `timeoutMs`), and a step the operator
 * added that this agent cannot execute. In every cell the wait resolves with the expected typed
 * Decision, the model is told something for each of its calls (the typed code where nothing was
 * done), and the run reaches an end with a typed outcome — with no `finish()` call anywhere.
 * Over the in-process agent client and this file's own database.
 */
import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, RunState, run as runAgent, setTracingDisabled } from "@openai/agents";
import { scriptedAgentsModel } from "../../../testing/openai-agents-model";
import { beforeAll, describe, expect, it } from "vitest";
import { buildGraph, scriptedModel as langGraphModel } from "../../../examples/langgraph/graph";
import { buildAgent, scriptedModel as langChainModel } from "../../../examples/langchain/agent";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { expireIfDue } from "../../../lib/server/lifecycle/run-lifecycle";
import { loadRun } from "../../../lib/server/plans/load-run";
import { toRunView } from "../../../lib/server/plans/run-view";
import { submitEdit } from "../../../lib/server/edits/submit-edit";
import { approveSteps } from "../../../lib/server/approvals/approve-steps";
import { prepareTestDatabase } from "../../../testing/test-support";
import { inProcessFetch } from "../../../testing/in-process-fetch";
import { approveAsIs, editDateAndApprove, isoDay, reject, reviseTheTask, runProposedFor, sendNewerPlan, senior } from "../../../testing/adapter-operator";
import { createAgentClient, type Decision, type PollOptions } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { createAiSdkAdapter } from "@plandesk/client/ai-sdk";
import { createOpenAiAgentsAdapter } from "@plandesk/client/openai-agents";
import { createLangGraphAdapter } from "@plandesk/client/langgraph";
import { createLangChainAdapter } from "@plandesk/client/langchain";

setTracingDisabled(true);
const TOOLS = ["add_ticket_note", "reschedule_delivery", "send_reply"];
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A client whose network can be cut: while `down`, every request fails as a refused connection would. */
function switchableClient() {
  const net = { down: false };
  const client = createAgentClient({
    baseUrl: "http://localhost:3999",
    apiKey: "pd_demo_agent_key",
    retry: false,
    fetch: (input, init) => (net.down ? Promise.reject(new TypeError("fetch failed: connect ECONNREFUSED 127.0.0.1:3999")) : inProcessFetch(input, init)),
  });
  return { client, net };
}

/** What one cell does around the wait. */
interface CellScript {
  /** Runs after the proposal, before the wait (the run exists, nobody decided yet; `pending` is the agent's stored copy). */
  afterPropose?: (runId: string, net: { down: boolean }, pending: { expiresAt?: string }) => Promise<void>;
  /** What a person does while the agent waits. */
  operator: (runId: string) => Promise<void>;
  poll?: PollOptions;
}

/** One agent round in a framework: propose the reference calls, wait while the script plays, resume; the texts the model saw per tool. */
type Round = (tag: string, script: CellScript) => Promise<{ runId: string; decision: Decision; seen: Record<string, string> }>;

const callsFor = (tag: string) => referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));

/** Waits for the decision while the script's operator acts on the proposed run. */
async function waitWhile(wait: () => Promise<Decision>, runId: string, script: CellScript, net: { down: boolean }, secondCallId: string, pending: { expiresAt?: string }) {
  await script.afterPropose?.(runId, net, pending);
  const [decision] = await Promise.all([wait(), runProposedFor(secondCallId).then(script.operator)]);
  net.down = false; // the agent's process reaches the console again to tell the model and run the tools
  return decision;
}

const ROUNDS: Record<string, Round> = {
  "AI SDK": async (tag, script) => {
    const { client, net } = switchableClient();
    const calls = callsFor(tag);
    const seen: Record<string, string> = {};
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result") as unknown as { toolName: string; output: unknown }[];
        if (results.length === 0) return { content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.callId, toolName: c.tool, input: JSON.stringify(c.args) })), finishReason: { unified: "tool-calls" as const, raw: undefined }, usage, warnings: [] };
        for (const r of results) seen[r.toolName] = JSON.stringify(r.output);
        return { content: [{ type: "text" as const, text: "ok" }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] };
      },
    });
    const pd = createAiSdkAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, ...script.poll } });
    const messages: ModelMessage[] = [{ role: "user", content: "Ticket #74991" }];
    const first = await generateText({ model, tools: pd.tools, messages });
    const proposal = (await pd.propose(first))!;
    const runId = proposal.pending!.runId;
    const decision = await waitWhile(() => pd.wait(proposal), runId, script, net, calls[1].callId, proposal.pending!);
    messages.push(...first.response.messages, pd.respond(proposal, decision));
    await generateText({ model, tools: pd.tools, messages });
    return { runId, decision, seen };
  },
  "OpenAI Agents": async (tag, script) => {
    const { client, net } = switchableClient();
    const calls = callsFor(tag);
    const seen: Record<string, string> = {};
    const model = scriptedAgentsModel(calls, seen);
    const pd = createOpenAiAgentsAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, ...script.poll } });
    const agent = new Agent({ name: "desk", model, tools: pd.tools });
    const first = await runAgent(agent, "Ticket #74991");
    const proposal = (await pd.propose(first.interruptions))!;
    const runId = proposal.pending!.runId;
    const stored = first.state.toString();
    const decision = await waitWhile(() => pd.wait(proposal), runId, script, net, calls[1].callId, proposal.pending!);
    const state = await RunState.fromString(new Agent({ name: "desk", model, tools: pd.tools }), stored);
    pd.respond(state, proposal, decision);
    await runAgent(agent, state);
    return { runId, decision, seen };
  },
  LangGraph: async (tag, script) => {
    const { client, net } = switchableClient();
    const calls = callsFor(tag);
    const seen: Record<string, string> = {};
    const model = langGraphModel(calls, (results) => {
      for (const m of results) seen[m.name ?? "?"] = String(m.content);
      return "ok";
    });
    const pd = createLangGraphAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, ...script.poll } });
    const graph = buildGraph(pd, model);
    const config = { configurable: { thread_id: `matrix-lg-${tag}` } };
    const first = await graph.invoke({ messages: [{ role: "user", content: "Ticket #74991" }] }, config);
    const proposal = (await pd.propose(first))!;
    const runId = proposal.pending!.runId;
    const decision = await waitWhile(() => pd.wait(proposal), runId, script, net, calls[1].callId, proposal.pending!);
    await graph.invoke(pd.resume(proposal, decision), config);
    return { runId, decision, seen };
  },
  LangChain: async (tag, script) => {
    const { client, net } = switchableClient();
    const calls = callsFor(tag);
    const seen: Record<string, string> = {};
    const model = langChainModel(calls, (results) => {
      for (const m of results) seen[m.name ?? "?"] = String(m.content);
      return "ok";
    });
    const pd = createLangChainAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, ...script.poll } });
    const agent = buildAgent(pd, model);
    const config = { configurable: { thread_id: `matrix-lc-${tag}` } };
    const first = await agent.invoke({ messages: [{ role: "user", content: "Ticket #74991" }] }, config);
    const proposal = (await pd.propose(first))!;
    const runId = proposal.pending!.runId;
    const decision = await waitWhile(() => pd.wait(proposal), runId, script, net, calls[1].callId, proposal.pending!);
    await agent.invoke(pd.resume(proposal, decision), config);
    return { runId, decision, seen };
  },
};

/** Moves the run's deadline to `ms` from now (as if it had been waiting most of its life). */
async function deadlineIn(runId: string, ms: number) {
  await prisma.run.update({ where: { id: runId }, data: { expiresAt: new Date(Date.now() + ms) } });
}

/** The end states: what a person (or the network) does, the Decision expected, what the model must be told, the run's end. */
const STATES: { name: string; script: CellScript; decision: Decision["kind"]; code?: string; told: RegExp; runStatus: string[]; outcome?: string }[] = [
  { name: "approved as proposed", script: { operator: approveAsIs }, decision: "approved", told: /succeeded/, runStatus: ["completed"] },
  {
    name: "approved with an operator's edit",
    script: { operator: (id) => editDateAndApprove(id, isoDay(8)) },
    decision: "approved",
    told: /succeeded/,
    runStatus: ["completed"],
  },
  { name: "rejected", script: { operator: (id) => reject(id, "Wait for the customer's call.") }, decision: "rejected", told: /Wait for the customer's call/, runStatus: ["rejected"], outcome: "rejected" },
  {
    name: "task revised while waiting",
    script: { operator: () => reviseTheTask("task_74991") },
    decision: "refused",
    code: "stopped_stale_task",
    told: /stopped_stale_task/,
    runStatus: ["stopped"],
    outcome: "stopped_stale_task",
  },
  {
    name: "superseded by a newer plan",
    script: {
      operator: () => sendNewerPlan("task_74991", "74991"),
    },
    decision: "refused",
    code: "superseded",
    told: /superseded/,
    runStatus: ["superseded"],
    outcome: "superseded",
  },
  {
    name: "expired while nobody decided",
    script: { afterPropose: (id) => deadlineIn(id, 800), operator: async () => {} },
    decision: "expired",
    told: /expired/,
    runStatus: ["expired"],
    outcome: "expired",
  },
  {
    name: "the console unreachable for good, no timeoutMs",
    script: {
      afterPropose: async (id, net, pending) => {
        // the run near its deadline, as the console and the agent's stored proposal both say
        await deadlineIn(id, 800);
        pending.expiresAt = (await prisma.run.findUniqueOrThrow({ where: { id } })).expiresAt.toISOString();
        net.down = true;
      },
      operator: async () => {},
      poll: { graceMs: 400 },
    },
    decision: "unreachable",
    told: /unreachable/,
    runStatus: ["expired"],
    outcome: "expired",
  },
  {
    name: "a trailing step the operator added that the agent cannot execute",
    script: {
      operator: async (id) => {
        const who = await senior();
        const run = toRunView(await loadRun(id));
        const steps = [...run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })), { id: "op-escalate", tool: "escalate_ticket", args: { ticketId: "74991", team: "operations", note: "Driver no-show on sh_5521." } }];
        const edit = await submitEdit(who, id, { baseVersion: run.planVersion, steps });
        await approveSteps(who, id, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `matrix:${id}` });
      },
    },
    decision: "approved",
    told: /succeeded/,
    runStatus: ["failed"],
    outcome: "cannot_execute",
  },
];

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe.each(Object.entries(ROUNDS))("%s", (framework, round) => {
  it.each(STATES.map((s) => [s.name, s] as const))("%s: a typed end", async (name, state) => {
    const tag = `${framework}-${name}`.replace(/[^A-Za-z0-9]+/g, "_").slice(0, 40);
    const { runId, decision, seen } = await round(tag, state.script);
    expect(decision.kind, JSON.stringify(decision).slice(0, 300)).toBe(state.decision);
    if (state.code) expect(decision).toMatchObject({ code: state.code });
    // the model is told something for each of its calls, and what became of it
    expect(Object.keys(seen).sort()).toEqual([...TOOLS].sort());
    for (const tool of TOOLS) expect(seen[tool], `${tool}: ${seen[tool]}`).toMatch(state.told);
    if (state.outcome === "cannot_execute") {
      // the last call's result names the added step it could not execute, without finish()
      expect(seen.send_reply).toMatch(/escalate_ticket/);
      expect(seen.send_reply).toMatch(/cannot_execute/);
    }
    // the run ends typed: for the unreachable console, the server's deadline sweep does it
    if (state.decision === "unreachable") await expireIfDue(runId);
    const ended = toRunView(await loadRun(runId));
    expect(state.runStatus).toContain(ended.status);
    expect(ended.outcome, ended.status).not.toBeNull();
    if (state.outcome) expect(ended.outcome?.code).toBe(state.outcome);
    if (state.decision !== "approved") expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
  }, 60_000);
});
