/**
 * Claim → write → report (docs/design.md §9) against this file's own SQLite database.
 * Runs are submitted through `submitRun` (all-auto plans are approved at submission); approvals
 * of gated steps are created directly in the shape the approval code writes.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError, type DomainError } from "../../errors/domain-error";
import { digest } from "../../plan/digest";
import type { StepInput } from "../../plan/schema";
import { claimStep } from "./claim-step";
import { listNeedsReconciliation } from "./list-reconciliation";
import { reconcileStep } from "./reconcile-step";
import { reportOutcome } from "./report-outcome";
import { STALE_CLAIM_SECONDS } from "./execution-view";
import { createPrisma, prisma } from "../db/db";
import { resolveDatabaseUrl } from "../db/database-url";
import { loadRun } from "../plans/load-run";
import { submitRun } from "../runs/submit-run";
import { toRunView } from "../plans/run-view";
import { DEMO_AGENT_ID } from "../demo/seed";
import type { AgentCaller } from "../auth/viewer";
import { reviseTask } from "../tasks/revise-task";
import { approveAllAs, concurrentAcks, prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
const supervisor = { id: "usr_supervisor", role: "supervisor" as const };
const operator = { id: "usr_operator", role: "operator" as const };


/**
 * Three internal steps (all auto-gated): the run is approved at submission. They declare no
 * prerequisites (`dependsOn: []`), so these tests may claim them in any order; plan order has its
 * own tests (claims-order.test.ts).
 */
function autoPlan(ticketId: string): StepInput[] {
  return [
    { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "First write: customer called." } },
    { id: "s2", tool: "escalate_ticket", args: { ticketId, team: "operations", note: "Second write: please check the slot." }, dependsOn: [] },
    { id: "s3", tool: "add_ticket_note", args: { ticketId, note: "Third write: escalated." }, dependsOn: [] },
  ];
}

async function submit(ticketId: string, steps: StepInput[] = autoPlan(ticketId)) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  // Several runs of one task coexist here (`addition`); superseding has its own tests.
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }, `test:${nanoid()}`, TEST_NOW);
  return run;
}

/** Approves every step of the run's current version as the senior would, and marks the run approved. */
const approveAll = (runId: string) => approveAllAs(runId, "usr_senior");

