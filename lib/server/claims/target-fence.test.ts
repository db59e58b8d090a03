/**
 * The moment of the write against a local copy (docs/design.md "The moment of the write"): the
 * approval records the source versions it saw, the claim lists them, the fence refuses a target
 * that moved (`target_changed`, the run stops), and a succeeded write's amount holds until a
 * synced version shows it — never approvable twice, never counted twice.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { applyDemoEffect } from "../demo/demo-effects";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { loadHolds } from "../account-data/load-account-snapshot";
import { DEFAULT_DESK } from "../../desk/desks";
import { releaseSyncHolds } from "../records/sync-holds";
import { concurrentAcks, prepareTestDatabase, refused, TEST_NOW, withoutSignatureRules, withRequiredReasons } from "../../../testing/test-support";
import { recordVersionsSeen } from "../approvals/approval-columns";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { claimStep } from "./claim-step";
import { fenceClaim } from "./fence-claim";
import { reportOutcome } from "./report-outcome";
import { reconcileStep } from "./reconcile-step";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
const usd = (minor: number) => ({ minor, currency: "USD" });
const INVOICE = "in_74102"; // $3,890.00 open in the demo data
let supervisor: Viewer;

beforeAll(async () => {
  await prepareTestDatabase();
  await withoutSignatureRules(); // money in flight, not signatures: refunds above $1,500.00 approved without a passkey
  supervisor = (await loadViewer("usr_supervisor"))!;
});

async function submit(taskId: string, steps: StepInput[]) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  return (await submitRun(agent, taskId, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }, `tf:${nanoid()}`, TEST_NOW)).run;
}
const approveAll = async (runId: string) => approveSteps(supervisor, runId, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid(), acknowledgedWarnings: [], ...(await concurrentAcks(runId)) }, LATER);
const claim = async (runId: string, stepId: string) => {
  const run = toRunView(await loadRun(runId), LATER);
  return claimStep(agent, runId, stepId, { digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision }, null, LATER);
};
const refund = (minor: number, id = "r1"): StepInput => ({ id, tool: "issue_refund", args: { invoiceId: INVOICE, amount: usd(minor), reason: "Goodwill" } });

/** The records door applying a version of the invoice: the row and the holds it ends, in one transaction (as lib/server/records does). */
async function syncInvoice(openMinor: number, sourceVersion: number, sourceUpdatedAt: Date): Promise<number> {
  return prisma.$transaction(async (tx) => {
    await tx.invoice.update({ where: { desk_id: { desk: "freight", id: INVOICE } }, data: { openMinor, sourceVersion: BigInt(sourceVersion), sourceUpdatedAt, syncedAt: sourceUpdatedAt } });
    return releaseSyncHolds(tx, "invoice", INVOICE, BigInt(sourceVersion), sourceUpdatedAt, "freight");
  });
}
/** Earlier tests' approvals on the invoice no longer hold; the invoice is at `openMinor`, version `v`. */
async function freshInvoice(openMinor: number, v: number) {
  await prisma.approval.updateMany({ where: { targetId: INVOICE, state: { in: ["active", "claimed"] } }, data: { state: "invalidated" } });
  await prisma.approval.updateMany({ where: { targetId: INVOICE }, data: { holdOpen: false } });
  await syncInvoice(openMinor, v, TEST_NOW);
}
const heldOn = async (now = LATER) => (await loadHolds(prisma, [INVOICE], now, undefined, DEFAULT_DESK))[INVOICE] ?? [];

