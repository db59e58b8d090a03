/**
 * Authority holds at the moment of the write: each numbered case of the issue, then a
 * parallel race of two executors claiming refunds of different runs on one invoice.
 */
import { addDays, formatISO } from "date-fns";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { applyDemoEffect } from "../demo/demo-effects";
import { submitEdit } from "../edits/submit-edit";
import { getRunDetails } from "../runs/get-run-details";
import { loadRun } from "../plans/load-run";
import { toRunView, type RunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { reviseTask } from "../tasks/revise-task";
import { approveAllAs, concurrentAcks, editable, prepareTestDatabase, refused, TEST_NOW, withoutSignatureRules, withRequiredReasons } from "../../../testing/test-support";
import { claimStep } from "./claim-step";
import { fenceClaim } from "./fence-claim";
import { listNeedsReconciliation } from "./list-reconciliation";
import { reportOutcome } from "./report-outcome";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
const day = (n: number) => formatISO(addDays(TEST_NOW, n), { representation: "date" });
const usd = (minor: number) => ({ minor, currency: "USD" });
let supervisor: Viewer;
let senior: Viewer;

beforeAll(async () => {
  await prepareTestDatabase();
  await withoutSignatureRules(); // money in flight, not signatures: refunds above $1,500.00 approved without a passkey
  supervisor = (await loadViewer("usr_supervisor"))!;
  senior = (await loadViewer("usr_senior"))!;
});

async function submit(taskId: string, steps: StepInput[], opts: { addition?: boolean } = {}): Promise<RunView> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  return (await submitRun(agent, taskId, { taskRevision: task.revision, steps: withRequiredReasons(steps), ...opts }, `gate:${nanoid()}`, TEST_NOW)).run;
}
const view = async (runId: string) => toRunView(await loadRun(runId), LATER);
const claim = async (runId: string, stepId: string, now = LATER) => {
  const run = await view(runId);
  return claimStep(agent, runId, stepId, { digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision }, null, now);
};
const approveAll = async (runId: string, who: Viewer = supervisor, acknowledgedWarnings: { code: string; stepId: string }[] = []) =>
  approveSteps(who, runId, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid(), acknowledgedWarnings, ...(await concurrentAcks(runId)) }, LATER);

/** The reference plan of ticket #74991: note, reschedule sh_5521, reply. */
const referencePlan = (): StepInput[] => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId: "74991", note: "Driver missed the window; rebooking." } },
  { id: "s2", tool: "reschedule_delivery", args: { shipmentId: "sh_5521", window: { from: day(3), to: day(3) }, reason: "Missed window." } },
  { id: "s3", tool: "send_reply", args: { ticketId: "74991", body: "Your delivery is rebooked; we will confirm the new date in writing." } },
];

