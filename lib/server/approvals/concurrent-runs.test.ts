/**
 * Two plans for one task (docs/design.md "The moment of the write"): an agent's new plan while its
 * earlier run of the task is being executed says so (run details and queue row, `concurrentRuns`),
 * and approving it needs that acknowledged — 409 `concurrent_run_unacknowledged` otherwise, nothing
 * written — checked inside the approval's transaction, so a run that began executing after the
 * page was loaded is seen. Once the other run ended, a new plan needs no acknowledgement. Service
 * level, on this file's own database (SQLite or PostgreSQL).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError } from "../../errors/domain-error";
import type { StepInput } from "../../plan/schema";
import { deskScope, loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { getRunDetails } from "../runs/get-run-details";
import { listQueue } from "../runs/list-queue";
import { concurrentRunsOf } from "../plans/concurrent-runs";
import { isBeingExecuted, RUN_STATES } from "../../lifecycle/run-state";
import { submitRun } from "../runs/submit-run";
import { prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { approveSteps } from "./approve-steps";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (minutes: number) => new Date(TEST_NOW.getTime() + minutes * 60_000);
let senior: Viewer;
let operator: Viewer;

/** A note on the ticket (auto-approved by the seeded policy) and a reply a person approves. */
const plan = (ticketId: string, text: string): StepInput[] => [
  { id: "st_note", tool: "add_ticket_note", args: { ticketId, note: `Delivery contact confirmed (${text}).` } },
  { id: "st_reply", tool: "send_reply", args: { ticketId, body: "Thanks, we have updated the delivery contact." } },
];

/** Submits `plan` for the seeded task of `ticketId` as the demo agent (each test works its own ticket). */
async function submit(ticketId: string, text: string, now: Date, addition = false) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: plan(ticketId, text), ...(addition ? { addition } : {}) }, `cr:${nanoid()}`, now)).run;
}
const approve = (who: Viewer, runId: string, now: Date, acknowledgedConcurrentRuns?: string[]) =>
  approveSteps(who, runId, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid(), ...(acknowledgedConcurrentRuns ? { acknowledgedConcurrentRuns } : {}) }, now);
/** The executor's claim of `stepId` (its digest as the run details show it). */
async function claim(runId: string, stepId: string, now: Date) {
  const { run } = await getRunDetails(runId, senior, now);
  const { digest } = run.steps.find((s) => s.id === stepId)!;
  return (await claimStep(agent, runId, stepId, { digest, taskRevision: run.boundTaskRevision }, null, now)).claim;
}
const personApprovals = (runId: string) => prisma.approval.count({ where: { runId, approverId: { not: null } } });
const auditOf = (runId: string, type: string) => prisma.auditEvent.findMany({ where: { runId, type }, orderBy: { seq: "asc" } });
const queueRow = async (runId: string, now: Date) => (await listQueue({ scope: deskScope(operator) }, now)).runs.find((r) => r.id === runId);

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  operator = (await loadViewer("usr_operator"))!;
});

