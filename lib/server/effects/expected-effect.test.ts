/**
 * The effects preview through the services, on this file's own database: the
 * reference run of ticket #74991 edited (date +4 days, refund of 1,489.00 against in_74119),
 * previewed on the run details, approved — each approval stores the effect its approver saw,
 * and so does its audit event — then executed by the reference executor, and the audit trail
 * puts expected and actual side by side.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { compareEffects } from "../../effects/compare";
import { describeChange } from "../../effects/preview";
import { stepEffectSchema, type StepEffect } from "../../effects/schema";
import { approveSteps } from "../approvals/approve-steps";
import { getRunAudit } from "../audit/run-audit";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { applyDemoEffect } from "../demo/demo-effects";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { readJsonColumn } from "../db/json-column";
import { getRunDetails } from "../runs/get-run-details";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, referenceEdit, TEST_NOW } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
const lines = (e: StepEffect | null | undefined) => (e && e.status === "previewed" ? e.changes.map(describeChange) : []);
let senior: Viewer;
let supervisor: Viewer;
let runId: string;
let refundStepId: string;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "74991" }, idempotencyKey: { startsWith: "seed:" } } });
  runId = run.id;
  const v1 = toRunView(await loadRun(run.id), TEST_NOW);
  const edit = await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(v1.steps) }, at(60));
  refundStepId = edit.diff.added[0].id;
});

describe("effects preview of the reference case", () => {
  it("the run details show in_74119 going from $2,120.00 to $631.00 open and sh_5521's new window, before approval", async () => {
    const d = await getRunDetails(runId, senior, at(90));
    expect(d.run.status).toBe("pending_review");
    const all = d.effects.flatMap(lines);
    expect(all).toContain("in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00");
    expect(all.some((l) => /^sh_5521 window .+ → Wed 8 Apr 2026$/.test(l))).toBe(true);
    expect(d.effects.map((e) => e.stepId)).toEqual(d.run.steps.map((s) => s.id));
  });

  it("each approval stores the expected effect its approver saw, and its audit event carries it", async () => {
    await approveSteps(
      senior,
      runId,
      { planVersion: 2, stepIds: "all", idempotencyKey: "effects-all", acknowledgedWarnings: [{ code: "cross_account_target", stepId: refundStepId }, { code: "evidence_unrelated", stepId: refundStepId }] },
      at(120),
    );
    const approval = await prisma.approval.findFirstOrThrow({ where: { runId, stepId: refundStepId, state: "active" } });
    const stored = readJsonColumn(stepEffectSchema, approval.expectedEffect, "expected effect");
    expect(lines(stored)).toEqual(["in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00"]);
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { runId, type: "approved" }, orderBy: { seq: "desc" } });
    const data = event.data as { stepId: string; expectedEffect: unknown };
    expect(stepEffectSchema.safeParse(data.expectedEffect).success).toBe(true);
    expect((data.expectedEffect as StepEffect).stepId).toBe(data.stepId);
  });

  it("after the reference executor wrote the steps, the audit trail shows expected vs actual, and they agree", async () => {
    const approved = toRunView(await loadRun(runId), at(200));
    expect(approved.status).toBe("approved");
    for (const s of approved.steps) {
      const { claim } = await claimStep(agent, runId, s.id, { digest: s.digest, taskRevision: approved.boundTaskRevision }, null, at(240));
      await applyDemoEffect(agent, { runId, stepId: s.id, token: claim.token }, at(245));
      await reportOutcome(agent, runId, s.id, { token: claim.token, status: "succeeded" }, at(250));
    }
    const audit = await getRunAudit(supervisor, runId, at(300));
    expect(audit.effectComparisons).toHaveLength(4);
    const refund = audit.effectComparisons.find((c) => c.stepId === refundStepId)!;
    expect(compareEffects(refund.expected, refund.actual)).toEqual([{ what: "in_74119 open balance", expected: "$631.00", actual: "$631.00", matches: true }]);
    const reschedule = audit.effectComparisons.find((c) => c.stepId === approved.steps.find((s) => s.tool === "reschedule_delivery")!.id)!;
    expect(compareEffects(reschedule.expected, reschedule.actual)).toEqual([{ what: "sh_5521 window", expected: "Wed 8 Apr 2026", actual: "Wed 8 Apr 2026", matches: true }]);
    // the policy-approved note stored its preview too; the executor only records it (no account record to compare)
    const note = audit.effectComparisons.find((c) => c.stepId === approved.steps.find((s) => s.tool === "add_ticket_note")!.id)!;
    expect(compareEffects(note.expected, note.actual)).toEqual([
      { what: "Internal note on ticket 74991 (the customer does not see it)", expected: expect.stringMatching(/^“.*sh_5521.*”$/), actual: "Recorded an internal note on ticket 74991.", matches: null },
    ]);
  });

  it("an approval without a stored preview says so, never invents one", () => {
    expect(compareEffects(null, { summary: "Refunded", record: null })).toEqual([{ what: "Effect", expected: "No preview was stored with this approval", actual: "Refunded", matches: null }]);
  });

  it("an actual write that differs from the expectation is flagged", () => {
    const expected: StepEffect = {
      status: "previewed",
      stepId: "x",
      position: 1,
      tool: "issue_refund",
      changes: [{ kind: "invoice_balance", invoiceId: "in_74119", before: { minor: 212000, currency: "USD" }, after: { minor: 63100, currency: "USD" } }],
      customerTold: [],
    };
    const actual = { summary: "Refunded", record: { type: "invoice", id: "in_74119", before: { openMinor: 200000 }, after: { openMinor: 51100 } } };
    expect(compareEffects(expected, actual)).toEqual([{ what: "in_74119 open balance", expected: "$631.00", actual: "$511.00", matches: false }]);
  });
});
