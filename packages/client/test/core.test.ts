import { beforeAll, describe, expect, it } from "vitest";
import { referenceCalls } from "../../../examples/shared/reference-case";
import { approveSteps } from "../../../lib/server/approvals/approve-steps";
import { prisma } from "../../../lib/server/db/db";
import { submitEdit } from "../../../lib/server/edits/submit-edit";
import { loadRun } from "../../../lib/server/plans/load-run";
import { toRunView } from "../../../lib/server/plans/run-view";
import { concurrentAcks, prepareTestDatabase } from "../../../testing/test-support";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { argChanges, createAgentClient, PlanExecutor, proposePlan, stepIdForCall, verdictFor, waitForDecision, type ToolImplementation } from "@plandesk/client";
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
    // a backoff of a minute follows the first "still waiting": giving up well before it is the timeout's doing
    const d = await waitForDecision(client, pending, { initialDelayMs: 60_000, timeoutMs: 300 });
    expect(d.kind).toBe("timed_out");
    expect(Date.now() - t0).toBeLessThan(20_000);
    let polls = 0;
    let wakeUp: (() => void) | null = null;
    const waiting = waitForDecision(client, pending, { push: false, initialDelayMs: 60_000, longPollSeconds: 0, wake: () => new Promise<void>((r) => (wakeUp = r)), onPoll: () => polls++ });
    // the first poll said "still waiting" and the wait now sleeps its backoff, listening for a wake-up
    await expect.poll(() => wakeUp !== null, { timeout: 20_000 }).toBe(true);
    await editAndApprove(pending.runId, (s) => s);
    (wakeUp as unknown as () => void)();
    expect((await waiting).kind).toBe("approved");
    expect(polls).toBe(2);
  });

  it("without the event stream, a long poll answered 'still waiting' is followed at once by the next, so a decision arrives within a poll whatever the waiting age", async () => {
    const pending = await propose("longpoll");
    expect(Date.parse(pending.expiresAt!)).toBeGreaterThan(Date.now());
    const polls: number[] = [];
    // Each poll is held 1 s; a backoff of a minute would follow every "still waiting" if the wait slept between long polls.
    const waiting = waitForDecision(client, pending, { push: false, longPollSeconds: 1, initialDelayMs: 60_000, onPoll: () => polls.push(Date.now()) });
    await expect.poll(() => polls.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    const decidedAt = Date.now();
    await editAndApprove(pending.runId, (s) => s);
    const decision = await waiting;
    expect(decision.kind).toBe("approved");
    expect(Date.now() - decidedAt).toBeLessThan(10_000);
  });

  it("by push: a decision reaches a waiting agent over the run's event stream at whatever waiting age, with no poll at all", async () => {
    const pending = await propose("stream");
    let gets = 0;
    const counting = { ...client, getRun: (...a: Parameters<typeof client.getRun>) => (gets++, client.getRun(...a)) };
    const seen: string[] = [];
    const waiting = waitForDecision(counting, pending, { initialDelayMs: 60_000, onPoll: (run) => seen.push(run.status) });
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1); // the stream's first event: the run as it waits
    await editAndApprove(pending.runId, (s) => s);
    expect((await waiting).kind).toBe("approved");
    expect(seen).toEqual(["pending_review", "approved"]);
    expect(gets).toBe(0);
  });

  it("a stream the console closes early (its limit, a drain) is opened again at once with Last-Event-ID, and the unchanged run is not sent twice", async () => {
    const asked: (string | undefined)[] = [];
    const run = (status: string) => ({ id: "run_r", status, expiresAt: new Date(Date.now() + 60_000).toISOString(), steps: [] });
    const server = http.createServer((req, res) => {
      asked.push(req.headers["last-event-id"] as string | undefined);
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (asked.length === 1) {
        res.end(`retry: 3000\n\nevent: run\nid: first\ndata: ${JSON.stringify({ run: run("pending_review") })}\n\nevent: end\ndata: {"outcome":null,"reconnect":true}\n\n`);
      } else {
        res.end(`event: run\nid: second\ndata: ${JSON.stringify({ run: run("rejected") })}\n\nevent: end\ndata: {"outcome":{"code":"rejected"}}\n\n`);
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const direct = createAgentClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "pd_x" });
      const seen: string[] = [];
      const d = await waitForDecision(direct, { runId: "run_r" }, { initialDelayMs: 60_000, onPoll: (r) => seen.push(r.status) });
      expect(d.kind).toBe("rejected");
      expect(asked).toEqual([undefined, "first"]);
      expect(seen).toEqual(["pending_review", "rejected"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("a console whose stream is accepted but never says a word: the wait still ends unreachable at the deadline plus the grace", async () => {
    const held: http.ServerResponse[] = [];
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const silent = createAgentClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "pd_x" });
      const t0 = Date.now();
      const d = await waitForDecision(silent, { runId: "run_mute", expiresAt: new Date(Date.now() + 800).toISOString() }, { graceMs: 300 });
      expect(d).toMatchObject({ kind: "unreachable", runId: "run_mute" });
      expect(d.kind === "unreachable" && d.reason).toMatch(/event stream sent nothing/);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - t0).toBeLessThan(8_000);
    } finally {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  it("a console without the stream (404, or JSON where events were asked) is waited on by long polls", async () => {
    for (const answer of ["404", "json"] as const) {
      let polls = 0;
      const server = http.createServer((req, res) => {
        res.setHeader("content-type", "application/json");
        if (req.url!.includes("/events")) {
          if (answer === "404") res.statusCode = 404;
          return void res.end(answer === "404" ? JSON.stringify({ error: { code: "not_found", message: "No route." } }) : JSON.stringify({ run: { id: "run_old", status: "pending_review", steps: [] } }));
        }
        polls++;
        res.end(JSON.stringify({ run: { id: "run_old", status: polls < 2 ? "pending_review" : "approved", expiresAt: new Date(Date.now() + 60_000).toISOString(), steps: [] } }));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      try {
        const old = createAgentClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "pd_x" });
        const d = await waitForDecision(old, { runId: "run_old" }, { initialDelayMs: 10 });
        expect(d.kind, answer).toBe("approved");
        expect(polls, answer).toBe(2);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  it("a wait ends at the run's deadline plus the grace with `unreachable` when the console is never reached again, and the calls are denied so", async () => {
    const down = createAgentClient({ baseUrl: "http://127.0.0.1:9", apiKey: "pd_x", fetch: () => Promise.reject(new TypeError("fetch failed: ECONNREFUSED")) });
    const pending = { runId: "run_gone", expiresAt: new Date(Date.now() + 300).toISOString() };
    const t0 = Date.now();
    const d = await waitForDecision(down, pending, { initialDelayMs: 50, graceMs: 200 });
    expect(d).toMatchObject({ kind: "unreachable", runId: "run_gone" });
    expect(d.kind === "unreachable" && d.reason).toMatch(/could not be reached.*ECONNREFUSED/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const verdict = verdictFor(d, { calls: [{ callId: "c1", stepId: "c1", tool: "send_reply", proposedArgs: {} }] }, "c1");
    expect(verdict).toMatchObject({ verdict: "deny", code: "unreachable" });
  });

  it("a console that accepts the poll but never answers ends the wait too, by the deadline learned from its last answer", async () => {
    const held: http.ServerResponse[] = [];
    let answered = 0;
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    // First answer: the run is waiting, with its deadline; every later poll is accepted and never answered.
    const server = http.createServer((req, res) => {
      if (answered++ > 0) return void held.push(res);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ run: { id: "run_silent", status: "pending_review", expiresAt, steps: [] } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const silent = createAgentClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "pd_x" });
      const t0 = Date.now();
      const d = await waitForDecision(silent, { runId: "run_silent" }, { push: false, graceMs: 500 });
      expect(d).toMatchObject({ kind: "unreachable", runId: "run_silent" });
      expect(d.kind === "unreachable" && d.reason).toMatch(/no answer/);
      expect(Date.now() - t0).toBeLessThan(8_000);
      expect(answered).toBeGreaterThanOrEqual(2);
    } finally {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