const view = async (runId: string) => toRunView(await loadRun(runId), LATER);
const claimBody = async (runId: string, stepId: string) => {
  const run = await view(runId);
  return { digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision };
};

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("claimStep: exactly one winner", () => {
  it("50 parallel claims of one step with different keys: one token, 49 typed already_claimed, one execution", async () => {
    const run = await submit("75006");
    expect(run.status).toBe("approved");
    const body = await claimBody(run.id, "s1");
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => claimStep(agent, run.id, "s1", body, `k-${i}`, LATER)));
    const wins = results.filter((r) => r.status === "fulfilled");
    const losses = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(49);
    for (const l of losses) {
      expect(isDomainError(l.reason)).toBe(true);
      expect((l.reason as DomainError).code).toBe("already_claimed");
      expect((l.reason as DomainError).status).toBe(409);
    }
    const win = (wins[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimStep>>>).value;
    expect(win.claim.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(win.claim).toMatchObject({ stepId: "s1", digest: body.digest, runId: run.id, planVersion: 1, taskRevision: body.taskRevision });
    const rows = await prisma.stepExecution.findMany({ where: { runId: run.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].token).toBe(win.claim.token);
    expect((await view(run.id)).status).toBe("executing");
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "s1", state: "claimed" } })).toBe(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "claimed" } })).toBe(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "claim_refused" } })).toBe(49);
  });

  it("50 parallel claims with ONE idempotency key: all get the identical answer, one execution", async () => {
    const run = await submit("75007");
    const body = await claimBody(run.id, "s1");
    const results = await Promise.all(Array.from({ length: 50 }, () => claimStep(agent, run.id, "s1", body, "same-key", LATER)));
    const tokens = new Set(results.map((r) => r.claim.token));
    expect(tokens.size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of results) expect(r.claim).toEqual(results[0].claim);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(1);
    expect(await prisma.idempotencyRecord.count({ where: { key: "same-key", scope: { contains: run.id } } })).toBe(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "claimed" } })).toBe(1);
    // Another key later is refused: the step is taken.
    expect((await refused(claimStep(agent, run.id, "s1", body, "other-key", LATER))).code).toBe("already_claimed");
    // The same key with another body is a conflict, not a replay.
    const err = await refused(claimStep(agent, run.id, "s1", { ...body, taskRevision: body.taskRevision + 1 }, "same-key", LATER));
    expect(err.code).toBe("idempotency_conflict");
  });

  it("two app instances (two Prisma clients on one database) racing: exactly one winner", async () => {
    const { url, file } = resolveDatabaseUrl();
    if (file) expect(fs.existsSync(file)).toBe(true); // SQLite: one file; PostgreSQL: one database
    expect(await prisma.run.count()).toBeGreaterThan(0);
    const a = createPrisma(url, { busyTimeoutMs: 0 });
    const b = createPrisma(url, { busyTimeoutMs: 0 });
    try {
      for (const [ticketId, stepId] of [["75008", "s1"], ["75008", "s2"]] as const) {
        const run = stepId === "s1" ? await submit(ticketId) : (await prisma.run.findFirstOrThrow({ where: { task: { ticketId }, status: "executing" } }));
        const body = await claimBody(run.id, stepId);
        const calls = Array.from({ length: 20 }, (_, i) => claimStep(agent, run.id, stepId, body, `inst-${i}`, LATER, i % 2 === 0 ? a : b));
        const results = await Promise.allSettled(calls);
        const wins = results.filter((r) => r.status === "fulfilled");
        expect(wins).toHaveLength(1);
        for (const r of results) {
          if (r.status === "rejected") expect((r.reason as DomainError).code).toBe("already_claimed");
        }
        expect(await prisma.stepExecution.count({ where: { runId: run.id, stepId } })).toBe(1);
      }
    } finally {
      await a.$disconnect();
      await b.$disconnect();
    }
  });

  it("two instances with one idempotency key: the same token for all, one execution", async () => {
    const { url } = resolveDatabaseUrl();
    const a = createPrisma(url, { busyTimeoutMs: 0 });
    const b = createPrisma(url, { busyTimeoutMs: 0 });
    try {
      const run = await submit("75009");
      const body = await claimBody(run.id, "s1");
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => claimStep(agent, run.id, "s1", body, "shared", LATER, i % 2 ? a : b)));
      expect(new Set(results.map((r) => r.claim.token)).size).toBe(1);
      expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(1);
    } finally {
      await a.$disconnect();
      await b.$disconnect();
    }
  });
});

/** Starts `n` separate processes (app instances), each firing `count` claims at the same moment. */
async function raceInProcesses(n: number, input: { runId: string; stepId: string; digest: string; taskRevision: number; count: number; keyPrefix: string | null }) {
  const startAt = Date.now() + 4000; // after every process has booted
  const children = Array.from({ length: n }, () =>
    new Promise<{ ok: boolean; token?: string; code?: string }[]>((resolve, reject) => {
      const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [path.join(process.cwd(), "testing", "claims-race-child.ts")], {
        env: { ...process.env, PLANDESK_RACE: JSON.stringify({ ...input, startAt, now: LATER.toISOString() }) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => {
        if (code !== 0) return reject(new Error(`race child exited ${code}: ${err}`));
        resolve((JSON.parse(out.trim().split("\n").pop()!) as { results: { ok: boolean; token?: string; code?: string }[] }).results);
      });
    }),
  );
  return (await Promise.all(children)).flat();
}

describe("claimStep: separate processes (real app instances, the production busy timeout)", () => {
  it("3 processes × 6 claims with different keys: exactly one token; the rest already_claimed", async () => {
    const run = await submit("75002", autoPlan("75002"));
    const body = await claimBody(run.id, "s1");
    const results = await raceInProcesses(3, { runId: run.id, stepId: "s1", ...body, count: 6, keyPrefix: null });
    expect(results).toHaveLength(18);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => r.code)).toEqual(Array(17).fill("already_claimed"));
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(1);
  }, 90_000);

  it("3 processes × 6 claims with one key: the identical token everywhere", async () => {
    const run = await submit("75003", autoPlan("75003"));
    const body = await claimBody(run.id, "s1");
    const results = await raceInProcesses(3, { runId: run.id, stepId: "s1", ...body, count: 6, keyPrefix: "one-key" });
    expect(results.every((r) => r.ok)).toBe(true);
    expect(new Set(results.map((r) => r.token)).size).toBe(1);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(1);
  }, 90_000);
});

