/**
 * The reference case (ticket #74991) proposed by a Vercel AI SDK agent and governed by Plandesk.
 * Offline: the model is the SDK's own MockLanguageModelV3 (no network, no key).
 *
 *   npx tsx examples/ai-sdk/index.ts --url http://localhost:3000 --key pd_demo_agent_key
 *
 * 1. The model calls add_ticket_note, reschedule_delivery (a few days ahead) and send_reply; all
 *    three are gated, so the SDK pauses them as tool-approval requests.
 * 2. The adapter proposes them to Plandesk as ONE run and polls until a person decides.
 * 3. Approved (maybe edited): the SDK resumes; each wrapped execute claims its step and writes the
 *    APPROVED arguments (the operator's date, not the model's). Rejected: every call is denied
 *    with the operator's reason, which the model reads as the tool result.
 */
import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createAiSdkAdapter } from "@plandesk/client/ai-sdk";
import { createAgentClient, describeResult } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { parseExampleArgs, referenceCalls, REFERENCE_PROMPT, say } from "../shared/reference-case";

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } };

async function main() {
  const opts = parseExampleArgs(process.argv.slice(2), "ai-sdk");
  const client = createAgentClient({ baseUrl: opts.url, apiKey: opts.key });
  const calls = referenceCalls(new Date(), opts.daysAhead);

  // The mock model: first it proposes the three calls; then it reads the tool results it got.
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result");
      if (results.length === 0) {
        return {
          content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.callId, toolName: c.tool, input: JSON.stringify(c.args) })),
          finishReason: { unified: "tool-calls" as const, raw: undefined },
          usage,
          warnings: [],
        };
      }
      const lines = results.map((r) => {
        say("model", `model saw ${r.toolName} (${r.toolCallId}): ${JSON.stringify(r.output)}`);
        if (r.output.type === "execution-denied") return `${r.toolName} was not done: ${r.output.reason ?? "denied"}`;
        const v = r.output.type === "json" ? (r.output.value as { status?: string; detail?: string; code?: string; message?: string }) : {};
        return `${r.toolName}: ${v.status ?? "?"}${v.detail ? ` (${v.detail})` : v.message ? ` (${v.message})` : ""}`;
      });
      return { content: [{ type: "text" as const, text: `Summary for the customer file: ${lines.join("; ")}` }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] };
    },
  });

  const pd = createAiSdkAdapter({
    client,
    taskId: opts.taskId,
    tools: demoDeskTools(client),
    poll: { initialDelayMs: opts.pollMs, maxDelayMs: Math.max(opts.pollMs, 2000), timeoutMs: opts.timeoutSeconds * 1000 },
    log: (line) => say("plandesk", line),
  });

  const messages: ModelMessage[] = [{ role: "user", content: REFERENCE_PROMPT }];
  const first = await generateText({ model, tools: pd.tools, messages });
  const proposal = await pd.propose(first);
  if (!proposal) throw new Error("The model made no gated tool call.");
  if (proposal.pending) say("agent", `proposed run ${proposal.pending.runId} with ${proposal.calls.length} steps for ${opts.taskId}; waiting for a person`);
  const decision = await pd.wait(proposal);
  say("agent", `decision: ${decision.kind}${"reason" in decision ? ` — ${decision.reason}` : ""}`);

  messages.push(...first.response.messages, pd.respond(proposal, decision));
  const second = await generateText({ model, tools: pd.tools, messages });
  for (const r of await pd.finish()) say("agent", `also ran (added by the operator): ${describeResult(r)}`);
  say("model", `final: ${second.text}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
