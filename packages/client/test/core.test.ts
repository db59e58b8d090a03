import { beforeAll, describe, expect, it } from "vitest";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { approveSteps } from "../../../lib/server/approvals/approve-steps";
import { prisma } from "../../../lib/server/db/db";
import { submitEdit } from "../../../lib/server/edits/submit-edit";
import { loadRun } from "../../../lib/server/plans/load-run";
import { toRunView } from "../../../lib/server/plans/run-view";
import { concurrentAcks, prepareTestDatabase } from "../../../testing/test-support";
import { argChanges, PlanExecutor, proposePlan, stepIdForCall, verdictFor, waitForDecision, type ToolImplementation } from "@plandesk/client";
import { implementationsOf, splitReasons } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { inProcessAgent, isoDay, senior } from "../../../testing/adapter-operator";

const client = inProcessAgent();

/** Proposes the reference calls (ids suffixed with `tag`) and returns the pending plan. */
async function propose(tag: string) {
  const calls = referenceCalls(new Date()).map((c) => {
    const { args, reasons } = splitReasons(c.args);
    return { callId: `${c.callId}_${tag}`, tool: c.tool, args, reasons };
  });
  const res = await proposePlan(client, { taskId: "task_74991", calls, sessionId: `core-${tag}` });
  if (!res.ok) throw new Error(JSON.stringify(res.decision));
  return res.pending;
}