describe("claimStep: the task moved on between two writes", () => {
  it("the first write stands; the second claim is refused stopped_stale_task and the run stops", async () => {
    const run = await submit("75010");
    const b1 = await claimBody(run.id, "s1");
    const c1 = await claimStep(agent, run.id, "s1", b1, "w1", LATER);
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    const revised = await reviseTask(run.taskId, { comment: "Customer now wants a phone call instead." }, { kind: "system" });
    expect(revised.revision).toBe(b1.taskRevision + 1);

    const b2 = await claimBody(run.id, "s2");
    const err = await refused(claimStep(agent, run.id, "s2", b2, "w2", LATER));
    expect(err.code).toBe("stopped_stale_task");
    expect(err.status).toBe(409);
    expect(err.details).toMatchObject({
      boundRevision: b1.taskRevision,
      liveRevision: revised.revision,
      executedStepIds: ["s1"],
      blockedStepId: "s2",
    });
    expect(err.message).toMatch(/revision 1.*revision 2/);

    const after = await view(run.id);
    expect(after.status).toBe("stopped");
    expect(after.stopReason).toMatchObject({ code: "stopped_stale_task", boundRevision: 1, liveRevision: 2, executedStepIds: ["s1"], blockedStepId: "s2" });
    expect(after.steps.find((s) => s.id === "s1")!.execution?.status).toBe("succeeded");
    expect(after.steps.find((s) => s.id === "s2")!.execution).toBeNull();
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(1);
    expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(0);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "stopped_stale" } })).toBe(1);

    // Retrying with the same key returns the saved refusal; another step says the same; nothing is stopped twice.
    expect((await refused(claimStep(agent, run.id, "s2", b2, "w2", LATER))).details).toEqual({ ...err.details, replayed: true });
    const err3 = await refused(claimStep(agent, run.id, "s3", await claimBody(run.id, "s3"), "w3", LATER));
    expect(err3.code).toBe("stopped_stale_task");
    expect(err3.details).toMatchObject({ executedStepIds: ["s1"], blockedStepId: "s3" });
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "stopped_stale" } })).toBe(1);
  });

  it("a stale task beats a missing approval", async () => {
    const run = await submit("75011");
    await prisma.approval.updateMany({ where: { runId: run.id, stepId: "s2" }, data: { state: "invalidated" } });
    await reviseTask(run.taskId, { comment: "Changed." }, { kind: "system" });
    const err = await refused(claimStep(agent, run.id, "s2", await claimBody(run.id, "s2"), null, LATER));
    expect(err.code).toBe("stopped_stale_task");
  });

  it("a claim carrying another task revision than the bound one (task unchanged) is refused stale_task and stops nothing", async () => {
    const run = await submit("75012");
    const body = await claimBody(run.id, "s1");
    const err = await refused(claimStep(agent, run.id, "s1", { ...body, taskRevision: body.taskRevision + 5 }, null, LATER));
    expect(err.code).toBe("stale_task");
    expect(err.details).toMatchObject({ boundRevision: 1, liveRevision: 1, requestedRevision: 6 });
    expect((await view(run.id)).status).toBe("approved");
  });
});

