/**
 * No dead end after approval (docs/design.md §10): an approved run whose next step cannot be
 * claimed for a reason no executor can fix moves, in the refused claim's transaction, to
 * `needs_decision` — owned by a person, escalated like a waiting run, and edited, approved again
 * or rejected from there. Service level, this file's own database (SQLite or PostgreSQL).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError, type DomainError } from "../../errors/domain-error";
import { nextActions, runFacts } from "../../lifecycle/run-state";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { prisma } from "../db/db";
import { listEscalations } from "../deadlines/list-escalations";
import { sweepDeadlines } from "../deadlines/sweep-deadlines";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { getRunOwnership } from "../ownership/get-run-ownership";
import { countNeedsDecision, listQueue } from "../runs/list-queue";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { deskScope, loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { concurrentAcks, prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";
import { claimStep } from "./claim-step";
import { reportOutcome } from "./report-outcome";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
const OPEN_74203 = 64950; // the seeded open balance of in_74203 (Baltic Reefer Lines)
let senior: Viewer;
let supervisor: Viewer;

/** A refund of `minor` USD cents on in_74203, for ticket #75003 (Baltic Reefer Lines, a customs hold that permits refunds). */
const refund = (id: string, minor: number): StepInput => ({ id, tool: "issue_refund", args: { invoiceId: "in_74203", amount: { minor, currency: "USD" }, reason: "Storage at Rotterdam while held" } });

async function submit(steps: StepInput[]) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75003" } });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }, `nd:${nanoid()}`, TEST_NOW);
  return run;
}
const view = async (runId: string, now = LATER) => toRunView(await loadRun(runId), now);
const claimBody = async (runId: string, stepId: string) => {
  const run = await view(runId);
  return { digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision };
};
const approveAll = async (runId: string, who = senior, now = LATER) =>
  approveSteps(who, runId, { planVersion: (await view(runId, now)).planVersion, stepIds: "all", idempotencyKey: nanoid(), ...(await concurrentAcks(runId)) }, now);
/** Earlier tests' approvals and claims on in_74203 no longer hold money on it (each test starts from its open balance). */
const releaseHolds = () => prisma.approval.updateMany({ where: { targetId: "in_74203", state: { in: ["active", "claimed"] } }, data: { state: "consumed" } });
const setOpen = (minor: number) => prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74203" } }, data: { openMinor: minor } });
const events = (runId: string, type: string) => prisma.auditEvent.findMany({ where: { runId, type }, orderBy: { seq: "asc" } });

/** Issue case 3: approve a $600.00 refund on in_74203, the account system lowers its open balance to $100.00, the executor claims. */
async function approvedThenBalanceDropped() {
  await releaseHolds();
  await setOpen(OPEN_74203);
  const run = await submit([refund("r1", 60000)]);
  expect((await approveAll(run.id)).run.status).toBe("approved");
  await setOpen(10000);
  return run;
}

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
});

