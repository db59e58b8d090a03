import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { createAiSdkAdapter } from "@plandesk/client/ai-sdk";
import { demoDeskTools } from "@plandesk/client/demo";
import { approveAsIs, editDateAndApprove, inProcessAgent, isoDay, reject, reviseTheTask, runProposedFor, shipmentWindow } from "../../../testing/adapter-operator";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
type ToolResultSeen = { toolName: string; toolCallId: string; output: { type: string; value?: unknown; reason?: string } };

/** A mock model that proposes the reference calls (call ids suffixed with `tag`), then records the tool results it is given. */
function scriptedModel(tag: string) {
  const seen: ToolResultSeen[] = [];
  const calls = referenceCalls(new Date()).map((c) => ({ ...c, callId: `${c.callId}_${tag}` }));
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result");
      if (results.length === 0) {
        return { content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.callId, toolName: c.tool, input: JSON.stringify(c.args) })), finishReason: { unified: "tool-calls" as const, raw: undefined }, usage, warnings: [] };
      }
      seen.push(...(results as unknown as ToolResultSeen[]));
      return { content: [{ type: "text" as const, text: "ok" }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] };
    },
  });
  return { model, seen, calls };
}

/** Runs the agent once: propose, wait (while `operator` decides), resume. */
async function agentRound(tag: string, operator: (runId: string) => Promise<void>) {
  const client = inProcessAgent();
  const { model, seen, calls } = scriptedModel(tag);
  const pd = createAiSdkAdapter({ client, taskId: "task_74991", tools: demoDeskTools(client), poll: { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 } });
  const messages: ModelMessage[] = [{ role: "user", content: "Ticket #74991" }];
  const first = await generateText({ model, tools: pd.tools, messages });
  const proposal = await pd.propose(first);
  expect(proposal?.pending).toBeTruthy();
  const runId = proposal!.pending!.runId;
  const [decision] = await Promise.all([pd.wait(proposal!), runProposedFor(`${calls[1].callId}`).then(operator)]);
  messages.push(...first.response.messages, pd.respond(proposal!, decision));
  await generateText({ model, tools: pd.tools, messages });
  const byTool = Object.fromEntries(seen.map((s) => [s.toolName, s.output]));
  return { runId, decision, seen, byTool, calls };
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("AI SDK adapter", () => {
  it("proposes the paused calls as one run in order, with step ids from call ids and the model's reasons", async () => {
    const { runId } = await agentRound("order", (id) => reject(id, "Just checking the proposal."));
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { planVersions: true } });
    const steps = run.planVersions[0].steps as { id: string; tool: string; args: Record<string, unknown>; rationale?: string; title?: string }[];
    expect(steps.map((s) => [s.id, s.tool])).toEqual([
      ["call_note_order", "add_ticket_note"],
      ["call_resched_order", "reschedule_delivery"],
      ["call_reply_order", "send_reply"],
    ]);
    expect(steps[1].title).toBe("Rebook the delivery");
    expect(steps[1].rationale).toMatch(/missed today's window/);
    expect(steps[1].args).not.toHaveProperty("stepReasons");
  });

  it("an operator's edit is what executes, through a claim, and the model is told what was done", async () => {
    const edited = isoDay(7);
    const { runId, decision, byTool } = await agentRound("edit", (id) => editDateAndApprove(id, edited));
    expect(decision.kind).toBe("approved");
    const resched = byTool.reschedule_delivery as { type: string; value: Record<string, unknown> };
    expect(resched.type).toBe("json");
    expect(resched.value).toMatchObject({
      status: "succeeded",
      operatorEdited: true,
      executedArgs: { shipmentId: "sh_5521", window: { from: edited, to: edited } },
      changes: [
        { path: "window.from", proposed: isoDay(3), approved: edited },
        { path: "window.to", proposed: isoDay(3), approved: edited },
      ],
    });
    expect(await shipmentWindow("sh_5521")).toEqual({ from: edited, to: edited });
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { executions: true } });
    expect(run.status).toBe("completed");
    expect(run.executions.map((e) => e.status).sort()).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect((byTool.add_ticket_note as { value: { operatorEdited: boolean } }).value.operatorEdited).toBe(false);
  });

  it("a rejection reaches the model as the denial of every call, with the operator's reason", async () => {
    const before = await shipmentWindow("sh_5521");
    const { byTool, runId } = await agentRound("reject", (id) => reject(id, "Customer asked us to wait for their call first."));
    for (const tool of ["add_ticket_note", "reschedule_delivery", "send_reply"]) {
      expect(byTool[tool]).toEqual({ type: "execution-denied", reason: "The operator rejected the plan: Customer asked us to wait for their call first." });
    }
    expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
    expect(await shipmentWindow("sh_5521")).toEqual(before);
  });

  it("a task changed after approval stops the run at once: every call is denied stopped_stale_task, nothing is written or claimed", async () => {
    const before = await shipmentWindow("sh_5521");
    const { byTool, runId, decision } = await agentRound("stale", async (id) => {
      await approveAsIs(id);
      await reviseTheTask("task_74991");
    });
    // The long poll may deliver the approval before the revision (then the claim is refused) or the stop itself.
    if (decision.kind === "approved") {
      expect((byTool.add_ticket_note as { value: Record<string, unknown> }).value).toMatchObject({ status: "not_done", code: "stopped_stale_task" });
    } else {
      expect(decision).toMatchObject({ kind: "refused", code: "stopped_stale_task" });
      for (const tool of ["add_ticket_note", "reschedule_delivery", "send_reply"]) {
        const out = byTool[tool] as { type: string; reason: string };
        expect(out.type).toBe("execution-denied");
        expect(out.reason).toMatch(/revision 1 to 2.*submit a new plan.*\(stopped_stale_task\)$/);
      }
    }
    expect(await shipmentWindow("sh_5521")).toEqual(before);
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { executions: true } });
    expect(run.status).toBe("stopped");
    expect(run.executions).toHaveLength(0);
  });
});
