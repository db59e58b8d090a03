/**
 * The anomalies the decision path's row locks prevent (docs/design.md "Transactions and locks"),
 * provoked against this file's own database (SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres,
 * where these transactions run READ COMMITTED and take the run's lock before they read). Each test
 * runs two decisions about one run at the same moment, several runs at once, and asserts what a
 * person would see afterwards: a run settled from a reading that missed the other decision is
 * left waiting, or keeps an approval of a version nobody will execute.
 * The double claim and the write skew on an invoice's open balance have their own races in
 * lib/server/claims/claims.test.ts and lib/server/claims/gate-at-write.test.ts.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { DEMO_AGENT_ID, DEMO_INTEGRATION_ID } from "../demo/seed";
import { recordTicketEvent } from "../outcomes/record-ticket-event";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { approveAllAs, editable, prepareTestDatabase, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";
import { prisma } from "./db";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
/** Runs raced at once in each test: enough that, without the locks, some pair interleaves on PostgreSQL. */
const ROUNDS = 6;
let senior: Viewer;
let supervisor: Viewer;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
});

async function submit(ticketId: string, steps: StepInput[]) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }, `anomaly:${nanoid()}`, TEST_NOW);
  return run;
}

/** A reply and a small refund on in_74102: two steps a person approves. */
const replyAndRefund = (n: number): StepInput[] => [
  { id: "reply", tool: "send_reply", args: { ticketId: "75006", body: `We are looking into delivery ${n} and will write again today.` } },
  { id: "refund", tool: "issue_refund", args: { invoiceId: "in_74102", amount: { minor: 500 + n, currency: "USD" }, reason: "Goodwill for the delay" }, dependsOn: [] },
];

/** Three auto-gated internal steps without prerequisites: approved at submission, claimable in any order. */
const parallelNotes = (ticketId: string): StepInput[] => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "First write." }, dependsOn: [] },
  { id: "s2", tool: "add_ticket_note", args: { ticketId, note: "Second write." }, dependsOn: [] },
  { id: "s3", tool: "add_ticket_note", args: { ticketId, note: "Third write." }, dependsOn: [] },
];

const approve = (who: Viewer, runId: string, stepIds: string[] | "all", idempotencyKey = nanoid(), planVersion = 1) =>
  approveSteps(who, runId, { planVersion, stepIds, idempotencyKey }, LATER);

describe("approve: write skew on the run's decision", () => {
  it("two people approving different steps of one run at once: every step approved, and the run settles approved", async () => {
    const runs = await Promise.all(Array.from({ length: ROUNDS }, (_, n) => submit("75006", replyAndRefund(n))));
    const results = await Promise.allSettled(runs.flatMap((run) => [approve(senior, run.id, ["reply"]), approve(supervisor, run.id, ["refund"])]));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    for (const run of runs) {
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, approvedVersion: true } });
      expect(after).toEqual({ status: "approved", approvedVersion: 1 });
      expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(2);
    }
  });

  it("one request sent three times at once (one idempotency key): one approval, and the answers are the same", async () => {
    const runs = await Promise.all(Array.from({ length: ROUNDS }, (_, n) => submit("75006", replyAndRefund(n))));
    const answers = await Promise.all(runs.map((run) => {
      const key = nanoid();
      return Promise.all([1, 2, 3].map(() => approve(senior, run.id, ["reply"], key)));
    }));
    for (const [i, run] of runs.entries()) {
      const ids = answers[i].map((a) => a.approvals.map((x) => x.id));
      expect(ids[1]).toEqual(ids[0]);
      expect(ids[2]).toEqual(ids[0]);
      expect(await prisma.approval.count({ where: { runId: run.id, approverId: senior.id } })).toBe(1);
    }
  });

  it("a rejection and an approval of one run at once: a rejected run keeps no active approval", async () => {
    const runs = await Promise.all(Array.from({ length: ROUNDS }, (_, n) => submit("75006", replyAndRefund(n))));
    await Promise.allSettled(runs.flatMap((run) => [approve(supervisor, run.id, "all"), rejectRun(senior, run.id, { planVersion: 1, reason: "Not this way" }, LATER)]));
    for (const run of runs) {
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } });
      expect(["rejected", "approved"]).toContain(after.status);
      if (after.status === "rejected") expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(0);
      else expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(2);
    }
  });
});

describe("edit: an approval crossing the edit of its version", () => {
  it("an edit and an approval of the version it replaces at once: no approval stays active on a version the run left", async () => {
    const runs = await Promise.all(Array.from({ length: ROUNDS }, (_, n) => submit("75006", replyAndRefund(n))));
    const edit = async (runId: string) => {
      const view = toRunView(await loadRun(runId), LATER);
      const steps = editable(view.steps as never);
      (steps.find((s) => s.id === "refund")!.args as { amount: { minor: number } }).amount.minor += 100;
      return submitEdit(senior, runId, { baseVersion: 1, steps }, LATER);
    };
    const results = await Promise.allSettled(runs.flatMap((run) => [edit(run.id), approve(supervisor, run.id, "all")]));
    // The edit always goes through (an approved run goes back to review); the approval either
    // came first (and the edit invalidated the refund's) or was refused stale_plan_version.
    for (const [i, r] of results.entries()) {
      if (i % 2 === 0) expect(r.status).toBe("fulfilled");
      else if (r.status === "rejected") expect((r.reason as { code: string }).code).toBe("stale_plan_version");
    }
    for (const run of runs) {
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { planVersion: true } });
      expect(after.planVersion).toBe(2);
      expect(await prisma.approval.count({ where: { runId: run.id, planVersion: 1, state: "active" } })).toBe(0);
      expect(await prisma.approval.count({ where: { runId: run.id, planVersion: 2, stepId: "refund", state: "active" } })).toBe(0);
    }
  });
});

