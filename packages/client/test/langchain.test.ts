import { beforeAll, describe, expect, it } from "vitest";
import { buildAgent, scriptedModel } from "../../../examples/langchain/agent";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { demoDeskTools } from "@plandesk/client/demo";
import { createLangChainAdapter } from "@plandesk/client/langchain";
import { editDateAndApprove, inProcessAgent, isoDay, reject, runProposedFor, shipmentWindow } from "../../../testing/adapter-operator";

/** One agent round through LangChain's createAgent + humanInTheLoopMiddleware: interrupt → Plandesk → resume. */
async function agentRound(tag: string, operator: (runId: string) => Promise<void>) {
  const client = inProcessAgent();
  const calls = referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));
  const seen: Record<string, string> = {};
  const model = scriptedModel(calls, (results) => {
    for (const m of results) seen[m.name ?? "?"] = String(m.content);
    return "ok";
  });
  const pd = createLangChainAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 } });
  const agent = buildAgent(pd, model);
  const config = { configurable: { thread_id: `lc-${tag}` } };
  const first = await agent.invoke({ messages: [{ role: "user", content: "Ticket #74991" }] }, config);
  const proposal = await pd.propose(first);
  expect(proposal?.calls.map((c) => c.tool)).toEqual(["add_ticket_note", "reschedule_delivery", "send_reply"]);
  expect(proposal?.calls.map((c) => c.callId)).toEqual(calls.map((c) => c.callId));
  const [decision] = await Promise.all([pd.wait(proposal!), runProposedFor(calls[1].callId).then(operator)]);
  const second = await agent.invoke(pd.resume(proposal!, decision), config);
  return { runId: proposal!.pending!.runId, decision, seen, messages: second.messages };
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("LangChain createAgent + humanInTheLoopMiddleware adapter", () => {
  it("the operator's edit answers the middleware as an edit decision, and the tools write the approved date through claims", async () => {
    const edited = isoDay(6);
    const { runId, seen, messages } = await agentRound("edit", (id) => editDateAndApprove(id, edited));
    expect(JSON.parse(seen.reschedule_delivery)).toMatchObject({ status: "succeeded", operatorEdited: true, executedArgs: { window: { from: edited, to: edited } } });
    expect(JSON.parse(seen.add_ticket_note)).toMatchObject({ status: "succeeded" });
    expect(await shipmentWindow("sh_5521")).toEqual({ from: edited, to: edited });
    // the edit decision lands in the agent's history: the AI message carries the approved window
    const ai = messages.find((m) => m.getType() === "ai" && (m as unknown as { tool_calls?: unknown[] }).tool_calls?.length) as unknown as { tool_calls: { name: string; args: Record<string, unknown> }[] };
    expect(ai.tool_calls.find((c) => c.name === "reschedule_delivery")!.args.window).toEqual({ from: edited, to: edited });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("completed");
  });

  it("a rejection answers every action request with reject and the operator's reason; nothing is claimed", async () => {
    const { seen, runId } = await agentRound("reject", (id) => reject(id, "Hold until the customer confirms the address."));
    expect(Object.keys(seen).sort()).toEqual(["add_ticket_note", "reschedule_delivery", "send_reply"]);
    for (const text of Object.values(seen)) expect(text).toContain("Hold until the customer confirms the address.");
    expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
  });
});
