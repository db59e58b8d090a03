/**
 * How old the local copy may be (docs/design.md "How old the local copy may be"; docs/api-extensions.md
 * "Max record age"), against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): an admin bounds the freight desk's refunds to records synced within
 * 60 minutes; a refund whose invoice was synced 3 h 12 min ago (or never) is refused at approval —
 * nothing approved — and approved once the invoice is synced; an approved refund whose invoice aged
 * past the bound is refused at claim, recorded, the run left approved, and claimed after a sync; a
 * step whose rule sets no bound is approved and claimed whatever its record's age.
 */
import { subMinutes } from "date-fns";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { gateRule } from "../../gate-policy/rules";
import type { StepInput } from "../../plan/schema";
import { daysFromNow } from "../../time/dates";
import { approveSteps } from "../approvals/approve-steps";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { loadGatePolicy } from "../gate-policy/load-gate-policy";
import { saveGatePolicy } from "../gate-policy/save-gate-policy";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";
import { claimStep } from "./claim-step";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const admin = { id: "usr_admin", role: "admin" as const };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
let supervisor: Viewer;

const refund = (minor: number): StepInput[] => [{ id: "r1", tool: "issue_refund", args: { invoiceId: "in_74102", amount: { minor, currency: "USD" }, reason: "Goodwill" } }];
const reschedule = (): StepInput[] => [{ id: "m1", tool: "reschedule_delivery", args: { shipmentId: "sh_5530", window: { from: daysFromNow(TEST_NOW, 4), to: daysFromNow(TEST_NOW, 4) }, reason: "Dock closed." } }];

async function submit(taskId: string, steps: StepInput[]): Promise<string> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  return (await submitRun(agent, taskId, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }, `fresh:${nanoid()}`, TEST_NOW)).run.id;
}
const approveAll = (runId: string, now = LATER) => approveSteps(supervisor, runId, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid() }, now);
const claim = async (runId: string, stepId: string, now: Date) => {
  const run = toRunView(await loadRun(runId), now);
  return claimStep(agent, runId, stepId, { digest: run.steps.find((s) => s.id === stepId)!.digest, taskRevision: run.boundTaskRevision }, null, now);
};
/** The records door's sync of a record, as far as this bound reads it: when Plandesk applied it. */
const syncInvoice = (syncedAt: Date | null) => prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74102" } }, data: { syncedAt, sourceUpdatedAt: syncedAt && subMinutes(syncedAt, 5), sourceVersion: 7 } });
const activeApprovals = (runId: string) => prisma.approval.count({ where: { runId, state: "active" } });

beforeAll(async () => {
  await prepareTestDatabase();
  supervisor = (await loadViewer("usr_supervisor"))!;
  // An admin bounds the freight desk's refunds: records synced within the last 60 minutes.
  const live = await loadGatePolicy(prisma);
  const seeded = live.rules.find((r) => r.tool === "issue_refund")!;
  const { id: _id, position: _p, ...base } = seeded;
  await saveGatePolicy(
    admin,
    { baseVersion: live.version, note: "Refunds decide on fresh invoices", rules: [...live.rules.map(({ id: _i, position: _q, ...r }) => r), gateRule({ ...base, desk: "freight", maxRecordAgeMinutes: 60, note: "fresh invoices only" })] },
    TEST_NOW,
  );
});