describe("a new plan while the task's earlier run is being executed", () => {
  it("is flagged, refused without the acknowledgement (nothing written), approved with it (audited); after the other run completed a new plan needs none", async () => {
    // Run A: approved, its first step claimed and written — executing, its reply not yet claimed.
    const a = await submit("75004", "A", at(1));
    expect((await approve(senior, a.id, at(2))).run.status).toBe("approved");
    const noteClaim = await claim(a.id, "st_note", at(3));
    await reportOutcome(agent, a.id, "st_note", { token: noteClaim.token, status: "succeeded" }, at(3));
    expect((await prisma.run.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("executing");

    // The agent submits run B for the same task: A is being executed, so it is not superseded, and B says so.
    const b = await submit("75004", "B", at(4));
    expect(b.status).toBe("pending_review");
    expect((await getRunDetails(b.id, operator, at(4))).concurrentRuns).toEqual([{ id: a.id, status: "executing" }]);
    expect((await queueRow(b.id, at(4)))?.concurrentRuns).toEqual([{ id: a.id, status: "executing" }]);
    // A itself is not flagged: B is not being executed.
    expect((await getRunDetails(a.id, operator, at(4))).concurrentRuns).toEqual([]);
    expect((await queueRow(a.id, at(4)))?.concurrentRuns).toBeUndefined();

    // Approving B without the acknowledgement: a typed refusal naming A; nothing approved, nothing audited as approved.
    const err = await refused(approve(senior, b.id, at(5)));
    expect(err.code).toBe("concurrent_run_unacknowledged");
    expect(err.status).toBe(409);
    expect(err.details).toEqual({ runs: [{ id: a.id, status: "executing" }] });
    expect(err.message).toContain(`Another plan for this task is being executed: run ${a.id} (executing)`);
    expect(await personApprovals(b.id)).toBe(0);
    expect(await auditOf(b.id, "approved")).toHaveLength(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: b.id } })).status).toBe("pending_review");
    // Acknowledging some other run does not count.
    expect((await refused(approve(senior, b.id, at(5), ["run_not_the_one"]))).code).toBe("concurrent_run_unacknowledged");

    // With the acknowledgement: approved, and each approval's audit event names what was acknowledged.
    const ok = await approve(senior, b.id, at(6), [a.id]);
    expect(ok.run.status).toBe("approved");
    const approved = await auditOf(b.id, "approved");
    expect(approved).toHaveLength(1); // the reply (the note was approved by the policy)
    expect((approved[0].data as Record<string, unknown>).concurrentRunsAcknowledged).toEqual([{ id: a.id, status: "executing" }]);

    // A completes; the agent's next plan C supersedes B (approved, never claimed) and needs no acknowledgement.
    const replyClaim = await claim(a.id, "st_reply", at(7));
    await reportOutcome(agent, a.id, "st_reply", { token: replyClaim.token, status: "succeeded" }, at(7));
    expect((await prisma.run.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("completed");
    const c = await submit("75004", "C", at(8));
    expect((await prisma.run.findUniqueOrThrow({ where: { id: b.id } })).status).toBe("superseded");
    expect((await getRunDetails(c.id, operator, at(8))).concurrentRuns).toEqual([]);
    expect((await queueRow(c.id, at(8)))?.concurrentRuns).toBeUndefined();
    expect((await approve(senior, c.id, at(9))).run.status).toBe("approved");
    expect((await auditOf(c.id, "approved"))[0].data).not.toHaveProperty("concurrentRunsAcknowledged");
  });

  it("a run that began executing after the page was loaded is seen by the approval's transaction", async () => {
    // Two live plans of the task (the second an addition): both wait, neither is being executed.
    const first = await submit("75002", "first", at(20), true);
    expect((await approve(senior, first.id, at(21))).run.status).toBe("approved");
    const second = await submit("75002", "second", at(22), true);
    expect((await getRunDetails(second.id, operator, at(22))).concurrentRuns).toEqual([]); // what the page showed

    // The executor claims the first run's note: it is being executed (a claim open, not reported).
    await claim(first.id, "st_note", at(23));
    const err = await refused(approve(senior, second.id, at(24)));
    expect(err.code).toBe("concurrent_run_unacknowledged");
    expect(err.details).toEqual({ runs: [{ id: first.id, status: "executing" }] });
    expect(await personApprovals(second.id)).toBe(0);
  });

  it("approval and claim racing: either the approval sees the claim and is refused (nothing written), or it committed first without it", async () => {
    for (let i = 0; i < 4; i++) {
      const other = await submit("75006", `race other ${i}`, at(40 + i * 5), true);
      await approve(senior, other.id, at(41 + i * 5));
      const mine = await submit("75006", `race mine ${i}`, at(42 + i * 5), true);
      const { digest } = (await getRunDetails(other.id, senior, at(42 + i * 5))).run.steps.find((s) => s.id === "st_note")!;
      const [approval, claimed] = await Promise.allSettled([
        approve(operator, mine.id, at(43 + i * 5)),
        claimStep(agent, other.id, "st_note", { digest, taskRevision: other.boundTaskRevision }, null, at(43 + i * 5)),
      ]);
      expect(claimed.status, String((claimed as PromiseRejectedResult).reason)).toBe("fulfilled");
      if (approval.status === "rejected") {
        expect(isDomainError(approval.reason) && approval.reason.code, String(approval.reason)).toBe("concurrent_run_unacknowledged");
        expect(await personApprovals(mine.id)).toBe(0);
      } else {
        expect(approval.value.run.status).toBe("approved");
      }
      // Whatever the order, the claim is in now: approving another plan of the task needs the acknowledgement.
      const again = await submit("75006", `race after ${i}`, at(44 + i * 5), true);
      const concurrent = (await getRunDetails(again.id, operator, at(44 + i * 5))).concurrentRuns.map((r) => r.id);
      expect(concurrent).toContain(other.id);
      expect((await refused(approve(operator, again.id, at(44 + i * 5)))).code).toBe("concurrent_run_unacknowledged");
      expect((await approve(operator, again.id, at(44 + i * 5), concurrent)).run.status).toBe("approved");
      // The other run completes, so the next round starts with nothing being executed.
      if (claimed.status === "fulfilled") await reportOutcome(agent, other.id, "st_note", { token: claimed.value.claim.token, status: "succeeded" }, at(44 + i * 5));
      const reply = await claim(other.id, "st_reply", at(44 + i * 5));
      await reportOutcome(agent, other.id, "st_reply", { token: reply.token, status: "succeeded" }, at(44 + i * 5));
      expect((await prisma.run.findUniqueOrThrow({ where: { id: other.id } })).status).toBe("completed");
    }
  });

  it("the SQL says what isBeingExecuted says, for every status and every kind of step execution", async () => {
    const probe = await submit("75007", "probe", at(80), true);
    const other = await submit("75007", "other", at(81), true);
    const probeRow = await prisma.run.findUniqueOrThrow({ where: { id: probe.id } });
    const executions: Record<string, { status: string; resolution?: string }[]> = {
      none: [],
      "claim open": [{ status: "claimed" }],
      written: [{ status: "succeeded" }],
      unknown: [{ status: "unknown" }],
      "unknown, reconciled": [{ status: "unknown", resolution: "failed" }],
    };
    for (const status of RUN_STATES) {
      for (const [kind, rows] of Object.entries(executions)) {
        await prisma.stepExecution.deleteMany({ where: { runId: other.id } });
        await prisma.run.update({ where: { id: other.id }, data: { status } });
        for (const [n, r] of rows.entries()) {
          await prisma.stepExecution.create({
            data: { id: `exe_${nanoid(8)}`, runId: other.id, stepId: n ? "st_reply" : "st_note", approvalId: "apr_probe", planVersion: 1, digest: "d", taskRevision: 1, token: nanoid(), status: r.status, resolution: r.resolution ?? null },
          });
        }
        const facts = {
          claimedSteps: rows.length,
          openClaims: rows.filter((r) => r.status === "claimed" && !r.resolution).length,
          unknownSteps: rows.filter((r) => r.status === "unknown" && !r.resolution).length,
        };
        const found = (await concurrentRunsOf(prisma, probeRow)).map((r) => r.id);
        expect(found.includes(other.id), `${status}, ${kind}`).toBe(isBeingExecuted(status, facts));
      }
    }
  });
});
