/**
 * The MCP path through every end a held write can meet, each typed: an agent using the client
 * package's recipe (examples/mcp-gateway, the official MCP SDK client) asks the gateway to book a
 * redelivery for task_74991, and a person approves it as asked, approves it with the date edited,
 * rejects it, or adds a step of its own (one no upstream serves, or a second carrier write), or the ticketing integration revises the task, or the same agent sends a newer plan
 * for the task, or nobody decides before the deadline, or the console cannot be reached for good.
 * The agent's final answer is the carrier's own result (of exactly the approved arguments), a typed
 * refusal naming the run's end (`run_<status>`) or `unreachable` after the deadline, and the run
 * ends with a typed outcome; nothing reaches the carrier unless approved. On the freshly seeded
 * demo desk.
 */
import { addDays, formatISO } from "date-fns";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { executeGatewaySteps } from "@/lib/server/gateway/execute-gateway-steps";
import { expireIfDue } from "@/lib/server/lifecycle/run-lifecycle";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { reject, reviseTheTask, sendNewerPlan, senior } from "@/testing/adapter-operator";
import { runGatewayAgent } from "../../../examples/mcp-gateway/agent";
import { POST as mcpPost } from "./route";

/** The /api/mcp route handler as a fetch. */
const gatewayFetch: typeof fetch = async (url, init) => {
  const req = new Request(url, init);
  return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
};

const day = (n: number) => formatISO(addDays(new Date(), n), { representation: "date" });

/** The agent's network to the console: `down` makes every request fail as an unreachable host does; `calls` counts those that got through. */
interface Net {
  down: boolean;
  calls: number;
}

/** One end: what happens once the write is held, and what the agent must be told. */
const ENDS: { name: string; act: (runId: string, net: Net) => Promise<void>; final: "result" | "rejected" | "unreachable"; code?: string; date?: string; runStatus: string; outcome?: string; written?: number; added?: RegExp }[] = [
  {
    name: "approved as asked: the carrier's result",
    act: async (runId) => {
      await approveSteps(await senior(), runId, { planVersion: 1, stepIds: "all", idempotencyKey: `mcp-end-a:${runId}` });
      await executeGatewaySteps();
    },
    final: "result",
    date: day(3),
    runStatus: "completed",
  },
  {
    name: "approved with the date edited: the carrier's result of the edited call",
    act: async (runId) => {
      const who = await senior();
      const run = toRunView(await loadRun(runId));
      const edit = await submitEdit(who, runId, { baseVersion: run.planVersion, steps: run.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, date: day(5) } })) });
      await approveSteps(who, runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `mcp-end-e:${runId}` });
      await executeGatewaySteps();
    },
    final: "result",
    date: day(5),
    runStatus: "completed",
  },
  {
    // no upstream serves escalate_ticket: Plandesk claims it and reports cannot_execute, nobody waits for the deadline
    name: "a person added a step no upstream serves",
    act: async (runId) => {
      await addStepAndApprove(runId, { id: "op-escalate", tool: "escalate_ticket", args: { ticketId: "74991", team: "operations", note: "Driver no-show on sh_5531." } });
      await executeGatewaySteps();
    },
    final: "result",
    date: day(3),
    runStatus: "failed",
    outcome: "cannot_execute",
    added: /\(escalate_ticket\)/,
  },
  {
    // the carrier serves the added booking: Plandesk executes it too, once, with the approved arguments
    name: "a person added a second carrier write",
    act: async (runId) => {
      await addStepAndApprove(runId, { id: "op-rebook", tool: "book_redelivery", args: { shipmentId: "sh_5531", date: day(4) } });
      await executeGatewaySteps();
    },
    final: "result",
    date: day(3),
    runStatus: "completed",
    written: 2,
    added: /\(book_redelivery\)/,
  },
  { name: "rejected", act: (runId) => reject(runId, "The customer will collect it."), final: "rejected", code: "run_rejected", runStatus: "rejected", outcome: "rejected" },
  { name: "the task revised while it waits", act: () => reviseTheTask("task_74991"), final: "rejected", code: "run_stopped", runStatus: "stopped", outcome: "stopped_stale_task" },
  {
    name: "a newer plan of the same agent supersedes it",
    act: () => sendNewerPlan("task_74991", "74991"),
    final: "rejected",
    code: "run_superseded",
    runStatus: "superseded",
    outcome: "superseded",
  },
  {
    name: "nobody decided before the deadline",
    act: async (runId) => {
      // no sweep runs here: the agent's next ask finds the deadline passed and the run expires then
      await prisma.run.update({ where: { id: runId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    },
    final: "rejected",
    code: "run_expired",
    runStatus: "expired",
    outcome: "expired",
  },
  {
    name: "the console unreachable for good",
    act: async (runId, net) => {
      // the deadline near; the agent asks once more (and learns it), then the console is gone
      await prisma.run.update({ where: { id: runId }, data: { expiresAt: new Date(Date.now() + 1500) } });
      const seen = net.calls;
      await expect.poll(() => net.calls, { timeout: 10_000, interval: 20 }).toBeGreaterThan(seen + 1);
      net.down = true;
    },
    final: "unreachable",
    runStatus: "expired",
    outcome: "expired",
  },
];

/** A senior adds `step` after the agent's own and approves the whole plan (the edit a person makes in the run's page). */
async function addStepAndApprove(runId: string, step: { id: string; tool: string; args: Record<string, unknown> }): Promise<void> {
  const who = await senior();
  const run = toRunView(await loadRun(runId));
  const edit = await submitEdit(who, runId, { baseVersion: run.planVersion, steps: [...run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })), step] });
  await approveSteps(who, runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `mcp-end-add:${runId}` });
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
}, 120_000);

