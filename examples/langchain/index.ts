/**
 * The reference case (ticket #74991) proposed by a LangChain v1 agent (`createAgent` with
 * `humanInTheLoopMiddleware`) and governed by Plandesk. Offline: the model is LangChain's own
 * fake chat model (`@langchain/core/testing`).
 *
 *   npx tsx examples/langchain/index.ts --url http://localhost:3000 --key pd_demo_agent_key
 *
 * The middleware pauses the model's three calls before they run (action requests); the adapter
 * proposes them as ONE Plandesk run and waits while a person decides. The agent resumes with
 * `Command({resume: {decisions}})`: approve, edit (the approved arguments) or reject (the
 * operator's reason, which the model reads). The wrapped tools claim each step and write the
 * APPROVED arguments from Plandesk.
 */
import { createLangChainAdapter } from "@plandesk/client/langchain";
import { createAgentClient, describeResult } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { parseExampleArgs, referenceCalls, REFERENCE_PROMPT, say } from "../shared/reference-case";
import { buildAgent, scriptedModel } from "./agent";

async function main() {
  const opts = parseExampleArgs(process.argv.slice(2), "langchain");
  const client = createAgentClient({ baseUrl: opts.url, apiKey: opts.key });
  const calls = referenceCalls(new Date(), opts.daysAhead);
  const model = scriptedModel(calls, (results) => {
    const lines = results.map((m) => {
      say("model", `model saw ${m.name} (${m.tool_call_id}): ${String(m.content)}`);
      return `${m.name}: ${String(m.content).slice(0, 160)}`;
    });
    return `Summary for the customer file: ${lines.join("; ")}`;
  });
  const pd = createLangChainAdapter({
    client,
    taskId: opts.taskId,
    tools: demoDeskTools(client),
    poll: { initialDelayMs: opts.pollMs, maxDelayMs: Math.max(opts.pollMs, 2000), timeoutMs: opts.timeoutSeconds * 1000 },
    log: (line) => say("plandesk", line),
  });
  const agent = buildAgent(pd, model);
  const config = { configurable: { thread_id: `ticket-74991-${Date.now()}` } };

  const first = await agent.invoke({ messages: [{ role: "user", content: REFERENCE_PROMPT }] }, config);
  const proposal = await pd.propose(first);
  if (!proposal) throw new Error("The model made no gated tool call.");
  if (proposal.pending) say("agent", `proposed run ${proposal.pending.runId} with ${proposal.calls.length} steps for ${opts.taskId}; waiting for a person`);
  const decision = await pd.wait(proposal);
  say("agent", `decision: ${decision.kind}${"reason" in decision ? ` — ${decision.reason}` : ""}`);

  const second = await agent.invoke(pd.resume(proposal, decision), config);
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
