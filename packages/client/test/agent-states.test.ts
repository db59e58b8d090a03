/**
 * The adapters' core meets every state a run can end in, over the in-process agent client and this
 * file's own database: a waiting agent is told superseded / stopped for a stale task at once
 * (never polling until its own timeout), a step the executor cannot run ends the run typed, a
 * session whose run finished is told what was done, and a write the fence blocked is `failed`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { prisma } from "../../../lib/server/db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { approveAsIs, editDateAndApprove, inProcessAgent, isoDay, reviseTheTask, senior } from "../../../testing/adapter-operator";
import { PlanExecutor, proposePlan, verdictFor, waitForDecision } from "@plandesk/client";
import { demoDeskTools } from "@plandesk/client/demo";
import { implementationsOf, splitReasons } from "@plandesk/client";
import { loadRun } from "../../../lib/server/plans/load-run";
import { toRunView } from "../../../lib/server/plans/run-view";
import { submitEdit } from "../../../lib/server/edits/submit-edit";
import { approveSteps } from "../../../lib/server/approvals/approve-steps";

const client = inProcessAgent();

async function propose(tag: string, sessionId = `states-${tag}`) {
  const calls = referenceCalls(new Date()).map((c) => {
    const { args, reasons } = splitReasons(c.args);
    return { callId: `${c.callId}_${tag}`, tool: c.tool, args, reasons };
  });
  const res = await proposePlan(client, { taskId: "task_74991", calls, sessionId });
  if (!res.ok) throw new Error(JSON.stringify(res.decision));
  return res.pending;
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("a waiting agent is told how its run ended", () => {
  it("superseded: the wait ends refused `superseded` naming the newer run, and every call is denied", async () => {
    const first = await propose("sup1");
    const waiting = waitForDecision(client, first, { initialDelayMs: 10, maxDelayMs: 50 });
    const second = await propose("sup2");
    const decision = await waiting;
    expect(decision).toMatchObject({ kind: "refused", code: "superseded" });
    expect(decision.kind === "refused" && decision.reason).toContain(second.runId);
    expect(verdictFor(decision, first, first.calls[0].callId)).toMatchObject({ verdict: "deny", code: "superseded" });
  });

  it("revised while waiting: the wait ends refused `stopped_stale_task` at once", async () => {
    const pending = await propose("rev");
    const waiting = waitForDecision(client, pending, { initialDelayMs: 10, maxDelayMs: 50 });
    await reviseTheTask("task_74991");
    const decision = await waiting;
    expect(decision).toMatchObject({ kind: "refused", code: "stopped_stale_task" });
    expect(decision.kind === "refused" && decision.reason).toMatch(/submit a new plan/);
  });
});

describe("execution", () => {
  it("a step the executor cannot run (added by the operator) is reported cannot_execute: the run ends typed, later steps not run", async () => {
    const pending = await propose("cannot");
    const who = await senior();
    const run = toRunView(await loadRun(pending.runId));
    const steps = run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args }));
    steps.splice(1, 0, { id: "op-escalate", tool: "escalate_ticket", args: { ticketId: "74991", team: "operations", note: "Driver no-show on sh_5521." } });
    const edit = await submitEdit(who, pending.runId, { baseVersion: run.planVersion, steps });
    await approveSteps(who, pending.runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `a:${pending.runId}` });
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    if (decision.kind !== "approved") throw new Error(decision.kind);
    const ex = new PlanExecutor(client, decision.run, { implementations: implementationsOf(demoDeskTools(client)) });
    await ex.finish();
    expect(ex.executed.map((r) => [r.tool, r.status, r.status === "refused" ? r.code : ""])).toEqual([
      ["add_ticket_note", "succeeded", ""],
      ["escalate_ticket", "refused", "cannot_execute"],
      ["reschedule_delivery", "skipped", ""],
      ["send_reply", "skipped", ""],
    ]);
    const after = await client.getRun(pending.runId);
    expect(after.ok && after.run).toMatchObject({ status: "failed", outcome: { code: "cannot_execute", stepId: ex.executed[1].stepId, tool: "escalate_ticket" } });
  });

  it("a session proposing again after its run completed is told `already_completed` with what was done", async () => {
    const pending = await propose("done", "states-done-session");
    await editDateAndApprove(pending.runId, isoDay(6));
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    if (decision.kind !== "approved") throw new Error(decision.kind);
    const ex = new PlanExecutor(client, decision.run, { implementations: implementationsOf(demoDeskTools(client)) });
    await ex.finish();
    expect((await prisma.run.findUniqueOrThrow({ where: { id: pending.runId } })).status).toBe("completed");
    const calls = referenceCalls(new Date()).map((c) => {
      const { args, reasons } = splitReasons(c.args);
      return { callId: `${c.callId}_done`, tool: c.tool, args, reasons };
    });
    const again = await proposePlan(client, { taskId: "task_74991", calls, sessionId: "states-done-session" });
    expect(again.ok).toBe(false);
    if (again.ok) return;
    expect(again.decision).toMatchObject({ kind: "refused", code: "already_completed" });
    expect(again.decision.reason).toMatch(/ended completed.*send_reply\): succeeded/);
  });

  it("a demo write the fence blocks is reported failed (nothing written), not unknown", async () => {
    const pending = await propose("fenced");
    await approveAsIs(pending.runId);
    const decision = await waitForDecision(client, pending, { initialDelayMs: 10 });
    if (decision.kind !== "approved") throw new Error(decision.kind);
    const impls = implementationsOf(demoDeskTools(client));
    // The task moves between the claim and the write: the demo executor's fence refuses it.
    const ex = new PlanExecutor(client, decision.run, {
      implementations: impls,
      beforeWrite: async (ctx) => {
        if (ctx.tool === "add_ticket_note") await reviseTheTask("task_74991");
        return { ok: true };
      },
    });
    await ex.finish();
    expect(ex.executed[0]).toMatchObject({ tool: "add_ticket_note", status: "failed" });
    const exec = await prisma.stepExecution.findFirstOrThrow({ where: { runId: pending.runId } });
    expect(exec.status).toBe("failed");
  });
});

describe("push, not polling", () => {
  it("without the event stream, a waiting adapter gets the decision from one held read (long poll), not a series of polls", async () => {
    const pending = await propose("push");
    let reads = 0;
    const waiting = waitForDecision(client, pending, { push: false, initialDelayMs: 60_000, onPoll: () => reads++ });
    await approveAsIs(pending.runId);
    expect((await waiting).kind).toBe("approved");
    expect(reads).toBe(1);
  });
});