describe("claimStep: an approval covers exactly its run, plan version and digest", () => {
  it("an approval of run A / version 1 does not let a claim on version 2 or on run B through", async () => {
    const steps: StepInput[] = [
      { id: "r1", tool: "reschedule_delivery", args: { shipmentId: "sh_5690", window: { from: "2026-04-09", to: "2026-04-09" }, reason: "Morning slot requested." } },
    ];
    const a = await submit("75014", steps);
    const b = await submit("75014", steps);
    expect(a.status).toBe("pending_review");
    await approveAll(a.id);
    const body = await claimBody(a.id, "r1");
    expect((await claimBody(b.id, "r1")).digest).toBe(body.digest); // identical step, identical digest

    // Run B claims to be approved, but the only approval is run A's.
    await prisma.run.update({ where: { id: b.id }, data: { status: "approved", approvedVersion: 1 } });
    const errB = await refused(claimStep(agent, b.id, "r1", body, null, LATER));
    expect(errB.code).toBe("approval_missing");

    // Run A moves to plan version 2 (same step) and claims to be approved for it: the v1 approval does not cover it.
    const pv1 = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: a.id, version: 1 } } });
    await prisma.planVersion.create({ data: { id: nanoid(), runId: a.id, version: 2, steps: pv1.steps as never, validation: pv1.validation as never } });
    await prisma.run.update({ where: { id: a.id }, data: { planVersion: 2, approvedVersion: 2 } });
    const errV2 = await refused(claimStep(agent, a.id, "r1", body, null, LATER));
    expect(errV2.code).toBe("approval_missing");
    expect(errV2.details).toMatchObject({ stepId: "r1", planVersion: 2 });

    // Current version 2 while the approvals cover version 1: refused too.
    await prisma.run.update({ where: { id: a.id }, data: { approvedVersion: 1 } });
    const errMixed = await refused(claimStep(agent, a.id, "r1", body, null, LATER));
    expect(errMixed.code).toBe("approval_missing");
    expect(errMixed.details).toMatchObject({ planVersion: 2, approvedVersion: 1 });

    // Back at version 1: the approval works, once.
    await prisma.run.update({ where: { id: a.id }, data: { planVersion: 1, approvedVersion: 1 } });
    expect((await claimStep(agent, a.id, "r1", body, null, LATER)).claim.stepId).toBe("r1");
    expect(await prisma.stepExecution.count({ where: { runId: b.id } })).toBe(0);
  });

  it("digest mismatch: a request for other arguments is refused and claims nothing; the right digest then works", async () => {
    const run = await submit("75013");
    const body = await claimBody(run.id, "s1");
    const wrong = digest({ tool: "add_ticket_note", args: { ticketId: "75013", note: "Something else entirely." } });
    const err = await refused(claimStep(agent, run.id, "s1", { ...body, digest: wrong }, "dm-1", LATER));
    expect(err.code).toBe("digest_mismatch");
    expect(err.details).toMatchObject({ stepId: "s1", approvedDigest: body.digest, requestDigest: wrong });
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "s1", state: "active" } })).toBe(1);
    expect((await claimStep(agent, run.id, "s1", body, "dm-2", LATER)).claim.digest).toBe(body.digest);
  });

  it("digest mismatch when the stored step is not what was approved", async () => {
    const run = await submit("75015");
    await prisma.approval.updateMany({ where: { runId: run.id, stepId: "s1" }, data: { digest: "0".repeat(64) } });
    const body = await claimBody(run.id, "s1");
    const err = await refused(claimStep(agent, run.id, "s1", body, null, LATER));
    expect(err.code).toBe("digest_mismatch");
    expect(err.details).toMatchObject({ approvedDigest: "0".repeat(64), storedDigest: body.digest });
  });

  it("a run waiting for review is refused run_not_approved, NOT saved under its key (it may change); another agent gets 404", async () => {
    const steps: StepInput[] = [{ id: "r1", tool: "send_reply", args: { ticketId: "75016", body: "Thank you, glad we could help." } }];
    const run = await submit("75016", steps);
    expect(run.status).toBe("pending_review");
    const body = await claimBody(run.id, "r1");
    const err = await refused(claimStep(agent, run.id, "r1", body, "early", LATER));
    expect(err.code).toBe("run_not_approved");
    expect(err.details).toMatchObject({ status: "pending_review" });
    await approveAll(run.id);
    // The refusal could change, so it was not saved: the same key now claims, and then replays the claim.
    const claimed = await claimStep(agent, run.id, "r1", body, "early", LATER);
    expect(claimed).toMatchObject({ replayed: false, claim: { stepId: "r1" } });
    expect(await claimStep(agent, run.id, "r1", body, "early", LATER)).toEqual({ claim: claimed.claim, replayed: true });
    const other: AgentCaller = { ...agent, id: "agent_other" };
    expect((await refused(claimStep(other, run.id, "r1", body, null, LATER))).code).toBe("not_found");
    expect((await refused(claimStep(agent, run.id, "nope", body, null, LATER))).code).toBe("not_found");
  });
});

