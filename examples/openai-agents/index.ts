/**
 * The reference case (ticket #74991) proposed by an OpenAI Agents SDK agent and governed by
 * Plandesk. Offline: the model is the SDK's own ScriptedModel (`@openai/agents/testing`).
 *
 *   npx tsx examples/openai-agents/index.ts --url http://localhost:3000 --key pd_demo_agent_key
 *
 * The agent's three calls wait as `result.interruptions`; the adapter proposes them as ONE
 * Plandesk run; while a person decides, the agent keeps only `result.state.toString()` (here in
 * memory; a real agent stores it) and polls. It then restores the state, approves or rejects each
 * interruption (a rejection carries the operator's reason to the model) and runs on: each
 * approved call claims its step and writes the APPROVED arguments.
 */
import { Agent, RunState, run, setTracingDisabled } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";
import { createOpenAiAgentsAdapter } from "@plandesk/client/openai-agents";
import { createAgentClient, describeResult } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { parseExampleArgs, referenceCalls, REFERENCE_PROMPT, say } from "../shared/reference-case";

setTracingDisabled(true);

async function main() {
  const opts = parseExampleArgs(process.argv.slice(2), "openai-agents");
  const client = createAgentClient({ baseUrl: opts.url, apiKey: opts.key });
  const calls = referenceCalls(new Date(), opts.daysAhead);

  const model = new ScriptedModel([
    calls.map((c) => functionCall(c.tool, c.args, { callId: c.callId })),
    modelResponder((call) => {
      const input = Array.isArray(call.request.input) ? call.request.input : [];
      const lines: string[] = [];
      for (const item of input) {
        const r = item as { type?: string; name?: string; callId?: string; output?: { type?: string; text?: string } | string };
        if (r.type !== "function_call_result") continue;
        const text = typeof r.output === "string" ? r.output : (r.output?.text ?? JSON.stringify(r.output));
        say("model", `model saw ${r.name} (${r.callId}): ${text}`);
        lines.push(`${r.name}: ${text.slice(0, 160)}`);
      }
      return [assistantMessage(`Summary for the customer file: ${lines.join("; ")}`)];
    }),
  ]);

  const pd = createOpenAiAgentsAdapter({
    client,
    taskId: opts.taskId,
    tools: demoDeskTools(client),
    poll: { initialDelayMs: opts.pollMs, maxDelayMs: Math.max(opts.pollMs, 2000), timeoutMs: opts.timeoutSeconds * 1000 },
    log: (line) => say("plandesk", line),
  });
  const agent = new Agent({ name: "Freight desk agent", instructions: "Resolve freight exceptions.", model, tools: pd.tools });

  const first = await run(agent, REFERENCE_PROMPT);
  const proposal = await pd.propose(first.interruptions);
  if (!proposal) throw new Error("The model made no gated tool call.");
  const stored = first.state.toString(); // all the agent keeps while a person decides
  if (proposal.pending) say("agent", `proposed run ${proposal.pending.runId} with ${proposal.calls.length} steps for ${opts.taskId}; waiting for a person`);
  const decision = await pd.wait(proposal);
  say("agent", `decision: ${decision.kind}${"reason" in decision ? ` — ${decision.reason}` : ""}`);

  const state = await RunState.fromString(agent, stored);
  pd.respond(state, proposal, decision);
  const second = await run(agent, state);
  for (const r of await pd.finish()) say("agent", `also ran (added by the operator): ${describeResult(r)}`);
  say("model", `final: ${String(second.finalOutput ?? "")}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