describe("the approval records what it saw; the fence compares it with the live target", () => {
  it("the claim lists the approved record versions; the same version passes, an unknown key is ignored", async () => {
    await freshInvoice(389000, 8);
    const run = await submit("task_75006", [refund(10000)]);
    await approveAll(run.id);
    const approval = await prisma.approval.findFirstOrThrow({ where: { runId: run.id, stepId: "r1" } });
    expect(approval.recordVersions).toEqual({ [`invoice:${INVOICE}`]: 8 });
    const c = await claim(run.id, "r1");
    expect(c.claim.recordVersions).toEqual({ [`invoice:${INVOICE}`]: 8 });
    expect(await fenceClaim(agent, c.claim.token, { targetVersions: { [`invoice:${INVOICE}`]: 8, "invoice:in_never_seen": 3 } }, LATER)).toMatchObject({ holds: true, stepId: "r1" });
    expect(await fenceClaim(agent, c.claim.token, {}, LATER)).toMatchObject({ holds: true });
  });

  it("a live version that moved is refused target_changed: nothing may be written, the run stops typed and audited", async () => {
    await freshInvoice(389000, 8);
    const run = await submit("task_75006", [refund(10000)]);
    await approveAll(run.id);
    const c = await claim(run.id, "r1");
    const err = await refused(fenceClaim(agent, c.claim.token, { targetVersions: { [`invoice:${INVOICE}`]: 9 } }, LATER));
    expect(err.code).toBe("target_changed");
    expect(err.status).toBe(409);
    expect(err.details).toMatchObject({ record: `invoice:${INVOICE}`, approvedVersion: 8, liveVersion: 9, runId: run.id, stepId: "r1" });
    const stopped = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopReason).toMatchObject({ code: "target_changed", stepId: "r1", record: `invoice:${INVOICE}`, approvedVersion: 8, liveVersion: 9 });
    const types = (await prisma.auditEvent.findMany({ where: { runId: run.id }, select: { type: true, data: true } })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["fenced", "stopped_target_changed"]));
    // The token holds no more: the demo executor's write is fenced too, and writes nothing.
    expect((await refused(applyDemoEffect(agent, { runId: run.id, stepId: "r1", token: c.claim.token }, LATER))).code).toBe("claim_fenced");
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: INVOICE } } })).openMinor).toBe(389000);
    // The executor's "not written" report is recorded for a person (the run had stopped).
    const late = await reportOutcome(agent, run.id, "r1", { token: c.claim.token, status: "failed", detail: "not written: target_changed" }, LATER);
    expect(late.step.flag).toBe("reported_after_stopped");
  });

  it("the demo executor writes like a system of record (version + 1) and a later step of the run on the same record passes its fence", async () => {
    await freshInvoice(389000, 8);
    const run = await submit("task_75006", [refund(10000, "r1"), refund(20000, "r2")]);
    await approveAll(run.id);
    const c1 = await claim(run.id, "r1");
    const e1 = await applyDemoEffect(agent, { runId: run.id, stepId: "r1", token: c1.claim.token }, LATER);
    expect(e1.effect.targetVersions).toEqual({ [`invoice:${INVOICE}`]: 9 });
    const inv = await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: INVOICE } } });
    expect({ open: inv.openMinor, v: Number(inv.sourceVersion), at: inv.sourceUpdatedAt?.toISOString(), synced: inv.syncedAt?.toISOString() }).toEqual({ open: 379000, v: 9, at: LATER.toISOString(), synced: LATER.toISOString() });
    await reportOutcome(agent, run.id, "r1", { token: c1.claim.token, status: "succeeded", targetVersions: e1.effect.targetVersions }, LATER);
    // The local copy already shows the write: no hold is left waiting for a sync.
    expect((await heldOn()).filter((h) => h.state === "written")).toEqual([]);
    const c2 = await claim(run.id, "r2");
    expect(c2.claim.recordVersions).toEqual({ [`invoice:${INVOICE}`]: 9 });
    const e2 = await applyDemoEffect(agent, { runId: run.id, stepId: "r2", token: c2.claim.token }, LATER);
    expect(e2.effect.targetVersions).toEqual({ [`invoice:${INVOICE}`]: 10 });
    const done = await reportOutcome(agent, run.id, "r2", { token: c2.claim.token, status: "succeeded", targetVersions: e2.effect.targetVersions }, LATER);
    expect(done.run.status).toBe("completed");
    expect(await heldOn()).toEqual([]);
  });
});