describe("1. a write after the run was stopped is fenced", () => {
  it("a token kept across a task revision writes nothing, and its late report is flagged for a person", async () => {
    const run = await submit("task_74991", referencePlan());
    await approveAll(run.id);
    const c1 = await claim(run.id, "s1");
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    const c2 = await claim(run.id, "s2"); // keep this token
    expect(c2.claim.leaseExpiresAt > LATER.toISOString()).toBe(true);
    expect(await fenceClaim(agent, c2.claim.token, {}, LATER)).toMatchObject({ holds: true, stepId: "s2" });

    await reviseTask(run.taskId, { comment: "customer called" }, { kind: "integration", id: "int_demo" });
    const windowBefore = await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5521" } } });
    const fenced = await refused(applyDemoEffect(agent, { runId: run.id, stepId: "s2", token: c2.claim.token }, LATER));
    expect(fenced.code).toBe("claim_fenced");
    expect(fenced.details).toMatchObject({ reason: "task_revised", boundRevision: 1, liveRevision: 2 });
    const windowAfter = await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5521" } } });
    expect({ from: windowAfter.windowFrom, to: windowAfter.windowTo }).toEqual({ from: windowBefore.windowFrom, to: windowBefore.windowTo });
    expect((await view(run.id)).status).toBe("stopped"); // the fence stopped the run, as a claim would

    const late = await reportOutcome(agent, run.id, "s2", { token: c2.claim.token, status: "succeeded" }, LATER);
    expect(late.run.status).toBe("stopped");
    expect(late.step).toMatchObject({ status: "succeeded", flag: "reported_after_stopped" });
    const queue = (await listNeedsReconciliation(supervisor, { now: LATER })).items;
    expect(queue.find((q) => q.runId === run.id)).toMatchObject({ stepId: "s2", reason: "flagged_report" });
  });

  it("a lapsed lease fences the write; a token of another agent is not a token", async () => {
    const run = await submit("task_75006", [{ id: "n1", tool: "add_ticket_note", args: { ticketId: "75006", note: "Window confirmed." } }]);
    const c = await claim(run.id, "n1");
    const afterLease = new Date(new Date(c.claim.leaseExpiresAt).getTime() + 1000);
    expect((await refused(fenceClaim(agent, c.claim.token, {}, afterLease))).details).toMatchObject({ reason: "lease_expired" });
    expect((await refused(applyDemoEffect(agent, { runId: run.id, stepId: "n1", token: c.claim.token }, afterLease))).code).toBe("claim_fenced");
    expect((await refused(fenceClaim({ ...agent, id: "agent_other" }, c.claim.token, {}, LATER))).code).toBe("invalid_claim_token");
  });
});

describe("2. money in flight counts", () => {
  const refund = (): StepInput[] => [{ id: "r1", tool: "issue_refund", args: { invoiceId: "in_74102", amount: usd(204500), reason: "Goodwill" } }];

  it("a second approval of $2,045 on in_74102 ($3,890 open) is refused while the first holds $2,045", async () => {
    const a = await submit("task_75006", refund());
    const b = await submit("task_75019", refund());
    await approveAll(a.id);
    const err = await refused(approveAll(b.id));
    expect(err.code).toBe("validation_failed");
    const issue = (err.details.issues as { code: string; message: string }[]).find((i) => i.code === "amount_exceeds_available")!;
    expect(issue.message).toContain(`open $3,890.00 − $2,045.00 approved in run ${a.id} = $1,845.00 available`);
  });

  it("two executors racing refunds of different runs on one invoice never authorise more than its open balance", async () => {
    // Both approved (e.g. before either approval saw the other): the earlier approval holds first.
    await prisma.approval.updateMany({ where: { targetId: "in_74102", state: "active" }, data: { state: "invalidated" } }); // earlier tests' holds
    const runs = [await submit("task_75006", refund(), { addition: true }), await submit("task_75019", refund(), { addition: true })];
    for (const r of runs) await approveAllAs(r.id, "usr_supervisor");
    const results = await Promise.allSettled(runs.map((r) => claim(r.id, "r1")));
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason.code).toBe("validation_failed");
    const claimed = await prisma.approval.aggregate({ where: { targetId: "in_74102", state: "claimed" }, _sum: { amountMinor: true } });
    expect(claimed._sum.amountMinor).toBeLessThanOrEqual(389000);
  });
});

describe("3. one task, one live plan", () => {
  it("a new run for a task supersedes the waiting one (approvals withdrawn) unless it is an addition", async () => {
    const first = await submit("task_75002", [{ id: "m1", tool: "reschedule_delivery", args: { shipmentId: "sh_5530", window: { from: day(4), to: day(4) }, reason: "Dock closed." } }]);
    await approveAll(first.id);
    const second = await submit("task_75002", [{ id: "m1", tool: "reschedule_delivery", args: { shipmentId: "sh_5530", window: { from: day(5), to: day(5) }, reason: "Dock closed two days." } }]);
    const old = await prisma.run.findUniqueOrThrow({ where: { id: first.id } });
    expect(old).toMatchObject({ status: "superseded", supersededById: second.id });
    expect(await prisma.approval.count({ where: { runId: first.id, state: "active" } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: second.id } })).supersedesId).toBe(first.id);
    expect((await refused(claim(first.id, "m1"))).code).toBe("run_not_approved");
    const third = await submit("task_75002", [{ id: "n1", tool: "add_ticket_note", args: { ticketId: "75002", note: "Also noted." } }], { addition: true });
    expect((await view(second.id)).status).toBe("pending_review");
    expect((await view(third.id)).status).toBe("approved");
  });
});

