/**
 * Nobody answers (docs/design.md §10): the deadline sweep escalates a pending run once and
 * expires it at its deadline; approvals are refused after expiry whether or not a sweep ran.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { IRREVERSIBLE_EXPIRY_SECONDS } from "../../plan/policy";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { listEscalations } from "./list-escalations";
import { listNeedsReconciliation } from "../claims/list-reconciliation";
import { sweepDeadlines } from "./sweep-deadlines";
import { submitRun } from "../runs/submit-run";
import { DEMO_AGENT_ID } from "../demo/seed";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
let senior: Viewer;
let supervisor: Viewer;
let operator: Viewer;


/** A note and a customer reply (the reply needs a person's approval, so the run waits). */
function gatedPlan(ticketId: string): StepInput[] {
  return [
    { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer asked for an update." } },
    { id: "s2", tool: "send_reply", args: { ticketId, body: "Thanks for your patience; we are looking into it and will write again." } },
  ];
}

async function submit(ticketId: string, expiresInSeconds: number, steps = gatedPlan(ticketId)) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, expiresInSeconds }, `esc:${nanoid()}`, TEST_NOW);
  return run;
}

const events = (runId: string, type: string) => prisma.auditEvent.findMany({ where: { runId, type }, orderBy: { seq: "asc" } });

beforeAll(async () => {
  // The demo desk's own runs are submitted at TEST_NOW with 24 h / 8 h deadlines; every time
  // used below stays under two hours after TEST_NOW, so only this file's runs fall due.
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  operator = (await loadViewer("usr_operator"))!;
});

