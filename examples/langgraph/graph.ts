/**
 * The example's graph (shared with packages/client/test/langgraph.test.ts): agent → review → tools → agent,
 * with the model bound to the adapter's tools and the adapter's review node in between, over the
 * message list (`MessagesAnnotation`) and a checkpointer.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { LangGraphAdapter } from "@plandesk/client/langgraph";
import type { ScriptedCall } from "../shared/reference-case";

/**
 * The offline model: LangChain's own fake chat model, which first proposes `calls` and then
 * answers with `onToolResults(messages)` — a summary of the tool messages it received.
 */
export function scriptedModel(calls: ScriptedCall[], onToolResults: (results: ToolMessage[]) => string) {
  return fakeModel()
    .respondWithTools(calls.map((c) => ({ name: c.tool, args: c.args, id: c.callId })))
    .respond((messages: BaseMessage[]) => new AIMessage(onToolResults(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)))));
}

/** Compiles the graph around `pd` and `model` (default checkpointer: in-process MemorySaver). */
export function buildGraph(pd: LangGraphAdapter, model: ReturnType<typeof scriptedModel>, checkpointer: BaseCheckpointSaver = new MemorySaver()) {
  const bound = model.bindTools(pd.tools);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode("review", (state: typeof MessagesAnnotation.State) => pd.reviewNode(state), { ends: ["tools", "agent"] })
    .addNode("tools", new ToolNode(pd.tools))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => {
      const last = state.messages[state.messages.length - 1];
      return AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? "review" : END;
    })
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}