/** A person edits the plan (a function of the current steps) and approves all, acknowledging an earlier run of the task a test left executing. */
async function editAndApprove(runId: string, edit: (steps: { id: string; tool: string; args: Record<string, unknown> }[]) => { id: string; tool: string; args: Record<string, unknown> }[]) {
  const who = await senior();
  const run = toRunView(await loadRun(runId));
  const e = await submitEdit(who, runId, { baseVersion: run.planVersion, steps: edit(run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args }))) });
  await approveSteps(who, runId, { planVersion: e.planVersion.version, stepIds: "all", idempotencyKey: `a:${runId}`, ...(await concurrentAcks(runId)) });
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("adapter core", () => {
  it("step ids come from call ids (hashed when not a valid step id), deterministically", () => {
    expect(stepIdForCall("call_abc-1")).toBe("call_abc-1");
    expect(stepIdForCall("toolu_01/ABC:x")).toMatch(/^call_[0-9a-f]{24}$/);
    expect(stepIdForCall("toolu_01/ABC:x")).toBe(stepIdForCall("toolu_01/ABC:x"));
    // a step id starts with a letter or digit: "__proto__" and "_x" are hashed too
    expect(stepIdForCall("__proto__")).toMatch(/^call_[0-9a-f]{24}$/);
    expect(stepIdForCall("-x")).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("argChanges lists every changed path, proposed → approved", () => {
    expect(argChanges({ a: 1, w: { from: "x", to: "y" }, l: [1] }, { a: 1, w: { from: "z", to: "y" }, l: [1, 2], n: true })).toEqual([
      { path: "l", proposed: [1], approved: [1, 2] },
      { path: "n", proposed: undefined, approved: true },
      { path: "w.from", proposed: "x", approved: "z" },
    ]);
  });

  it("a repeated proposal returns the same run; another session makes its own", async () => {
    const a = await propose("same");
    const b = await propose("same");
    const c = await propose("other");
    expect(b.runId).toBe(a.runId);
    expect(c.runId).not.toBe(a.runId);
  });

  it("a refused proposal denies every call with the validator's messages", async () => {
    const res = await proposePlan(client, { taskId: "task_74991", calls: [{ callId: "c1", tool: "reschedule_delivery", args: { shipmentId: "sh_0000", window: { from: isoDay(3), to: isoDay(3) }, reason: "x" } }], sessionId: "refused" });
    expect(res.ok).toBe(false);
    if (res.ok) return;
    const v = verdictFor(res.decision, res, "c1");
    expect(v).toMatchObject({ verdict: "deny", code: "validation_failed" });
    expect(v.verdict === "deny" && v.reason).toMatch(/Shipment "sh_0000" is not found on this desk/);
  });

  it("executes in plan order whatever order the framework calls in, runs a step the operator added in its place, denies a removed one", async () => {
    const pending = await propose("order");
    const [note, resched, reply] = pending.calls;
    await editAndApprove(pending.runId, (steps) => [
      steps[0],
      { id: "new-escalation", tool: "escalate_ticket", args: { ticketId: "74991", team: "operations", note: "Driver no-show on sh_5521." } },
      steps[1],
    ]);
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    expect(decision.kind).toBe("approved");
    if (decision.kind !== "approved") return;
    expect(verdictFor(decision, pending, reply.callId)).toMatchObject({ verdict: "deny", code: "removed" });
    const order: string[] = [];
    const record =
      (tool: string): ToolImplementation =>
      async () => {
        order.push(tool);
        return { status: "succeeded", detail: `did ${tool}` };
      };
    const ex = new PlanExecutor(client, decision.run, {
      implementations: { add_ticket_note: record("add_ticket_note"), escalate_ticket: record("escalate_ticket"), reschedule_delivery: record("reschedule_delivery") },
    });
    // The framework asks for the last step first, then the first, concurrently.
    const [last, first] = await Promise.all([ex.executeThrough(verdictFor(decision, pending, resched.callId).stepId), ex.executeThrough(note.stepId)]);
    expect(order).toEqual(["add_ticket_note", "escalate_ticket", "reschedule_delivery"]);
    expect(last.result.status).toBe("succeeded");
    // only the step the operator added; the model's own note is answered as its own call's result
    expect(last.ranBefore.map((r) => r.tool)).toEqual(["escalate_ticket"]);
    expect(first.result.status).toBe("succeeded");
    const run = await prisma.run.findUniqueOrThrow({ where: { id: pending.runId } });
    expect(run.status).toBe("completed");
  });

  it("a fence refusal stops before the write: the step is reported failed and later steps are skipped", async () => {
    const pending = await propose("fence");
    await editAndApprove(pending.runId, (s) => s);
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    if (decision.kind !== "approved") throw new Error(decision.kind);
    let wrote = 0;
    const ex = new PlanExecutor(client, decision.run, {
      implementations: { add_ticket_note: async () => (wrote++, { status: "succeeded" }), reschedule_delivery: async () => (wrote++, { status: "succeeded" }), send_reply: async () => (wrote++, { status: "succeeded" }) },
      beforeWrite: async (ctx) => (ctx.tool === "reschedule_delivery" ? { ok: false, code: "fence_lapsed", message: "The lease lapsed." } : { ok: true }),
    });
    await ex.finish();
    expect(ex.executed.map((r) => [r.tool, r.status])).toEqual([
      ["add_ticket_note", "succeeded"],
      ["reschedule_delivery", "refused"],
      ["send_reply", "skipped"],
    ]);
    expect(wrote).toBe(1);
    const execs = await prisma.stepExecution.findMany({ where: { runId: pending.runId }, orderBy: { claimedAt: "asc" } });
    expect(execs.map((e) => e.status)).toEqual(["succeeded", "failed"]);
    expect(execs[1].detail).toBe("Fence refused the write (fence_lapsed): The lease lapsed.");
  });

  it("after a restart, a claim answered from the earlier attempt is not written again: it is reported unknown", async () => {
    const pending = await propose("restart");
    await editAndApprove(pending.runId, (s) => s);
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    if (decision.kind !== "approved") throw new Error(decision.kind);
    const first = decision.run.steps[0];
    // The earlier process claimed step 1 and died before reporting.
    const claimed = await client.claimStep(decision.run.id, first.id, { digest: first.digest, taskRevision: decision.run.boundTaskRevision }, { idempotencyKey: `${decision.run.id}:${first.id}` });
    expect(claimed.ok).toBe(true);
    let wrote = 0;
    const ex = new PlanExecutor(client, decision.run, { implementations: implementationsOf(demoDeskTools(client)), log: () => wrote++ });
    const { result } = await ex.executeThrough(first.id);
    expect(result.status).toBe("unknown");
    const exec = await prisma.stepExecution.findUniqueOrThrow({ where: { runId_stepId: { runId: decision.run.id, stepId: first.id } } });
    expect(exec.status).toBe("unknown");
    expect(await prisma.idempotencyRecord.count({ where: { scope: `effect:${decision.run.id}:${first.id}` } })).toBe(0);
  });

  it("waiting gives up after timeoutMs with timed_out, and a wake promise cuts a backoff short", async () => {
    const pending = await propose("wait");
    const t0 = Date.now();
    const d = await waitForDecision(client, pending, { initialDelayMs: 5_000, timeoutMs: 300 });
    expect(d.kind).toBe("timed_out");
    expect(Date.now() - t0).toBeLessThan(3_000);
    let polls = 0;
    let wakeUp: () => void = () => {};
    const waiting = waitForDecision(client, pending, { initialDelayMs: 60_000, longPollSeconds: 0, wake: () => new Promise<void>((r) => (wakeUp = r)), onPoll: () => polls++ });
    await new Promise((r) => setTimeout(r, 100));
    await editAndApprove(pending.runId, (s) => s);
    wakeUp();
    expect((await waiting).kind).toBe("approved");
    expect(polls).toBe(2);
  });
});