describe("sweepDeadlines", () => {
  it("escalates a pending run once at its escalation time, then expires it at its deadline", async () => {
    const run = await submit("75006", 3600); // escalates at +45 min (75 %), expires at +60 min
    expect(run.escalateAt).toBe(at(2700).toISOString());
    expect(run.expiresAt).toBe(at(3600).toISOString());

    expect((await sweepDeadlines(at(2699))).escalated).not.toContain(run.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).escalatedAt).toBeNull();

    const first = await sweepDeadlines(at(2700));
    expect(first.escalated).toContain(run.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).escalatedAt).toEqual(at(2700));
    const esc = await events(run.id, "escalated");
    expect(esc).toHaveLength(1);
    expect(esc[0]).toMatchObject({ actorKind: "system", data: { escalateAt: at(2700).toISOString(), expiresAt: at(3600).toISOString() } });

    // later sweeps, also several at once (several app instances), never escalate it again
    const again = await Promise.all([sweepDeadlines(at(2800)), sweepDeadlines(at(2800)), sweepDeadlines(at(2900))]);
    expect(again.flatMap((r) => r.escalated)).not.toContain(run.id);
    expect(await events(run.id, "escalated")).toHaveLength(1);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).escalatedAt).toEqual(at(2700));

    // the supervisors' queue lists it until it expires
    expect((await listEscalations(supervisor, at(3000))).rows.map((r) => r.id)).toContain(run.id);
    expect((await sweepDeadlines(at(3599))).expired).not.toContain(run.id);

    const expiry = await sweepDeadlines(at(3600));
    expect(expiry.expired).toContain(run.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("expired");
    expect(await events(run.id, "expired")).toHaveLength(1);
    expect((await sweepDeadlines(at(3700))).expired).not.toContain(run.id);
    expect(await events(run.id, "expired")).toHaveLength(1);
    expect((await listEscalations(supervisor, at(3700))).rows.map((r) => r.id)).not.toContain(run.id);
  });

  it("escalates concurrent sweeps of one due run exactly once", async () => {
    const run = await submit("75007", 4000);
    const results = await Promise.all(Array.from({ length: 6 }, () => sweepDeadlines(at(3500))));
    expect(results.flatMap((r) => r.escalated).filter((id) => id === run.id)).toHaveLength(1);
    expect(await events(run.id, "escalated")).toHaveLength(1);
  });

  it("expires an approved run nobody executed, without escalating it", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75008" } });
    const steps: StepInput[] = [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75008", note: "Storage fee explained." } }];
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, expiresInSeconds: 600 }, `esc:${nanoid()}`, TEST_NOW);
    expect(run.status).toBe("approved"); // all auto-gated
    expect((await sweepDeadlines(at(500))).escalated).not.toContain(run.id);
    expect((await sweepDeadlines(at(600))).expired).toContain(run.id);
    expect(await events(run.id, "escalated")).toHaveLength(0);
    expect((await prisma.approval.findMany({ where: { runId: run.id } })).map((a) => a.state)).toEqual(["expired"]);
  });

  it("ends an executing run whose executor went silent at its deadline, once, naming the steps never claimed; a run with a claim open waits for a person", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75011" } });
    const notes = (ticketId: string): StepInput[] => [
      { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Looking into it." } },
      { id: "s2", tool: "add_ticket_note", args: { ticketId, note: "Carrier contacted." } },
    ];
    // Silent: step 1 claimed and reported, then the executor stopped calling (no finish).
    const { run: silent } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: notes("75011"), expiresInSeconds: 600 }, `esc:${nanoid()}`, TEST_NOW);
    expect(silent.status).toBe("approved");
    const s1 = silent.steps.find((s) => s.id === "s1")!;
    const { claim } = await claimStep(agent, silent.id, "s1", { digest: s1.digest, taskRevision: silent.boundTaskRevision }, null, at(60));
    await reportOutcome(agent, silent.id, "s1", { token: claim.token, status: "succeeded" }, at(61));
    // Mid-write: a claim still open (its outcome never came) waits for a person, not for the sweep.
    const other = await prisma.task.findUniqueOrThrow({ where: { id: "task_75012" } });
    const { run: open } = await submitRun(agent, other.id, { taskRevision: other.revision, steps: notes("75012"), expiresInSeconds: 600 }, `esc:${nanoid()}`, TEST_NOW);
    const o1 = open.steps.find((s) => s.id === "s1")!;
    await claimStep(agent, open.id, "s1", { digest: o1.digest, taskRevision: open.boundTaskRevision }, null, at(60));

    expect((await sweepDeadlines(at(599))).expired).not.toContain(silent.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: silent.id } })).status).toBe("executing");
    const results = await Promise.all(Array.from({ length: 4 }, () => sweepDeadlines(at(600))));
    expect(results.flatMap((r) => r.expired).filter((id) => id === silent.id)).toHaveLength(1);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: silent.id } })).status).toBe("expired");
    const [expiry] = await events(silent.id, "expired");
    expect(expiry.actorKind).toBe("system");
    expect(JSON.parse(JSON.stringify(expiry.data))).toMatchObject({ while: "executing", unclaimedStepIds: ["s2"] });
    expect(await events(silent.id, "expired")).toHaveLength(1);
    expect(results.flatMap((r) => r.expired)).not.toContain(open.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: open.id } })).status).toBe("executing");
  });

  it("a claim whose lease ends with no report escalates its run once, to supervisors, and is on /reconciliation from then", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75013" } });
    const steps: StepInput[] = [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75013", note: "Checking with the carrier." } }];
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, expiresInSeconds: 3600 }, `lease:${nanoid()}`, TEST_NOW);
    const s1 = run.steps.find((s) => s.id === "s1")!;
    const { claim } = await claimStep(agent, run.id, "s1", { digest: s1.digest, taskRevision: run.boundTaskRevision }, null, at(60));
    const leaseEnds = new Date(claim.leaseExpiresAt);
    const justBefore = new Date(leaseEnds.getTime() - 1000);
    expect((await sweepDeadlines(justBefore)).escalated).not.toContain(run.id);
    expect(await events(run.id, "escalated")).toHaveLength(0);
    const results = await Promise.all(Array.from({ length: 3 }, () => sweepDeadlines(leaseEnds)));
    expect(results.flatMap((r) => r.escalated).filter((id) => id === run.id)).toHaveLength(1);
    const [esc] = await events(run.id, "escalated");
    expect(JSON.parse(JSON.stringify(esc.data))).toMatchObject({ to: "supervisors", reason: "claim_lease_ended", stepId: "s1", escalateAt: leaseEnds.toISOString() });
    expect(await events(run.id, "escalated")).toHaveLength(1);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("executing");
    expect((await listNeedsReconciliation(supervisor, { now: leaseEnds })).items.find((i) => i.runId === run.id)).toMatchObject({ stepId: "s1", reason: "no_report" });
    // a later sweep does not escalate it again
    expect((await sweepDeadlines(new Date(leaseEnds.getTime() + 60_000))).escalated).not.toContain(run.id);
    expect(await events(run.id, "escalated")).toHaveLength(1);
  });

  it("the escalation queue lists a run due to escalate before any sweep recorded it, and reading it writes nothing", async () => {
    const run = await submit("75010", 3600); // escalates at +45 min
    expect((await listEscalations(supervisor, at(2699))).rows.map((r) => r.id)).not.toContain(run.id);
    const seqBefore = (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq;
    const row = (await listEscalations(supervisor, at(2750))).rows.find((r) => r.id === run.id);
    expect(row).toMatchObject({ status: "pending_review", escalateAt: at(2700).toISOString(), escalatedAt: at(2700).toISOString() });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).escalatedAt).toBeNull();
    expect((await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq).toBe(seqBefore);
    // the sweep records it at its own time; the row then says when
    await sweepDeadlines(at(2760));
    expect((await listEscalations(supervisor, at(2770))).rows.find((r) => r.id === run.id)?.escalatedAt).toBe(at(2760).toISOString());
    expect((await listEscalations(supervisor, at(3600))).rows.map((r) => r.id)).not.toContain(run.id);
  });

  it("the escalation queue is for supervisors", async () => {
    const err = await refused(listEscalations(operator, at(10)));
    expect(err.code).toBe("forbidden");
    expect(err.status).toBe(403);
  });
});

describe("expiry at decision time", () => {
  it("refuses an approval one second after expiry, though no sweep ran, and accepts one a second before", async () => {
    const late = await submit("75009", 600);
    const err = await refused(approveSteps(senior, late.id, { planVersion: 1, stepIds: "all", idempotencyKey: `k-${nanoid()}` }, at(601)));
    expect(err.code).toBe("expired");
    expect(err.status).toBe(409);
    expect(await prisma.approval.count({ where: { runId: late.id, approverId: { not: null } } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: late.id } })).status).toBe("expired"); // persisted by the refusal
    expect(await events(late.id, "expired")).toHaveLength(1);

    const inTime = await submit("75010", 600);
    const ok = await approveSteps(senior, inTime.id, { planVersion: 1, stepIds: "all", idempotencyKey: `k-${nanoid()}` }, at(599));
    expect(ok.run.status).toBe("approved");
  });

  it("gives a plan with an irreversible step the shorter policy deadline whatever the agent asks", async () => {
    const steps: StepInput[] = [
      { id: "s1", tool: "issue_refund", args: { invoiceId: "in_74804", amount: { minor: 1000, currency: "USD" }, reason: "Storage fee goodwill" } },
    ];
    const run = await submit("75018", 72 * 3600, withRequiredReasons(steps));
    expect(new Date(run.expiresAt).getTime() - TEST_NOW.getTime()).toBe(IRREVERSIBLE_EXPIRY_SECONDS * 1000);
  });
});