describe("4. plan order", () => {
  it("step 2 cannot be claimed before step 1 succeeded; a failed step 1 blocks it for good", async () => {
    const run = await submit("task_74991", referencePlan());
    await approveAll(run.id);
    const early = await refused(claim(run.id, "s2"));
    expect(early.code).toBe("prerequisite_pending");
    expect(early.details).toMatchObject({ stepId: "s2", prerequisiteStepId: "s1" });
    const c1 = await claim(run.id, "s1");
    expect((await refused(claim(run.id, "s2"))).details).toMatchObject({ prerequisiteStatus: "claimed" });
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "failed" }, LATER);
    // The run failed; a claim refuses it as such (nothing runs after a failed step).
    expect((await refused(claim(run.id, "s2"))).code).toBe("run_not_approved");
  });

  it("declared dependencies replace the default and must name earlier steps", async () => {
    const steps = referencePlan();
    steps[2].dependsOn = ["s1"]; // the reply needs only the note
    const run = await submit("task_74991", steps);
    await approveAll(run.id);
    const c1 = await claim(run.id, "s1");
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    expect((await claim(run.id, "s3")).claim.stepId).toBe("s3"); // before s2
    const bad = referencePlan();
    bad[0].dependsOn = ["s3"];
    const err = await refused(submit("task_74991", bad));
    expect((err.details.issues as { code: string }[]).map((i) => i.code)).toContain("invalid_dependency");
  });
});

describe("5. promises match approvals", () => {
  const plan = (): StepInput[] => [
    { id: "r1", tool: "issue_refund", args: { invoiceId: "in_74403", amount: usd(106000), reason: "Missed delivery" } },
    { id: "m1", tool: "send_reply", args: { ticketId: "75004", body: "We have refunded $1,060.00 for the missed delivery." } },
  ];

  it("approving the reply alone needs an acknowledgement that names the unapproved refund backing it", async () => {
    const operator = (await loadViewer("usr_operator"))!; // approves refunds up to $500.00: not this one
    const run = await submit("task_75004", plan());
    const page = await getRunDetails(run.id, operator, LATER);
    const shown = page.validation.issues.find((i) => i.stepId === "m1" && i.details?.backedBy);
    expect(shown).toMatchObject({ code: "unbacked_commitment", needsAcknowledgement: true, details: { backedBy: ["r1"] } });
    expect(shown!.message).toContain("step 1 (issue_refund)");

    const approveReply = (acks: { code: string; stepId: string }[]) =>
      approveSteps(operator, run.id, { planVersion: 1, stepIds: ["m1"], idempotencyKey: nanoid(), acknowledgedWarnings: acks }, LATER);
    const err = await refused(approveReply([]));
    expect(err.code).toBe("acknowledgement_required");
    expect(err.details.required).toEqual([expect.objectContaining({ code: "unbacked_commitment", stepId: "m1" })]);
    expect(err.message).toContain("$1,060.00");
    const ok = await approveReply([{ code: "unbacked_commitment", stepId: "m1" }]);
    expect(ok.run.steps.find((s) => s.id === "m1")!.approval).toMatchObject({ state: "active" });
    const stored = await prisma.approval.findFirstOrThrow({ where: { runId: run.id, stepId: "m1", state: "active" } });
    expect(stored.acknowledged).toEqual([{ code: "unbacked_commitment", stepId: "m1" }]);
    // once the refund is approved too, the page no longer asks
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: ["r1"], idempotencyKey: nanoid() }, LATER);
    const after = await getRunDetails(run.id, operator, LATER);
    expect(after.validation.issues.filter((i) => i.details?.backedBy)).toEqual([]);
  });

  it("approving the reply with the refund it promises needs no acknowledgement", async () => {
    // this run supersedes the one above, whose approved $1,060 of in_74403's $1,200 no longer counts
    const run = await submit("task_75004", plan());
    const ok = await approveSteps(senior, run.id, { planVersion: 1, stepIds: ["r1", "m1"], idempotencyKey: nanoid() }, LATER);
    expect(ok.run.status).toBe("approved");
  });
});

