/**
 * Test support: the OpenAI Agents SDK's own scripted model for the adapter tests — it proposes
 * `calls` (one function call each, with their call ids), then records into `seen` the text of
 * every function-call result it is given (by tool name; an MCP tool's content items joined by
 * newlines) and answers "ok".
 */
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";

/** The model, filling `seen[tool]` with the tool result the agent was told. */
export function scriptedAgentsModel(calls: { tool: string; callId: string; args: Record<string, unknown> }[], seen: Record<string, string>): ScriptedModel {
  return new ScriptedModel([
    calls.map((c) => functionCall(c.tool, c.args, { callId: c.callId })),
    modelResponder((call) => {
      for (const item of Array.isArray(call.request.input) ? call.request.input : []) {
        // a function tool's output is a string or {text}; an MCP tool's, a list of content items
        const r = item as { type?: string; name?: string; output?: { text?: string } | { text?: string }[] | string };
        if (r.type === "function_call_result" && r.name) {
          seen[r.name] = typeof r.output === "string" ? r.output : Array.isArray(r.output) ? r.output.map((o) => o.text ?? "").join("\n") : (r.output?.text ?? "");
        }
      }
      return [assistantMessage("ok")];
    }),
  ]);
}