describe("claimStep: deadlines", () => {
  it("an approved run past its deadline is refused expired (decided at claim time) and is expired from then on", async () => {
    const run = await submit("75017");
    const late = new Date(new Date(run.expiresAt).getTime() + 1000);
    const err = await refused(claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, late));
    expect(err.code).toBe("expired");
    const row = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.status).toBe("expired");
    expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(0);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "expired" } })).toBe(1);
    expect((await refused(claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER))).code).toBe("expired");
  });

  it("an executing run past its deadline refuses the remaining steps and expires once nothing is outstanding", async () => {
    const run = await submit("75018");
    // s1 claimed shortly before the deadline, so its report after the deadline is within the lease
    const c1 = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, new Date(new Date(run.expiresAt).getTime() - 10_000));
    const late = new Date(new Date(run.expiresAt).getTime() + 1000);
    expect((await refused(claimStep(agent, run.id, "s2", await claimBody(run.id, "s2"), null, late))).code).toBe("expired");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("executing"); // s1 still owes its report
    const res = await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, late);
    expect(res.run.status).toBe("expired");
  });
});

describe("reportOutcome and reconciliation", () => {
  it("an outcome after the lease lapsed is recorded, flagged for reconciliation, and completes nothing", async () => {
    const run = await submit("75019", [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75019", note: "Late write." } }]);
    const c = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    const afterLease = new Date(new Date(c.claim.leaseExpiresAt).getTime() + 1000);
    const r = await reportOutcome(agent, run.id, "s1", { token: c.claim.token, status: "succeeded" }, afterLease);
    expect(r.step).toMatchObject({ status: "succeeded", flag: "reported_after_lease_expired" });
    expect(r.run.status).toBe("executing"); // not completed
    expect(await prisma.approval.count({ where: { runId: run.id, state: "consumed" } })).toBe(0);
    const queue = (await listNeedsReconciliation(supervisor, { now: afterLease })).items;
    expect(queue.find((q) => q.runId === run.id)).toMatchObject({ stepId: "s1", reason: "flagged_report" });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { runId: run.id, type: "outcome" } });
    expect(audit.data).toMatchObject({ needsReconciliation: true, flag: "reported_after_lease_expired" });
  });

  it("an outcome after the step's approval was withdrawn (the fence refuses) is flagged too", async () => {
    const run = await submit("75019", [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75019", note: "Write after withdrawal." } }]);
    const c = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    await prisma.approval.updateMany({ where: { runId: run.id, state: "claimed" }, data: { state: "invalidated" } });
    const r = await reportOutcome(agent, run.id, "s1", { token: c.claim.token, status: "succeeded" }, LATER);
    expect(r.step.flag).toBe("reported_after_approval_withdrawn");
    expect(r.run.status).toBe("executing");
  });

  it("succeeded on every step completes the run and consumes each approval once", async () => {
    const run = await submit("75019");
    for (const id of ["s1", "s2", "s3"]) {
      const c = await claimStep(agent, run.id, id, await claimBody(run.id, id), `k-${id}`, LATER);
      const r = await reportOutcome(agent, run.id, id, { token: c.claim.token, status: "succeeded", detail: `wrote ${id}` }, LATER);
      expect(r.step).toMatchObject({ stepId: id, status: "succeeded", outcome: "succeeded", detail: `wrote ${id}` });
      expect(r.run.status).toBe(id === "s3" ? "completed" : "executing");
      // The same report again returns the saved step and changes nothing.
      const again = await reportOutcome(agent, run.id, id, { token: c.claim.token, status: "succeeded" }, LATER);
      expect(again.replayed).toBe(true);
      expect(again.step).toEqual(r.step);
    }
    expect(await prisma.approval.count({ where: { runId: run.id, state: "consumed" } })).toBe(3);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "outcome" } })).toBe(3);
    expect((await view(run.id)).status).toBe("completed");
    expect((await refused(claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER))).code).toBe("already_claimed");
  });

  it("failed fails the run; the remaining steps cannot be claimed", async () => {
    const run = await submit("75020");
    const c = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    const r = await reportOutcome(agent, run.id, "s1", { token: c.claim.token, status: "failed", detail: "ticket system said 500" }, LATER);
    expect(r.run.status).toBe("failed");
    const err = await refused(claimStep(agent, run.id, "s2", await claimBody(run.id, "s2"), null, LATER));
    expect(err.code).toBe("run_not_approved");
    expect(err.details).toMatchObject({ status: "failed" });
  });

  it("refuses a wrong token, another step's token, and a second different report", async () => {
    const run = await submit("75005", autoPlan("75005"));
    const c1 = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    const c2 = await claimStep(agent, run.id, "s2", await claimBody(run.id, "s2"), null, LATER);
    expect((await refused(reportOutcome(agent, run.id, "s1", { token: "x".repeat(32), status: "succeeded" }, LATER))).code).toBe("invalid_claim_token");
    expect((await refused(reportOutcome(agent, run.id, "s1", { token: c2.claim.token, status: "succeeded" }, LATER))).code).toBe("invalid_claim_token");
    const other: AgentCaller = { ...agent, id: "agent_other" };
    expect((await refused(reportOutcome(other, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER))).code).toBe("invalid_claim_token");
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    const err = await refused(reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "failed" }, LATER));
    expect(err.code).toBe("outcome_already_reported");
    expect(err.details).toMatchObject({ reportedStatus: "succeeded" });
    expect((await prisma.stepExecution.findFirstOrThrow({ where: { runId: run.id, stepId: "s1" } })).status).toBe("succeeded");
  });

  it("unknown is never re-claimable: it waits for a supervisor, who reconciles it", async () => {
    const run = await submit("74994", autoPlan("74994"));
    const c1 = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    const r = await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "unknown", detail: "timeout after write" }, LATER);
    expect(r.run.status).toBe("executing");
    expect(r.step.status).toBe("unknown");
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "s1", state: "claimed" } })).toBe(1);

    // Neither a new claim nor a report with the old token re-opens it.
    const again = await refused(claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), "retry", LATER));
    expect(again.code).toBe("already_claimed");
    expect(again.details).toMatchObject({ stepStatus: "unknown" });
    expect((await refused(reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER))).code).toBe("outcome_already_reported");

    const queue = (await listNeedsReconciliation(supervisor, { now: LATER })).items;
    expect(queue.filter((q) => q.runId === run.id)).toEqual([
      expect.objectContaining({ stepId: "s1", status: "unknown", reason: "unknown_outcome", ticketId: "74994", tool: "add_ticket_note", runStatus: "executing" }),
    ]);

    const denied = await refused(reconcileStep(operator, run.id, "s1", { resolution: "succeeded", note: "Checked the ticket system." }, LATER));
    expect(denied.code).toBe("forbidden");
    expect(denied.status).toBe(403);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "denied", actorId: "usr_operator" } })).toBe(1);

    const rec = await reconcileStep(supervisor, run.id, "s1", { resolution: "succeeded", note: "The note is on the ticket." }, LATER);
    expect(rec.step).toMatchObject({ status: "unknown", outcome: "succeeded", resolution: "succeeded", reconciledBy: "usr_supervisor" });
    expect(rec.run.status).toBe("executing");
    expect((await reconcileStep(supervisor, run.id, "s1", { resolution: "succeeded", note: "Double click." }, LATER)).replayed).toBe(true);
    expect((await refused(reconcileStep(supervisor, run.id, "s1", { resolution: "failed", note: "Changed my mind." }, LATER))).code).toBe("nothing_to_reconcile");
    expect((await listNeedsReconciliation(supervisor, { now: LATER })).items.some((q) => q.runId === run.id)).toBe(false);
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "s1", state: "consumed" } })).toBe(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "reconciled" } })).toBe(1);

    // The rest of the run goes on and completes.
    for (const id of ["s2", "s3"]) {
      const c = await claimStep(agent, run.id, id, await claimBody(run.id, id), null, LATER);
      await reportOutcome(agent, run.id, id, { token: c.claim.token, status: "succeeded" }, LATER);
    }
    expect((await view(run.id)).status).toBe("completed");
  });

  it("a reconciled failure fails the run; a step never claimed or already reported is not reconcilable", async () => {
    const run = await submit("74995", autoPlan("74995"));
    const c1 = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    expect((await refused(reconcileStep(supervisor, run.id, "s1", { resolution: "failed", note: "nope" }, LATER))).code).toBe("nothing_to_reconcile");
    expect((await refused(reconcileStep(supervisor, run.id, "s3", { resolution: "failed", note: "nope" }, LATER))).code).toBe("nothing_to_reconcile");
    const c2 = await claimStep(agent, run.id, "s2", await claimBody(run.id, "s2"), null, LATER);
    await reportOutcome(agent, run.id, "s2", { token: c2.claim.token, status: "unknown" }, LATER);
    const rec = await reconcileStep(supervisor, run.id, "s2", { resolution: "failed", note: "The escalation never arrived." }, LATER);
    expect(rec.run.status).toBe("failed");
  });

  it("a claim never reported becomes reconcilable when its lease ends (not a fixed quarter of an hour), and a late report is then refused", async () => {
    const run = await submit("74997", autoPlan("74997"));
    const c1 = await claimStep(agent, run.id, "s1", await claimBody(run.id, "s1"), null, LATER);
    const leaseEnds = new Date(c1.claim.leaseExpiresAt);
    expect(leaseEnds.getTime() - LATER.getTime()).toBeLessThan(STALE_CLAIM_SECONDS * 1000);
    const early = await refused(reconcileStep(supervisor, run.id, "s1", { resolution: "succeeded", note: "too early" }, LATER));
    expect(early.code).toBe("nothing_to_reconcile");
    expect(early.message).toContain(leaseEnds.toISOString());
    const justBefore = new Date(leaseEnds.getTime() - 1000);
    expect((await listNeedsReconciliation(supervisor, { now: justBefore })).items.find((q) => q.runId === run.id)).toBeUndefined();
    expect((await refused(reconcileStep(supervisor, run.id, "s1", { resolution: "succeeded", note: "still leased" }, justBefore))).code).toBe("nothing_to_reconcile");
    const stale = leaseEnds;
    expect((await listNeedsReconciliation(supervisor, { now: stale })).items.find((q) => q.runId === run.id)).toMatchObject({ stepId: "s1", reason: "no_report" });
    await reconcileStep(supervisor, run.id, "s1", { resolution: "succeeded", note: "Executor crashed; note is present." }, stale);
    const late = await refused(reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "failed" }, stale));
    expect(late.code).toBe("outcome_already_reported");
  });
});

