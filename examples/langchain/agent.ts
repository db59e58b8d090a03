/**
 * The example's agent (shared with packages/client/test/langchain.test.ts): LangChain v1 `createAgent`
 * over the adapter's tools, with `humanInTheLoopMiddleware` pausing every gated call, a
 * checkpointer, and LangChain's own fake tool-calling model: it first proposes `calls`, then
 * answers with `onToolResults(messages)` — a summary of the tool messages it received.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import type { LangChainAdapter } from "@plandesk/client/langchain";
import type { ScriptedCall } from "../shared/reference-case";

/** The offline model: proposes `calls`, then summarises the tool results. */
export function scriptedModel(calls: ScriptedCall[], onToolResults: (results: ToolMessage[]) => string) {
  return fakeModel()
    .respondWithTools(calls.map((c) => ({ name: c.tool, args: c.args, id: c.callId })))
    .respond((messages: BaseMessage[]) => new AIMessage(onToolResults(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)))));
}

/** `createAgent` around `pd` and `model` (default checkpointer: in-process MemorySaver). */
export function buildAgent(pd: LangChainAdapter, model: ReturnType<typeof scriptedModel>, checkpointer: BaseCheckpointSaver = new MemorySaver()) {
  return createAgent({ model, tools: pd.tools, checkpointer, middleware: [humanInTheLoopMiddleware({ interruptOn: pd.interruptOn })] });
}