describe("what every approval records (a person's, the policy's, a carried one: one function)", () => {
  it("the source versions of the records the step's arguments name, from the snapshot of the decision; pre-door records left out", async () => {
    await freshInvoice(389000, 41);
    await prisma.shipment.update({ where: { desk_id: { desk: "freight", id: "sh_5521" } }, data: { sourceVersion: null } });
    const steps = [refund(1000), { id: "m1", tool: "reschedule_delivery", args: { shipmentId: "sh_5521", window: { from: "2027-01-05", to: "2027-01-05" }, reason: "x" } }];
    const ticketId = (await prisma.task.findUniqueOrThrow({ where: { id: "task_75006" } })).ticketId;
    const desk = await loadAccountSnapshot({ ticketId, desk: DEFAULT_DESK, steps, now: LATER });
    expect(recordVersionsSeen(steps[0], desk)).toEqual({ [`invoice:${INVOICE}`]: 41 });
    expect(recordVersionsSeen(steps[1], desk)).toEqual({});
    await prisma.shipment.update({ where: { desk_id: { desk: "freight", id: "sh_5521" } }, data: { sourceVersion: BigInt(3) } });
    expect(recordVersionsSeen(steps[1], await loadAccountSnapshot({ ticketId, desk: DEFAULT_DESK, steps, now: LATER }))).toEqual({ "shipment:sh_5521": 3 });
  });
});