describe("claimStep: validated again at dispatch", () => {
  it("refuses a refund the live balance no longer covers, and an approval whose approver lost the grant", async () => {
    const refund = (id: string, minor: number): StepInput => ({ id, tool: "issue_refund", args: { invoiceId: "in_75003", amount: { minor, currency: "USD" }, reason: "Goodwill" } });
    const run = await submit("75010", [refund("r1", 50000)]);
    await approveAll(run.id);
    // Meanwhile the customer paid most of the invoice: 91000 → 20000 open.
    await prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_75003" } }, data: { openMinor: 20000 } });
    const stale = await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    expect(stale.code).toBe("validation_failed");
    expect(stale.message).toMatch(/open balance/);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
    // That approval no longer holds money on the invoice (it would otherwise stay in flight until the run expires).
    await prisma.approval.updateMany({ where: { runId: run.id }, data: { state: "invalidated" } });

    const run2 = await submit("75010", [refund("r2", 10000)]);
    await approveAll(run2.id); // approved by the senior
    await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: false } });
    try {
      const revoked = await refused(claimStep(agent, run2.id, "r2", await claimBody(run2.id, "r2"), null, LATER));
      expect(revoked.code).toBe("approval_revoked");
    } finally {
      await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: true } });
    }
    // No executor can fix a lost authority: the run waits for a person's new decision (needs-decision.test.ts).
    expect((await view(run2.id)).status).toBe("needs_decision");
    const { approveSteps } = await import("../approvals/approve-steps");
    const { loadViewer } = await import("../auth/session");
    await approveSteps((await loadViewer("usr_supervisor"))!, run2.id, { planVersion: 1, stepIds: "all", idempotencyKey: `again-${run2.id}`, ...(await concurrentAcks(run2.id)) }, LATER);
    const ok = await claimStep(agent, run2.id, "r2", await claimBody(run2.id, "r2"), null, LATER);
    expect(ok.claim.token).toBeTruthy();
  });

  it("refuses an approval whose approver was disabled after approving, with the grant itself unchanged", async () => {
    const run = await submit("75010", [{ id: "r1", tool: "issue_refund", args: { invoiceId: "in_75003", amount: { minor: 1000, currency: "USD" }, reason: "Goodwill" } }]);
    await approveAll(run.id); // approved by the senior
    await prisma.user.update({ where: { id: "usr_senior" }, data: { disabled: true } });
    try {
      const revoked = await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
      expect(revoked.code).toBe("approval_revoked");
      expect(revoked.details).toMatchObject({ stepId: "r1", approverId: "usr_senior" });
    } finally {
      await prisma.user.update({ where: { id: "usr_senior" }, data: { disabled: false } });
    }
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
  });
});

describe("a restart between approval and claim", () => {
  it("loses nothing: a fresh process (a restarted server) claims what a person approved in this one", async () => {
    const { approveSteps } = await import("../approvals/approve-steps");
    const { loadViewer } = await import("../auth/session");
    // 75019 is unclassified (general_exception): its intent permits a reschedule; a question's would not.
    const run = await submit("75019", [{ id: "r1", tool: "reschedule_delivery", args: { shipmentId: "sh_5640", window: { from: "2026-04-10", to: "2026-04-10" }, reason: "Customer asked" } }]);
    const senior = (await loadViewer("usr_senior"))!;
    const approved = await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `restart-${run.id}`, ...(await concurrentAcks(run.id)) }, TEST_NOW);
    expect(approved.run.status).toBe("approved");
    await prisma.$disconnect(); // this "server" goes away
    const results = await raceInProcesses(1, { runId: run.id, stepId: "r1", ...(await claimBody(run.id, "r1")), count: 1, keyPrefix: null });
    expect(results).toEqual([{ ok: true, token: expect.any(String) }]);
    expect(await prisma.stepExecution.count({ where: { runId: run.id, status: "claimed" } })).toBe(1);
  }, 90_000);
});