describe("6. edits refuse a run whose task moved", () => {
  it("409 stale_task, as approvals and claims do", async () => {
    const run = await submit("task_75004", [{ id: "e1", tool: "send_reply", args: { ticketId: "75004", body: "Noted your new contact." } }]);
    await reviseTask(run.taskId, { comment: "the contact changed again" }, { kind: "integration", id: "int_demo" });
    const steps = editable(run.steps);
    steps[0].args.body = "Noted your new contact, thank you.";
    const err = await refused(submitEdit(senior, run.id, { baseVersion: 1, steps }, LATER));
    expect(err.code).toBe("stale_task");
    expect(err.details).toMatchObject({ boundRevision: 1, liveRevision: 2 });
  });
});

describe("7. executedStepIds lists steps that succeeded; claimed ones apart", () => {
  it("a claimed-but-unreported step is not 'executed'", async () => {
    const steps = referencePlan();
    steps[1].dependsOn = [];
    const run = await submit("task_74991", steps);
    await approveAll(run.id);
    const c1 = await claim(run.id, "s1");
    await reportOutcome(agent, run.id, "s1", { token: c1.claim.token, status: "succeeded" }, LATER);
    await claim(run.id, "s2"); // not reported
    await reviseTask(run.taskId, { comment: "new acceptance note" }, { kind: "integration", id: "int_demo" });
    const err = await refused(claim(run.id, "s3"));
    expect(err.code).toBe("stopped_stale_task");
    expect(err.details).toMatchObject({ executedStepIds: ["s1"], claimedStepIds: ["s2"], blockedStepId: "s3" });
  });
});

describe("8. provenance is checked, not displayed on trust", () => {
  it("a source record that does not exist, or a quote not in the task, refuses the agent's plan: provenance_mismatch", async () => {
    const err = await refused(
      submit("task_74991", [
        {
          id: "p1",
          tool: "reschedule_delivery",
          args: { shipmentId: "sh_5521", window: { from: day(3), to: day(3) }, reason: "Missed window." },
          provenance: { window: { kind: "source", recordType: "shipment", recordId: "sh_DOES_NOT_EXIST" }, reason: { kind: "user_literal", quote: "the customer asked for Tuesday" } },
        },
        { id: "p2", tool: "add_ticket_note", args: { ticketId: "74991", note: "x" }, provenance: { ticketId: { kind: "source", recordType: "ticket", recordId: "74991" } } },
      ]),
    );
    expect(err.code).toBe("validation_failed");
    const issues = (err.details as { issues: { code: string; severity: string; path: string; message: string }[] }).issues.filter((i) => i.code === "provenance_mismatch");
    expect(issues.map((i) => [i.path, i.severity]).sort()).toEqual([
      ["steps.0.provenance.reason", "error"],
      ["steps.0.provenance.window", "error"],
    ]);
    expect(issues.find((i) => i.path.endsWith("window"))!.message).toContain("shipment sh_DOES_NOT_EXIST is not found on this desk");
    expect(issues.find((i) => i.path.endsWith("reason"))!.message).toContain("the quote does not occur in the task text");
  });

  it("an edit never relabels the origin of an argument it did not change", async () => {
    const run = await submit("task_74991", [{ id: "r1", tool: "send_reply", args: { ticketId: "74991", body: "We are on it." }, provenance: { body: { kind: "model" } } }]);
    const steps = editable(run.steps);
    steps[0].args.body = "We are on it and will confirm the date.";
    const edited = await submitEdit(senior, run.id, { baseVersion: 1, steps }, LATER);
    const prov = edited.planVersion.steps[0].provenance;
    expect(prov.body).toMatchObject({ kind: "operator", userId: "usr_senior", previous: "We are on it." });
    expect(prov).not.toHaveProperty("ticketId"); // it had no stated origin, and still has none
  });
});