describe("a claim refused for a reason no executor can fix moves the run to a person", () => {
  it("issue case 3: 422 validation_failed to the executor, the run needs a new decision with the reason in words, owned by an operator", async () => {
    const run = await approvedThenBalanceDropped();
    const err = await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    expect(err.code).toBe("validation_failed");
    expect(err.status).toBe(422);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);

    const after = await view(run.id);
    expect(after.status).toBe("needs_decision");
    expect(after.outcome).toBeNull(); // a person still decides: no typed end for the agent yet
    expect(after.decisionReason).toMatchObject({
      code: "validation_failed",
      stepId: "r1",
      message: "Needs a new decision: in_74203 has $100.00 open; the approved refund was $600.00.",
    });
    // The approval stands until a person decides (approving again confirms it after a fresh validation).
    expect(after.steps[0].approval?.state).toBe("active");
    // Escalated like a waiting run: a fresh escalation time before the unchanged deadline.
    expect(new Date(after.escalateAt).getTime()).toBeGreaterThan(LATER.getTime());
    expect(new Date(after.escalateAt).getTime()).toBeLessThanOrEqual(LATER.getTime() + 15 * 60_000);
    expect(after.expiresAt).toBe(run.expiresAt);

    const next = nextActions(after.status, runFacts(after, { now: LATER, liveRevision: after.boundTaskRevision }));
    expect(next.owner).toBe("operator");
    expect(next.headline).toContain("Needs a new decision: in_74203 has $100.00 open; the approved refund was $600.00.");
    expect(next.actions.filter((a) => a.by === "executor")).toEqual([]);
    expect(next.actions.map((a) => a.id)).toEqual(expect.arrayContaining(["approve", "edit", "reject"]));

    const [moved] = await events(run.id, "needs_decision");
    expect(moved.data).toMatchObject({ code: "validation_failed", stepId: "r1", approvalsInvalidated: 0 });
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "claim_refused" } })).toBe(1);

    // It shows in the queue: filtered by its status (in SQL), and counted for the queue's notice.
    const queue = await listQueue({ status: "needs_decision", scope: deskScope(senior), viewer: senior }, LATER);
    expect(queue.runs.map((r) => r.id)).toContain(run.id);
    expect((await listQueue({ status: "pending_review", scope: deskScope(senior), viewer: senior }, LATER)).runs.map((r) => r.id)).not.toContain(run.id);
    expect(await countNeedsDecision(deskScope(senior), LATER)).toBeGreaterThanOrEqual(1);

    // "Who can decide" names the people whose grant covers the refund ($600.00: not the operator, limit $500.00).
    const owners = await getRunOwnership(senior, run.id, LATER);
    const deciders = owners.deciders.find((d) => d.stepId === "r1")!;
    expect(deciders.people.map((p) => p.id)).toEqual(expect.arrayContaining(["usr_senior", "usr_supervisor"]));
    expect(deciders.people.map((p) => p.id)).not.toContain("usr_operator");

    // Another claim now waits for the person's decision; it moves nothing more.
    const again = await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    expect(again.code).toBe("run_not_approved");
    expect(again.message).toContain("in_74203 has $100.00 open");
    expect(await events(run.id, "needs_decision")).toHaveLength(1);
  });

  it("two claimers at once: exactly one transition and one needs_decision event; both get a typed refusal", async () => {
    const run = await approvedThenBalanceDropped();
    const body = await claimBody(run.id, "r1");
    const results = await Promise.allSettled([claimStep(agent, run.id, "r1", body, "k-a", LATER), claimStep(agent, run.id, "r1", body, "k-b", LATER)]);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      const reason = (r as PromiseRejectedResult).reason as DomainError;
      expect(isDomainError(reason)).toBe(true);
      expect(["validation_failed", "run_not_approved"]).toContain(reason.code);
    }
    expect((results as PromiseRejectedResult[]).some((r) => (r.reason as DomainError).code === "validation_failed")).toBe(true);
    expect((await view(run.id)).status).toBe("needs_decision");
    expect(await events(run.id, "needs_decision")).toHaveLength(1);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
  });

  it("approving again re-validates against live data: refused while the balance is short, approved (and claimable) once it covers the refund", async () => {
    const run = await approvedThenBalanceDropped();
    await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    const short = await refused(approveAll(run.id));
    expect(short.code).toBe("validation_failed");
    expect((await view(run.id)).status).toBe("needs_decision");
    await setOpen(OPEN_74203);
    // Approving again is a decision within the person's own authority: an operator's refund limit is $500.00.
    const operator = (await loadViewer("usr_operator"))!;
    expect((await refused(approveAll(run.id, operator))).code).toBe("approval_denied");
    const approved = await approveAll(run.id);
    expect(approved.run.status).toBe("approved");
    expect(approved.approvedAgain).toEqual(["r1"]);
    expect(approved.run.decisionReason).toBeNull();
    expect(await events(run.id, "approved_again")).toHaveLength(1);
    const c = await claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER);
    expect(c.claim.token).toBeTruthy();
    expect((await view(run.id)).status).toBe("executing");
  });

  it("an edit makes a new plan version waiting for review; a rejection ends it with the reason for the agent", async () => {
    const run = await approvedThenBalanceDropped();
    await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    const before = await view(run.id);
    const edited = await submitEdit(senior, run.id, { baseVersion: before.planVersion, steps: withRequiredReasons([refund("r1", 10000)]) as never }, LATER);
    expect(edited.unchanged).toBe(false);
    expect((await view(run.id)).status).toBe("pending_review");
    expect((await approveAll(run.id)).run.status).toBe("approved");

    const other = await approvedThenBalanceDropped();
    await refused(claimStep(agent, other.id, "r1", await claimBody(other.id, "r1"), null, LATER));
    const rejected = await rejectRun(senior, other.id, { planVersion: 1, reason: "The customer paid most of the invoice; no refund is owed now." }, LATER);
    expect(rejected.status).toBe("rejected");
    expect(rejected.outcome).toMatchObject({ code: "rejected" });
  });

  it("the deadline sweep escalates it to supervisors at its escalation time, and it expires at its deadline", async () => {
    const run = await approvedThenBalanceDropped();
    await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
    const escalateAt = new Date((await view(run.id)).escalateAt);
    expect((await sweepDeadlines(new Date(escalateAt.getTime() - 1000))).escalated).not.toContain(run.id);
    const swept = await sweepDeadlines(escalateAt);
    expect(swept.escalated).toContain(run.id);
    expect(await events(run.id, "escalated")).toHaveLength(1);
    const row = (await listEscalations(supervisor, escalateAt)).rows.find((r) => r.id === run.id);
    // The escalation queue says it needs a new decision, and why.
    expect(row).toMatchObject({ status: "needs_decision", decisionReason: { code: "validation_failed", stepId: "r1" } });
    expect(row?.decisionReason?.message).toMatch(/^Needs a new decision: in_74203 has \$[\d,.]+ open; the approved refund was/);
    const at = new Date(escalateAt.getTime() + 1000);
    const next = nextActions("needs_decision", runFacts(await view(run.id, at), { now: at }));
    expect(next.owner).toBe("supervisor");
    const expiresAt = new Date(run.expiresAt);
    expect((await sweepDeadlines(expiresAt)).expired).toContain(run.id);
    expect((await view(run.id, expiresAt)).status).toBe("expired");
  });

  it("an approver who lost the authority: approval_revoked to the executor; another person approves again", async () => {
    await releaseHolds();
    await setOpen(OPEN_74203);
    const run = await submit([refund("r1", 20000)]);
    await approveAll(run.id);
    await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: false } });
    try {
      const err = await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER));
      expect(err.code).toBe("approval_revoked");
      const after = await view(run.id);
      expect(after.status).toBe("needs_decision");
      expect(after.decisionReason?.message).toBe(`Needs a new decision: ${senior.name} approved step 1 (issue_refund) and no longer has the authority to approve it; someone who has must approve it again.`);
      expect(after.steps[0].approval?.state).toBe("invalidated");
      expect((await approveAll(run.id, supervisor)).run.status).toBe("approved");
    } finally {
      await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: true } });
    }
  });

  it("after a step was written: approving again covers the rest only, an edit is refused (what was written stays written)", async () => {
    await releaseHolds();
    await setOpen(OPEN_74203);
    const note: StepInput = { id: "n1", tool: "add_ticket_note", args: { ticketId: "75003", note: "Refund agreed for the storage days." } };
    const run = await submit([note, refund("r1", 60000)]);
    await approveAll(run.id);
    const c1 = await claimStep(agent, run.id, "n1", await claimBody(run.id, "n1"), null, LATER);
    await reportOutcome(agent, run.id, "n1", { token: c1.claim.token, status: "succeeded" }, LATER);
    await setOpen(10000);
    expect((await refused(claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER))).code).toBe("validation_failed");
    const after = await view(run.id);
    expect(after.status).toBe("needs_decision");
    const next = nextActions(after.status, runFacts(after, { now: LATER }));
    expect(next.actions.find((a) => a.id === "edit")).toMatchObject({ enabled: false });
    const edit = await refused(submitEdit(senior, run.id, { baseVersion: after.planVersion, steps: withRequiredReasons([note, refund("r1", 10000)]) as never }, LATER));
    expect(edit.code).toBe("run_not_pending");
    await setOpen(OPEN_74203);
    const approved = await approveAll(run.id);
    expect(approved.run.status).toBe("approved");
    expect(approved.approvedAgain).toEqual(["r1"]); // only the refund: the written note keeps its consumed approval
    const c2 = await claimStep(agent, run.id, "r1", await claimBody(run.id, "r1"), null, LATER);
    await reportOutcome(agent, run.id, "r1", { token: c2.claim.token, status: "succeeded" }, LATER);
    expect((await view(run.id)).status).toBe("completed");
  });
});
