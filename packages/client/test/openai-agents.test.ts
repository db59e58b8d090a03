import { Agent, RunState, run, setTracingDisabled } from "@openai/agents";
import { scriptedAgentsModel } from "../../../testing/openai-agents-model";
import { beforeAll, describe, expect, it } from "vitest";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { demoDeskTools } from "@plandesk/client/demo";
import { createOpenAiAgentsAdapter } from "@plandesk/client/openai-agents";
import { editDateAndApprove, inProcessAgent, isoDay, reject, runProposedFor, shipmentWindow } from "../../../testing/adapter-operator";

setTracingDisabled(true);

/** One agent round: the scripted model proposes the reference calls, a person decides, the agent resumes from its serialised state. */
async function agentRound(tag: string, operator: (runId: string) => Promise<void>) {
  const client = inProcessAgent();
  const calls = referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));
  const seen: Record<string, string> = {};
  const model = scriptedAgentsModel(calls, seen);
  const pd = createOpenAiAgentsAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 } });
  const agent = new Agent({ name: "desk", model, tools: pd.tools });
  const first = await run(agent, "Ticket #74991");
  expect(first.interruptions).toHaveLength(3);
  const proposal = await pd.propose(first.interruptions);
  const stored = first.state.toString();
  const [decision] = await Promise.all([pd.wait(proposal!), runProposedFor(calls[1].callId).then(operator)]);
  // A fresh agent object with the same name and tools restores the stored state.
  const state = await RunState.fromString(new Agent({ name: "desk", model, tools: pd.tools }), stored);
  pd.respond(state, proposal!, decision);
  await run(agent, state);
  return { runId: proposal!.pending!.runId, decision, seen };
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("OpenAI Agents adapter", () => {
  it("runs the operator's edited date through a claim after the state is restored, and tells the model", async () => {
    const edited = isoDay(8);
    const { runId, decision, seen } = await agentRound("edit", (id) => editDateAndApprove(id, edited));
    expect(decision.kind).toBe("approved");
    const out = JSON.parse(seen.reschedule_delivery);
    expect(out).toMatchObject({ status: "succeeded", operatorEdited: true, executedArgs: { window: { from: edited, to: edited } } });
    expect(out.detail).toBe(`Moved sh_5521 to ${edited}…${edited}.`);
    expect(await shipmentWindow("sh_5521")).toEqual({ from: edited, to: edited });
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { planVersions: true } });
    expect(run.status).toBe("completed");
    const v1 = run.planVersions.find((v) => v.version === 1)!.steps as { id: string; title?: string }[];
    expect(v1.map((s) => s.title)).toEqual(["Record the missed delivery", "Rebook the delivery", "Tell the customer"]);
  });

  it("a rejection reaches the model as each call's rejection message: the operator's reason", async () => {
    const { seen, runId } = await agentRound("reject", (id) => reject(id, "Wrong shipment: the customer means sh_5522."));
    expect(seen).toEqual({
      add_ticket_note: "The operator rejected the plan: Wrong shipment: the customer means sh_5522.",
      reschedule_delivery: "The operator rejected the plan: Wrong shipment: the customer means sh_5522.",
      send_reply: "The operator rejected the plan: Wrong shipment: the customer means sh_5522.",
    });
    expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
  });
});