describe("money in flight across sync", () => {
  it("approve → claim → succeeded holds the written amount until the synced balance shows it: never approvable twice, never counted twice", async () => {
    await freshInvoice(389000, 8);
    const a = await submit("task_75006", [refund(100000)]);
    await approveAll(a.id);
    const c = await claim(a.id, "r1");
    const reported = await reportOutcome(agent, a.id, "r1", { token: c.claim.token, status: "succeeded", targetVersions: { [`invoice:${INVOICE}`]: 9 } }, LATER);
    expect(reported.run.status).toBe("completed");
    const approval = await prisma.approval.findFirstOrThrow({ where: { runId: a.id } });
    expect({ state: approval.state, open: approval.holdOpen, until: approval.holdUntilVersion, since: approval.holdSince?.toISOString() }).toEqual({ state: "consumed", open: true, until: BigInt(9), since: LATER.toISOString() });
    expect(await heldOn()).toMatchObject([{ runId: a.id, state: "written", amount: usd(100000) }]);

    // The local copy still says $3,890.00: the $1,000.00 written is not available again.
    const err = await refused(submit("task_75019", [refund(300000)]));
    const issue = (err.details.issues as { code: string; message: string }[]).find((i) => i.code === "amount_exceeds_available")!;
    expect(issue.message).toContain(`open $3,890.00 − $1,000.00 written, not yet in the synced balance in run ${a.id} = $2,890.00 available`);

    // An older version synced meanwhile does not end the hold; the reported one does, with the lower balance.
    expect(await syncInvoice(389000, 8, LATER)).toBe(0);
    expect(await heldOn()).toHaveLength(1);
    expect(await syncInvoice(289000, 9, LATER)).toBe(1);
    expect(await heldOn()).toEqual([]);
    // Counted once: $2,890.00 is available now (the hold would make it $1,890.00).
    const d = await submit("task_75019", [refund(289000)]);
    await approveAll(d.id);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: d.id } })).status).toBe("approved");
  });

  it("no version reported: the hold ends with the first version the source changed at or after the report", async () => {
    await freshInvoice(389000, 20);
    const a = await submit("task_75006", [refund(50000)]);
    await approveAll(a.id);
    const c = await claim(a.id, "r1");
    await reportOutcome(agent, a.id, "r1", { token: c.claim.token, status: "succeeded" }, LATER);
    expect((await prisma.approval.findFirstOrThrow({ where: { runId: a.id } })).holdUntilVersion).toBeNull();
    expect(await heldOn()).toMatchObject([{ runId: a.id, state: "written" }]);
    expect(await syncInvoice(389000, 21, TEST_NOW)).toBe(0); // changed at the source before the report
    expect(await heldOn()).toHaveLength(1);
    expect(await syncInvoice(339000, 22, new Date(LATER.getTime() + 1000))).toBe(1);
    expect(await heldOn()).toEqual([]);
  });

  it("failed holds nothing; unknown keeps holding as claimed", async () => {
    await freshInvoice(389000, 30);
    const f = await submit("task_75006", [refund(40000)]);
    await approveAll(f.id);
    const cf = await claim(f.id, "r1");
    await reportOutcome(agent, f.id, "r1", { token: cf.claim.token, status: "failed", targetVersions: { [`invoice:${INVOICE}`]: 31 } }, LATER);
    expect(await heldOn()).toEqual([]);
    const u = await submit("task_75006", [refund(40000)]);
    await approveAll(u.id);
    const cu = await claim(u.id, "r1");
    await reportOutcome(agent, u.id, "r1", { token: cu.claim.token, status: "unknown" }, LATER);
    expect(await heldOn()).toMatchObject([{ runId: u.id, state: "claimed" }]);
  });
  it("the write comes before its report: a version changed after the claim but before a late report ends the hold", async () => {
    await freshInvoice(389000, 40);
    const a = await submit("task_75006", [refund(50000)]);
    await approveAll(a.id);
    const c = await claim(a.id, "r1"); // claimed at LATER
    const lateReport = new Date(LATER.getTime() + 30_000); // within the lease
    await reportOutcome(agent, a.id, "r1", { token: c.claim.token, status: "succeeded" }, lateReport);
    expect(await heldOn(lateReport)).toMatchObject([{ runId: a.id, state: "written" }]);
    // the source booked the refund 5 s after the claim, before the executor got round to reporting it
    expect(await syncInvoice(339000, 41, new Date(LATER.getTime() + 5000))).toBe(1);
    expect(await heldOn(lateReport)).toEqual([]);
  });

  it("a reported version not newer than the one approved is not the write's: the amount holds until a later version shows it", async () => {
    await freshInvoice(389000, 50);
    const a = await submit("task_75006", [refund(50000)]);
    await approveAll(a.id);
    const c = await claim(a.id, "r1");
    expect(c.claim.recordVersions).toEqual({ [`invoice:${INVOICE}`]: 50 });
    // the executor sends back the version it read before writing (50), not the one its write made
    await reportOutcome(agent, a.id, "r1", { token: c.claim.token, status: "succeeded", targetVersions: { [`invoice:${INVOICE}`]: 50 } }, LATER);
    expect(await heldOn()).toMatchObject([{ runId: a.id, state: "written" }]);
    expect((await prisma.approval.findFirstOrThrow({ where: { runId: a.id } })).holdUntilVersion).toBeNull();
    expect(await syncInvoice(339000, 51, new Date(LATER.getTime() + 1000))).toBe(1);
    expect(await heldOn()).toEqual([]);
  });

  it("a supervisor's reconciliation 'succeeded' of an unknown outcome holds the amount like a report, until the sync", async () => {
    await freshInvoice(389000, 60);
    const a = await submit("task_75006", [refund(70000)]);
    await approveAll(a.id);
    const c = await claim(a.id, "r1");
    await reportOutcome(agent, a.id, "r1", { token: c.claim.token, status: "unknown" }, LATER);
    await reconcileStep(supervisor, a.id, "r1", { resolution: "succeeded", note: "The billing system shows the refund." }, new Date(LATER.getTime() + 1000));
    expect(await heldOn()).toMatchObject([{ runId: a.id, state: "written", amount: { minor: 70000 } }]);
    // never approvable twice: 389,000 − 70,000 held leaves 319,000
    const err = await refused(submit("task_75006", [refund(319001)]));
    expect(err.code).toBe("validation_failed");
    expect(await syncInvoice(319000, 61, new Date(LATER.getTime() + 2000))).toBe(1);
    expect(await heldOn()).toEqual([]);
  });
});
