/**
 * What an agent keeps while a person decides, measured: docs/adapters.md states, per framework,
 * the size of the adapter's proposal (`JSON.stringify`) and of the framework's own state for the
 * reference case's three calls — the AI SDK's message list, OpenAI Agents' `state.toString()`,
 * LangGraph's and LangChain's checkpointer thread (every checkpoint and pending write as
 * `MemorySaver` serialises them). Each framework here makes its first model turn with the
 * examples' offline models and the adapter proposes it to the in-process console; every size the
 * page states must be within 15 % of what is measured (KB = 1,000 bytes), so a framework upgrade
 * or a change of the proposal that moves a size fails here until the page says so.
 */
import fs from "node:fs";
import path from "node:path";
import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, run as runAgent, setTracingDisabled } from "@openai/agents";
import { MemorySaver } from "@langchain/langgraph";
import { beforeAll, describe, expect, it } from "vitest";
import { scriptedAgentsModel } from "../../../testing/openai-agents-model";
import { buildGraph, scriptedModel as langGraphModel } from "../../../examples/langgraph/graph";
import { buildAgent, scriptedModel as langChainModel } from "../../../examples/langchain/agent";
import { referenceCalls, REFERENCE_PROMPT } from "../../../examples/shared/reference-case";
import { prepareTestDatabase } from "../../../testing/test-support";
import { inProcessFetch } from "../../../testing/in-process-fetch";
import { createAgentClient } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { createAiSdkAdapter } from "@plandesk/client/ai-sdk";
import { createOpenAiAgentsAdapter } from "@plandesk/client/openai-agents";
import { createLangGraphAdapter } from "@plandesk/client/langgraph";
import { createLangChainAdapter } from "@plandesk/client/langchain";

setTracingDisabled(true);
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const client = () => createAgentClient({ baseUrl: "http://localhost:3999", apiKey: "pd_demo_agent_key", retry: false, fetch: inProcessFetch });
/** The reference case's three calls, with call ids of their own (each framework proposes its own run). */
const callsFor = (tag: string) => referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));

/** What a `MemorySaver` holds, in bytes: every serialised checkpoint with its metadata, and every pending write. */
function checkpointerBytes(saver: MemorySaver): number {
  const { storage, writes } = saver as unknown as {
    storage: Record<string, Record<string, Record<string, [Uint8Array, Uint8Array, string | undefined]>>>;
    writes: Record<string, Record<string, [string, string, Uint8Array]>>;
  };
  let n = 0;
  for (const thread of Object.values(storage)) for (const ns of Object.values(thread)) for (const [checkpoint, metadata] of Object.values(ns)) n += checkpoint.byteLength + metadata.byteLength;
  for (const pending of Object.values(writes)) for (const [, , value] of Object.values(pending)) n += value.byteLength;
  return n;
}

/** The sizes the page states: the row of `framework` in the saved-state table, its `~N KB` figures in order (proposal, state). */
function statedKb(framework: string): number[] {
  const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/adapters.md"), "utf8");
  const row = doc.split("\n").find((l) => l.trim().startsWith(`| ${framework} |`) && /~[\d.]+ KB/.test(l));
  if (!row) return [];
  return [...row.matchAll(/~([\d.]+) KB/g)].map((m) => Number(m[1]));
}

const measured: Record<string, { proposal: number; state: number }> = {};

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  {
    const c = client();
    const calls = callsFor("size_ai");
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({ content: calls.map((x) => ({ type: "tool-call" as const, toolCallId: x.callId, toolName: x.tool, input: JSON.stringify(x.args) })), finishReason: { unified: "tool-calls" as const, raw: undefined }, usage, warnings: [] }),
    });
    const pd = createAiSdkAdapter({ client: c, taskId: "task_74991", tools: demoDeskTools(c) });
    const messages: ModelMessage[] = [{ role: "user", content: REFERENCE_PROMPT }];
    const first = await generateText({ model, tools: pd.tools, messages });
    const proposal = (await pd.propose(first))!;
    measured["Vercel AI SDK"] = { proposal: bytes(JSON.stringify(proposal)), state: bytes(JSON.stringify([...messages, ...first.response.messages])) };
  }
  {
    const c = client();
    const pd = createOpenAiAgentsAdapter({ client: c, taskId: "task_74991", tools: demoDeskTools(c) });
    const agent = new Agent({ name: "desk", model: scriptedAgentsModel(callsFor("size_oa"), {}), tools: pd.tools });
    const first = await runAgent(agent, REFERENCE_PROMPT);
    const proposal = (await pd.propose(first.interruptions))!;
    measured["OpenAI Agents JS"] = { proposal: bytes(JSON.stringify(proposal)), state: bytes(first.state.toString()) };
  }
  {
    const c = client();
    const pd = createLangGraphAdapter({ client: c, taskId: "task_74991", tools: demoDeskTools(c) });
    const saver = new MemorySaver();
    const graph = buildGraph(pd, langGraphModel(callsFor("size_lg"), () => "ok"), saver);
    const first = await graph.invoke({ messages: [{ role: "user", content: REFERENCE_PROMPT }] }, { configurable: { thread_id: "size-lg" } });
    const proposal = (await pd.propose(first))!;
    measured["LangGraph JS"] = { proposal: bytes(JSON.stringify(proposal)), state: checkpointerBytes(saver) };
  }
  {
    const c = client();
    const pd = createLangChainAdapter({ client: c, taskId: "task_74991", tools: demoDeskTools(c) });
    const saver = new MemorySaver();
    const agent = buildAgent(pd, langChainModel(callsFor("size_lc"), () => "ok"), saver);
    const first = await agent.invoke({ messages: [{ role: "user", content: REFERENCE_PROMPT }] }, { configurable: { thread_id: "size-lc" } });
    const proposal = (await pd.propose(first))!;
    measured["LangChain v1"] = { proposal: bytes(JSON.stringify(proposal)), state: checkpointerBytes(saver) };
  }
}, 180_000);

describe("docs/adapters.md's saved-state sizes", () => {
  it.each(["Vercel AI SDK", "OpenAI Agents JS", "LangGraph JS", "LangChain v1"])("%s: the proposal and the framework's state are the sizes the page states", (framework) => {
    const got = measured[framework];
    expect(got, `measured ${framework}`).toBeDefined();
    const stated = statedKb(framework);
    expect(stated, `the page's row for ${framework}`).toHaveLength(2);
    const [proposalKb, stateKb] = stated;
    const near = (bytesMeasured: number, kb: number) => Math.abs(bytesMeasured / 1000 - kb) / kb <= 0.15;
    expect(near(got.proposal, proposalKb), `proposal: measured ${got.proposal} bytes, the page says ~${proposalKb} KB`).toBe(true);
    expect(near(got.state, stateKb), `state: measured ${got.state} bytes, the page says ~${stateKb} KB`).toBe(true);
  });

  it("the OpenAI Agents snippet's comment says the measured size of state.toString()", () => {
    const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/adapters.md"), "utf8");
    const said = /first\.state\.toString\(\);\s+\/\/ ~([\d.]+) KB/.exec(doc);
    expect(said, "the snippet's size comment").not.toBeNull();
    expect(Math.abs(measured["OpenAI Agents JS"].state / 1000 - Number(said![1])) / Number(said![1])).toBeLessThanOrEqual(0.15);
  });
});