describe("a write held by the MCP gateway", () => {
  it.each(ENDS.map((e) => [e.name, e] as const))("%s: a typed end", async (name, end) => {
    const key = `mcp-end-${name.replace(/[^a-z]+/gi, "-").slice(0, 40)}-${Date.now()}`;
    const net: Net = { down: false, calls: 0 };
    const agentFetch: typeof fetch = async (url, init) => {
      if (net.down) throw new TypeError("fetch failed");
      net.calls++;
      return gatewayFetch(url, init);
    };
    const agent = runGatewayAgent({ url: TEST_ORIGIN, key: DEMO_AGENT_KEY, taskId: "task_74991", shipmentId: "sh_5531", date: day(3), pollMs: 50, timeoutMs: 60_000, idempotencyKey: key, log: () => {}, fetch: agentFetch, graceMs: 300 });
    const heldRun = async () => (await prisma.run.findFirst({ where: { idempotencyKey: `mcp:${key}` }, select: { id: true } }))?.id ?? null;
    await expect.poll(heldRun, { timeout: 30_000, interval: 50 }).toBeTruthy();
    const runId = (await heldRun())!;
    await end.act(runId, net);
    const outcome = await agent;
    expect(outcome.held).toMatchObject({ kind: "pending", runId });
    expect(outcome.final.kind, JSON.stringify(outcome.final)).toBe(end.final);
    if (outcome.final.kind === "rejected") expect(outcome.final).toMatchObject({ code: end.code, runId });
    if (outcome.final.kind === "unreachable") {
      expect(outcome.final).toMatchObject({ runId, message: expect.stringMatching(/could not be reached/) });
      // the console's deadline sweep expires it (the agent could not say so)
      await expireIfDue(runId);
    }
    if (outcome.final.kind === "result") {
      const text = (outcome.final.result.content as { text: string }[])[0].text;
      expect(JSON.parse(text)).toMatchObject({ shipmentId: "sh_5531", date: end.date, status: "booked" });
      // the model hears of the step a person added, in the text it reads and in _meta
      const told = (outcome.final.result.content as { text: string }[]).map((c) => c.text).join(" ");
      if (end.added) expect(told).toMatch(end.added);
      else expect(told).not.toMatch(/added/);
      expect(Boolean((outcome.final.result._meta as Record<string, unknown> | undefined)?.["plandesk/addedSteps"])).toBe(Boolean(end.added));
      // the client package reads them as typed added steps
      if (end.added) expect(outcome.final.addedSteps?.map((a) => `(${a.tool})`).join(" ")).toMatch(end.added);
      else expect(outcome.final.addedSteps).toBeUndefined();
    }
    const ended = toRunView(await loadRun(runId));
    expect(ended.status).toBe(end.runStatus);
    expect(ended.outcome).not.toBeNull();
    if (end.outcome) expect(ended.outcome?.code).toBe(end.outcome);
    const written = await prisma.gatewayCall.count({ where: { runId, kind: "write", status: "succeeded" } });
    expect(written).toBe(end.written ?? (end.final === "result" ? 1 : 0));
    if (end.outcome === "cannot_execute") {
      // the added step waits for a person, typed, with nothing sent upstream for it
      const flagged = await prisma.stepExecution.findMany({ where: { runId, flag: "cannot_execute" }, select: { stepId: true } });
      expect(flagged).toHaveLength(1);
      expect(ended.steps.find((st) => st.id === flagged[0].stepId)?.tool).toBe("escalate_ticket");
      expect(await prisma.gatewayCall.count({ where: { runId, stepId: flagged[0].stepId } })).toBe(0);
    }
  }, 90_000);
});
