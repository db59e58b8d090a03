import { beforeAll, describe, expect, it } from "vitest";
import { buildGraph, scriptedModel } from "../../../examples/langgraph/graph";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { demoDeskTools } from "@plandesk/client/demo";
import { createLangGraphAdapter } from "@plandesk/client/langgraph";
import { editDateAndApprove, inProcessAgent, isoDay, reject, runProposedFor, shipmentWindow } from "../../../testing/adapter-operator";

/** One agent round through the example's graph: interrupt → Plandesk → resume. */
async function agentRound(tag: string, operator: (runId: string) => Promise<void>) {
  const client = inProcessAgent();
  const calls = referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));
  const seen: Record<string, string> = {};
  const model = scriptedModel(calls, (results) => {
    for (const m of results) seen[m.name ?? "?"] = String(m.content);
    return "ok";
  });
  const pd = createLangGraphAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 } });
  const graph = buildGraph(pd, model);
  const config = { configurable: { thread_id: `t-${tag}` } };
  const first = await graph.invoke({ messages: [{ role: "user", content: "Ticket #74991" }] }, config);
  const proposal = await pd.propose(first);
  expect(proposal?.calls.map((c) => c.tool)).toEqual(["add_ticket_note", "reschedule_delivery", "send_reply"]);
  const [decision] = await Promise.all([pd.wait(proposal!), runProposedFor(calls[1].callId).then(operator)]);
  const second = await graph.invoke(pd.resume(proposal!, decision), config);
  return { runId: proposal!.pending!.runId, decision, seen, messages: second.messages };
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("LangGraph adapter", () => {
  it("resumes with the operator's edit (native edit in the history) and the tools write it through claims", async () => {
    const edited = isoDay(6);
    const { runId, seen, messages } = await agentRound("edit", (id) => editDateAndApprove(id, edited));
    expect(JSON.parse(seen.reschedule_delivery)).toMatchObject({ status: "succeeded", operatorEdited: true, executedArgs: { window: { from: edited, to: edited } } });
    expect(await shipmentWindow("sh_5521")).toEqual({ from: edited, to: edited });
    // LangGraph edits natively: the AI message in the history now carries the approved window.
    const ai = messages.find((m) => m.getType() === "ai" && (m as unknown as { tool_calls?: unknown[] }).tool_calls?.length) as unknown as { tool_calls: { name: string; args: Record<string, unknown> }[] };
    expect(ai.tool_calls.find((c) => c.name === "reschedule_delivery")!.args.window).toEqual({ from: edited, to: edited });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("completed");
  });

  it("a rejection reaches the model as the tool message of every call, with the operator's reason", async () => {
    const { seen, runId } = await agentRound("reject", (id) => reject(id, "Hold until the customer confirms the address."));
    expect(seen).toEqual({
      add_ticket_note: "The operator rejected the plan: Hold until the customer confirms the address.",
      reschedule_delivery: "The operator rejected the plan: Hold until the customer confirms the address.",
      send_reply: "The operator rejected the plan: Hold until the customer confirms the address.",
    });
    expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
  });
});