describe("max record age: a gate-policy bound on how old a step's target record may be", () => {
  it("the rule keeps its bound: saved, loaded, and shown in the requirement text", async () => {
    const rule = (await loadGatePolicy(prisma)).rules.find((r) => r.tool === "issue_refund" && r.desk === "freight");
    expect(rule).toMatchObject({ maxRecordAgeMinutes: 60 });
  });

  it("approving a refund whose invoice was synced 3 h 12 min ago is refused stale_account_data; nothing is approved", async () => {
    const runId = await submit("task_75006", refund(10000));
    // The run's step carries its bound: the card warns before anyone presses approve.
    expect(toRunView(await loadRun(runId), LATER).steps[0]).toMatchObject({ maxRecordAgeMinutes: 60 });
    await syncInvoice(subMinutes(LATER, 192));
    const err = await refused(approveAll(runId));
    expect(err.code).toBe("stale_account_data");
    expect(err.status).toBe(409);
    expect(err.details).toEqual({ stepId: "r1", record: "invoice:in_74102", syncedAt: subMinutes(LATER, 192).toISOString(), ageMinutes: 192, maxRecordAgeMinutes: 60 });
    expect(err.message).toBe("invoice in_74102 was last synced 3 h 12 min ago; this desk's policy allows 60 min for issue_refund: sync it, then approve.");
    expect(await activeApprovals(runId)).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("pending_review");

    // A record never synced is stale under a bound too.
    await syncInvoice(null);
    const never = await refused(approveAll(runId));
    expect(never.code).toBe("stale_account_data");
    expect(never.details).toMatchObject({ record: "invoice:in_74102", syncedAt: null, ageMinutes: null, maxRecordAgeMinutes: 60 });
    expect(never.message).toBe("invoice in_74102 was never synced; this desk's policy allows 60 min for issue_refund: sync it, then approve.");
    expect(await activeApprovals(runId)).toBe(0);

    // Synced: the same approval goes through.
    await syncInvoice(subMinutes(LATER, 2));
    const ok = await approveAll(runId);
    expect(ok.added).toBe(1);
    expect(ok.run.status).toBe("approved");
  });

  it("exactly the bound is still fresh; a minute past it is not", async () => {
    const runId = await submit("task_75019", refund(10000));
    await syncInvoice(subMinutes(LATER, 61));
    expect((await refused(approveAll(runId))).details).toMatchObject({ ageMinutes: 61 });
    await syncInvoice(subMinutes(LATER, 60));
    expect((await approveAll(runId)).run.status).toBe("approved");
  });

  it("claiming an approved refund whose invoice aged past the bound is refused typed and recorded; the run stays approved and is claimed after a sync", async () => {
    const runId = await submit("task_75006", refund(5000));
    await syncInvoice(LATER);
    expect((await approveAll(runId)).run.status).toBe("approved");

    const claimAt = new Date(LATER.getTime() + 90 * 60_000); // no sync for 90 minutes
    const err = await refused(claim(runId, "r1", claimAt));
    expect(err.code).toBe("stale_account_data");
    expect(err.details).toMatchObject({ stepId: "r1", record: "invoice:in_74102", syncedAt: LATER.toISOString(), ageMinutes: 90, maxRecordAgeMinutes: 60 });
    expect(err.message).toContain("invoice in_74102 was last synced 1 h 30 min ago; this desk's policy allows 60 min for issue_refund: sync it, then claim it again.");
    expect(await prisma.stepExecution.count({ where: { runId } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("approved");
    expect(await activeApprovals(runId)).toBe(1);
    const audit = await prisma.auditEvent.findFirst({ where: { runId, type: "claim_refused" }, orderBy: { seq: "desc" } });
    expect(audit?.data).toMatchObject({ stepId: "r1", code: "stale_account_data", details: { record: "invoice:in_74102", ageMinutes: 90 } });

    await syncInvoice(claimAt);
    const { claim: c } = await claim(runId, "r1", claimAt);
    expect(c.stepId).toBe("r1");
  });

  it("a step whose rule sets no bound is approved and claimed however old its record is", async () => {
    await prisma.shipment.update({ where: { desk_id: { desk: "freight", id: "sh_5530" } }, data: { syncedAt: subMinutes(LATER, 60 * 24 * 30) } });
    const runId = await submit("task_75002", reschedule());
    expect(toRunView(await loadRun(runId), LATER).steps[0].maxRecordAgeMinutes).toBeUndefined();
    expect((await approveAll(runId)).run.status).toBe("approved");
    const { claim: c } = await claim(runId, "m1", LATER);
    expect(c.stepId).toBe("m1");
  });
});