describe("outcome: write skew on the run's settlement", () => {
  it("outcomes of three parallel steps reported at once: the run completes, each approval consumed once, one outcome record", async () => {
    const tickets = ["75007", "75008", "75009", "75010", "75011", "75012"].slice(0, ROUNDS);
    const runs = await Promise.all(tickets.map((t) => submit(t, parallelNotes(t))));
    const claims = await Promise.all(
      runs.flatMap((run) =>
        run.steps.map(async (s) => ({ runId: run.id, stepId: s.id, token: (await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: run.boundTaskRevision }, null, LATER)).claim.token })),
      ),
    );
    const reports = await Promise.allSettled(claims.map((c) => reportOutcome(agent, c.runId, c.stepId, { token: c.token, status: "succeeded" }, LATER)));
    expect(reports.filter((r) => r.status === "rejected")).toEqual([]);
    for (const run of runs) {
      expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } })).status).toBe("completed");
      expect(await prisma.approval.count({ where: { runId: run.id, state: "consumed" } })).toBe(3);
      expect(await prisma.runOutcome.count({ where: { runId: run.id } })).toBe(1);
    }
  });
});

describe("claim refusal: a run handed to a person while a step is being written", () => {
  it("a refused claim of one step and a claim of another at once: never a run waiting for a person with a step claimed and unreported", async () => {
    const runs: ReturnType<typeof toRunView>[] = [];
    for (let n = 0; n < ROUNDS; n++) {
      const run = await submit("75006", [
        { id: "note", tool: "add_ticket_note", args: { ticketId: "75006", note: `Written while the other step is refused (${n}).` }, dependsOn: [] },
        { id: "refund", tool: "issue_refund", args: { invoiceId: "in_74102", amount: { minor: 300, currency: "USD" }, reason: "Goodwill for the delay" }, dependsOn: [] },
      ]);
      await approveAllAs(run.id, "usr_senior");
      runs.push(toRunView(await loadRun(run.id), LATER));
    }
    // The refund's approver loses the authority: its claim is refused approval_revoked, which hands
    // the run to a person — unless another step of it is claimed and not yet reported.
    await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: false } });
    try {
      const body = (run: ReturnType<typeof toRunView>, stepId: string) => ({ digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision });
      await Promise.allSettled(runs.flatMap((run) => [claimStep(agent, run.id, "refund", body(run, "refund"), null, LATER), claimStep(agent, run.id, "note", body(run, "note"), null, LATER)]));
    } finally {
      await prisma.grant.update({ where: { userId_tool: { userId: "usr_senior", tool: "issue_refund" } }, data: { canApprove: true } });
    }
    for (const run of runs) {
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } });
      const open = await prisma.stepExecution.count({ where: { runId: run.id, status: "claimed" } });
      expect(after.status === "needs_decision" && open > 0, `${run.id}: ${after.status} with ${open} open claim(s)`).toBe(false);
      expect(await prisma.stepExecution.count({ where: { runId: run.id, stepId: "refund" } })).toBe(0);
    }
  });
});

describe("outcome record: a ticket event arriving as the run ends", () => {
  it("an outcome report and a reopen of its ticket at once: the run's outcome record counts the reopen", async () => {
    const tickets = ["75001", "75002", "75003", "75004", "75005", "74999"].slice(0, ROUNDS);
    const claimed = [];
    for (const t of tickets) {
      const run = await submit(t, [{ id: "n1", tool: "add_ticket_note", args: { ticketId: t, note: "Rebooked; the customer was told." } }]);
      const token = (await claimStep(agent, run.id, "n1", { digest: run.steps[0].digest, taskRevision: run.boundTaskRevision }, null, LATER)).claim.token;
      claimed.push({ run, token, taskId: `task_${t}` });
    }
    const reopenedAt = new Date(LATER.getTime() + 60_000);
    const integration = { id: DEMO_INTEGRATION_ID, name: "Demo ticketing integration" };
    const results = await Promise.allSettled(
      claimed.flatMap((c) => [
        reportOutcome(agent, c.run.id, "n1", { token: c.token, status: "succeeded" }, LATER),
        recordTicketEvent(integration, c.taskId, { type: "reopened", at: reopenedAt.toISOString() }, null, new Date(reopenedAt.getTime() + 60_000)),
      ]),
    );
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    for (const c of claimed) {
      const outcome = await prisma.runOutcome.findUniqueOrThrow({ where: { runId: c.run.id }, select: { record: true } });
      expect((outcome.record as { signals: string[] }).signals).toContain("reopened");
    }
  });
});
