/**
 * `cancel_shipment` through the services, on this file's own database: the seeded scenario of
 * ticket #75021 (cancel sh_5691, not yet dispatched) shows "sh_5691 cancelled" before approval,
 * is approved, claimed and written by the reference executor, and the audit trail puts expected
 * and actual side by side; a dispatched shipment (sh_5692) is refused with a typed issue, and a
 * shipment dispatched between approval and write is never cancelled.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { compareEffects } from "../../effects/compare";
import { describeChange } from "../../effects/preview";
import type { StepEffect } from "../../effects/schema";
import { approveSteps } from "../approvals/approve-steps";
import { getRunAudit } from "../audit/run-audit";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { applyDemoEffect } from "../demo/demo-effects";
import { DEMO_AGENT_ID } from "../demo/seed";
import { getRunDetails } from "../runs/get-run-details";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
const lines = (e: StepEffect | null | undefined) => (e && e.status === "previewed" ? e.changes.map(describeChange) : []);
let senior: Viewer;
let supervisor: Viewer;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
});

const cancelPlan = (shipmentId: string) => ({
  taskRevision: 1,
  steps: withRequiredReasons([{ id: "st_cancel", tool: "cancel_shipment", args: { shipmentId, reason: "Order withdrawn" }, rationale: "The customer withdrew the order." }]),
});

describe("cancel_shipment end to end on the reference executor", () => {
  it("the demo agent may call it and the seeded scenario previews 'sh_5691 cancelled' before approval", async () => {
    const stored = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } });
    expect(stored.allowedTools).toContain("cancel_shipment");
    const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "75021" }, idempotencyKey: "seed:cancel-75021" } });
    const d = await getRunDetails(run.id, senior, at(10));
    expect(d.run.status).toBe("pending_review");
    expect(lines(d.effects.find((e) => e.stepId === "st_cancel"))).toEqual(["sh_5691 cancelled"]);
  });

  it("approved, claimed and written: sh_5691 is cancelled and expected agrees with actual", async () => {
    const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "75021" }, idempotencyKey: "seed:cancel-75021" } });
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "cancel-all" }, at(20));
    const approved = toRunView(await loadRun(run.id), at(30));
    expect(approved.status).toBe("approved");
    for (const s of approved.steps) {
      const { claim } = await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: approved.boundTaskRevision }, null, at(40));
      const { effect } = await applyDemoEffect(agent, { runId: run.id, stepId: s.id, token: claim.token }, at(45));
      if (s.tool === "cancel_shipment") expect(effect).toMatchObject({ summary: "Cancelled sh_5691.", record: { type: "shipment", id: "sh_5691", after: { status: "cancelled" } } });
      await reportOutcome(agent, run.id, s.id, { token: claim.token, status: "succeeded" }, at(50));
    }
    expect((await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5691" } } })).status).toBe("cancelled");
    const audit = await getRunAudit(supervisor, run.id, at(60));
    const c = audit.effectComparisons.find((x) => x.stepId === "st_cancel")!;
    expect(compareEffects(c.expected, c.actual)).toEqual([{ what: "sh_5691 status", expected: "cancelled", actual: "cancelled", matches: true }]);
  });

  it("a dispatched shipment is refused at submission with a typed issue, and nothing is stored", async () => {
    const before = await prisma.run.count();
    const e = await refused(submitRun(agent, "task_75021", cancelPlan("sh_5692"), null, at(70)));
    expect(e.code).toBe("validation_failed");
    const issues = (e.details as { issues: { code: string; path?: string; stage: string }[] }).issues;
    expect(issues).toContainEqual(expect.objectContaining({ code: "shipment_dispatched", stage: "argument_bounds", path: "steps.0.args.shipmentId" }));
    expect(await prisma.run.count()).toBe(before);
    expect((await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5692" } } })).status).toBe("in_transit");
  });

  it("a shipment dispatched after the approval is never cancelled: the write fails typed and changes nothing", async () => {
    await prisma.shipment.update({ where: { desk_id: { desk: "freight", id: "sh_5690" } }, data: { status: "scheduled" } });
    const { run } = await submitRun(agent, "task_75014", { ...cancelPlan("sh_5690"), taskRevision: 1 }, null, at(80));
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "cancel-late" }, at(90));
    const approved = toRunView(await loadRun(run.id), at(95));
    const s = approved.steps[0];
    const { claim } = await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: approved.boundTaskRevision }, null, at(100));
    await prisma.shipment.update({ where: { desk_id: { desk: "freight", id: "sh_5690" } }, data: { status: "in_transit" } }); // the carrier collected it meanwhile
    const e = await refused(applyDemoEffect(agent, { runId: run.id, stepId: s.id, token: claim.token }, at(105)));
    expect(e.code).toBe("effect_failed");
    expect(e.details).toMatchObject({ reason: "dispatched", status: "in_transit" });
    expect((await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5690" } } })).status).toBe("in_transit");
  });
});
