/**
 * The reference case (ticket #74991) proposed by a LangGraph agent and governed by Plandesk.
 * Offline: the model is LangChain's own fake chat model (`@langchain/core/testing`).
 *
 *   npx tsx examples/langgraph/index.ts --url http://localhost:3000 --key pd_demo_agent_key
 *
 * The graph's review node pauses the model's three calls with `interrupt()` (agent-inbox
 * HumanInterrupt items); the adapter proposes them as ONE Plandesk run and polls while a person
 * decides. The graph resumes with `Command({resume})`: accept, edit (the approved arguments —
 * LangGraph edits natively), response (the operator's reason, which the model reads as the tool
 * message) or ignore (a removed step). The tools node's wrapped tools claim each step and write
 * the APPROVED arguments from Plandesk.
 */
import { createLangGraphAdapter } from "@plandesk/client/langgraph";
import { createAgentClient, describeResult } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { parseExampleArgs, referenceCalls, REFERENCE_PROMPT, say } from "../shared/reference-case";
import { buildGraph, scriptedModel } from "./graph";

async function main() {
  const opts = parseExampleArgs(process.argv.slice(2), "langgraph");
  const client = createAgentClient({ baseUrl: opts.url, apiKey: opts.key });
  const calls = referenceCalls(new Date(), opts.daysAhead);
  const model = scriptedModel(calls, (results) => {
    const lines = results.map((m) => {
      say("model", `model saw ${m.name} (${m.tool_call_id}): ${String(m.content)}`);
      return `${m.name}: ${String(m.content).slice(0, 160)}`;
    });
    return `Summary for the customer file: ${lines.join("; ")}`;
  });
  const pd = createLangGraphAdapter({
    client,
    taskId: opts.taskId,
    tools: demoDeskTools(client),
    poll: { initialDelayMs: opts.pollMs, maxDelayMs: Math.max(opts.pollMs, 2000), timeoutMs: opts.timeoutSeconds * 1000 },
    log: (line) => say("plandesk", line),
  });
  const graph = buildGraph(pd, model);
  const config = { configurable: { thread_id: `ticket-74991-${Date.now()}` } };

  const first = await graph.invoke({ messages: [{ role: "user", content: REFERENCE_PROMPT }] }, config);
  const proposal = await pd.propose(first);
  if (!proposal) throw new Error("The model made no gated tool call.");
  if (proposal.pending) say("agent", `proposed run ${proposal.pending.runId} with ${proposal.calls.length} steps for ${opts.taskId}; waiting for a person`);
  const decision = await pd.wait(proposal);
  say("agent", `decision: ${decision.kind}${"reason" in decision ? ` — ${decision.reason}` : ""}`);

  const second = await graph.invoke(pd.resume(proposal, decision), config);
  for (const r of await pd.finish()) say("agent", `also ran (added by the operator): ${describeResult(r)}`);
  const last = second.messages[second.messages.length - 1];
  say("model", `final: ${String(last?.content ?? "")}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
