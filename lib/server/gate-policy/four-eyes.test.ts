/**
 * Gate policy as data and four eyes against this file's own database (SQLite, or
 * PostgreSQL with PLANDESK_TEST_DB=postgres): the seeded version 1 is today's policy; an admin
 * saves a version that needs two approvers for refunds of $1,000 and more (below the demo desk's
 * signed band of $1,500.00 and more, whose more specific rule keeps governing); a senior's own $1,400
 * refund then needs a second person; the claim needs the full set; an edit invalidates both; a
 * rule that excludes authors refuses the author; parallel approvals never exceed the set.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { gateRule, type GateRuleInput } from "../../gate-policy/rules";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { concurrentAcks, editable, prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { dryRunGatePolicy } from "../plan-check/dry-run-gate-policy";
import { getGatePolicyForAdmin } from "./list-gate-policy";
import { liveGatePolicyVersion, loadGatePolicy } from "./load-gate-policy";
import { saveGatePolicy } from "./save-gate-policy";
import { getRunOwnership } from "../ownership/get-run-ownership";
import { queueRowOwnership } from "../ownership/queue-filters";
import { acceptSuggestion, suggestStep } from "../ownership/suggest-step";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const admin = { id: "usr_admin", role: "admin" as const };
let senior: Viewer;
let supervisor: Viewer;
let senior2: Viewer;

const rule = gateRule;

/** The live rules as a draft, plus `extra`. */
async function liveWith(...extra: GateRuleInput[]) {
  const live = await loadGatePolicy(prisma);
  return { baseVersion: live.version, rules: [...live.rules.map(({ id: _i, position: _p, ...r }) => r), ...extra] };
}

async function submitReply(ticketId: string) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const steps: StepInput[] = [{ id: "st_reply", tool: "send_reply", args: { ticketId, body: "Thanks, we are looking into it and will write again today." } }];
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW);
  return run;
}

/** The senior adds a refund of `minor` on `invoiceId` to the run (an edit: the senior is its author). */
async function addRefund(runId: string, invoiceId: string, minor: number, who: Viewer = senior) {
  const run = toRunView(await loadRun(runId), TEST_NOW);
  const steps = editable(run.steps as never);
  steps.push({ id: "new", tool: "issue_refund", args: { invoiceId, amount: { minor, currency: "USD" }, reason: "Goodwill for the delay" }, provenance: {}, author: { kind: "model" } });
  const res = await submitEdit(who, runId, { baseVersion: run.planVersion, steps }, TEST_NOW);
  return { version: res.planVersion.version, refundId: res.planVersion.steps.find((s) => s.tool === "issue_refund")!.id };
}

const view = async (runId: string) => toRunView(await loadRun(runId), TEST_NOW);

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  await prisma.user.create({
    data: {
      id: "usr_senior2",
      email: "senior2@plandesk.test",
      name: "Sasha Second",
      role: "operator",
      grants: { create: [{ id: "g_s2_refund", tool: "issue_refund", canApprove: true, approveLimitMinor: 500000, approveLimitCurrency: "USD", canAuthor: false }] },
    },
  });
  senior2 = (await loadViewer("usr_senior2"))!;
});

describe("gate policy as data", () => {
  it("the demo desk seeds today's policy as version 1: one rule per built-in tool, internal tools auto", async () => {
    const live = await loadGatePolicy(prisma);
    expect(live.version).toBe(1);
    expect(live.rules.find((r) => r.tool === "add_ticket_note")?.decision).toBe("auto");
    expect(live.rules.find((r) => r.tool === "issue_refund")).toMatchObject({ decision: "one", authorMayApprove: true });
    const seeded = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: "seed:ref-74991" } });
    expect(seeded.policyVersion).toBe(1);
  });

  it("a dry-run lists the runs a draft would gate differently and saves nothing", async () => {
    const draft = await liveWith(rule({ tool: "issue_refund", minAmountMinor: 100000, decision: "two" }));
    const res = await dryRunGatePolicy(admin, { rules: draft.rules, lastRuns: 50 });
    expect(res.liveVersion).toBe(1);
    expect(res.runsExamined).toBeGreaterThan(0);
    const changedRefunds = res.changed.flatMap((c) => c.steps).filter((s) => s.tool === "issue_refund");
    const damaged = changedRefunds.find((s) => s.amount?.minor === 106000);
    expect(damaged).toMatchObject({ before: "1 approver · requires title, evidence, risk, stop condition", after: "2 approvers" });
    // the $4,199.00 duplicate refund stays under the seeded signed rule (more specific: tool and amount band)
    expect(changedRefunds.some((s) => s.amount?.minor === 419900)).toBe(false);
    expect(res.changed.flatMap((c) => c.steps).some((s) => s.tool === "send_reply")).toBe(false);
    expect(await liveGatePolicyVersion(prisma)).toBe(1);
    expect((await refused(dryRunGatePolicy({ id: "usr_senior", role: "operator" }, { rules: [], lastRuns: 5 }))).code).toBe("forbidden");
  });

  it("a dry-run shows a draft that changes only what a rule requires: fields, the date horizon; the outside-contract choice only where a step is outside the contract", async () => {
    const live = await liveWith();
    const refundRule = live.rules.findIndex((r) => r.tool === "issue_refund");
    const replyRule = live.rules.findIndex((r) => r.tool === "send_reply");
    const rules = live.rules.map((r, i) => (i === refundRule ? { ...r, requiredFields: ["title" as const] } : i === replyRule ? { ...r, allowOutsideContract: "supervisor" as const, dateHorizonDays: 30 } : r));
    const res = await dryRunGatePolicy(admin, { rules, lastRuns: 50 });
    const steps = res.changed.flatMap((c) => c.steps);
    expect(steps.find((s) => s.tool === "issue_refund")).toMatchObject({ before: "1 approver · requires title, evidence, risk, stop condition", after: "1 approver · requires title" });
    // Every reply of these runs is inside its task's contract: letting a supervisor decide steps outside it changes nothing the gate does.
    expect(steps.find((s) => s.tool === "send_reply")).toMatchObject({ before: "1 approver", after: "1 approver · horizon 30 days" });
    expect(steps.some((s) => s.tool === "add_ticket_note")).toBe(false);
  });

  it("saving writes version 2 with all rules, audited with who, before and after; a stale base is 409", async () => {
    const draft = await liveWith(rule({ tool: "issue_refund", minAmountMinor: 100000, decision: "two", dateHorizonDays: 45, note: "Refunds of $1,000 and more need two approvers" }));
    const saved = await saveGatePolicy(admin, { ...draft, note: "Four eyes on large refunds" });
    expect(saved.version).toBe(2);
    expect(saved.rules).toHaveLength(draft.rules.length);
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(event.actorId).toBe("usr_admin");
    const data = event.data as { what: string; before: { version: number; rules: unknown[] }; after: { version: number; rules: GateRuleInput[] } };
    expect(data.what).toBe("gate_policy.save");
    expect(data.before.version).toBe(1);
    expect(data.after.version).toBe(2);
    expect(data.after.rules.at(-1)).toMatchObject({ decision: "two", minAmountMinor: 100000 });
    expect((await loadGatePolicy(prisma)).rules.at(-1)).toMatchObject({ decision: "two", dateHorizonDays: 45, requiredFields: [] });
    const stale = await refused(saveGatePolicy(admin, { ...draft, note: "again" }));
    expect(stale.code).toBe("stale_policy_version");
    expect(stale.status).toBe(409);
    const listed = await getGatePolicyForAdmin(admin);
    expect(listed.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(listed.versions[0].createdBy?.name).toBe("Adam Admin");
  });

  it("a run gated under version 1 keeps it: the change does not alter decisions already made", async () => {
    const seeded = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: "seed:dup-74993" } });
    expect(seeded.policyVersion).toBe(1);
    const refund = (await view(seeded.id)).steps.find((s) => s.tool === "issue_refund")!;
    expect(refund.approvals).toMatchObject({ required: 1, policyVersion: 1 });
  });
});

describe("four eyes", () => {
  it("a senior's own $1,400 refund needs a second person; the claim succeeds only with both approvals", async () => {
    const run = await submitReply("75003");
    const { version, refundId } = await addRefund(run.id, "in_74201", 140000);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).policyVersion).toBe(2);

    const first = await approveSteps(senior, run.id, { planVersion: version, stepIds: "all", idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect(first.run.status).toBe("pending_review");
    expect(first.run.steps.find((s) => s.id === refundId)!.approvals).toMatchObject({ required: 2, given: 1, approverIds: ["usr_senior"], policyVersion: 2 });

    const again = await refused(approveSteps(senior, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW));
    expect(again.code).toBe("already_approved_by_you");
    expect(again.status).toBe(409);

    // Who acts next and the queue count the approval still missing, and do not name the first approver again.
    const ownership = await getRunOwnership(senior, run.id, TEST_NOW);
    const waiting = ownership.deciders.find((d) => d.stepId === refundId)!;
    expect(waiting.people.map((p) => p.id)).not.toContain("usr_senior");
    expect(waiting.people.map((p) => p.id)).toContain("usr_supervisor");
    expect(waiting.sentence).toContain("one more approval, by someone else");
    const [row] = (await queueRowOwnership([{ id: run.id, planVersion: version, assigneeId: null }], undefined)).values();
    expect(row).toMatchObject({ approvalsMissing: 1, approvalsNeeded: 3 }); // reply 1 + refund 2; the senior gave two of them

    const v = await view(run.id);
    const refund = v.steps.find((s) => s.id === refundId)!;
    const early = await refused(claimStep(agent, run.id, refundId, { digest: refund.digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW));
    expect(early.code).toBe("run_not_approved");

    const second = await approveSteps(supervisor, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect(second.run.status).toBe("approved");
    expect(second.run.steps.find((s) => s.id === refundId)!.approvals).toMatchObject({ required: 2, given: 2 });

    const reply = await claimStep(agent, run.id, "st_reply", { digest: v.steps[0].digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);
    await reportOutcome(agent, run.id, "st_reply", { token: reply.claim.token, status: "succeeded" }, TEST_NOW);
    const claimed = await claimStep(agent, run.id, refundId, { digest: refund.digest, taskRevision: v.boundTaskRevision }, null, TEST_NOW);
    expect(claimed.claim.stepId).toBe(refundId);
    const rows = await prisma.approval.findMany({ where: { runId: run.id, stepId: refundId }, orderBy: { approverSlot: "asc" } });
    expect(rows.map((r) => [r.approverId, r.state, r.policyVersion, r.approvalsRequired])).toEqual([
      ["usr_senior", "claimed", 2, 2],
      ["usr_supervisor", "claimed", 2, 2],
    ]);
    expect(rows[0].amountMinor).toBe(140000);
    expect(rows[1].amountMinor).toBeNull(); // money in flight counts the step once
    const approved = await prisma.auditEvent.findMany({ where: { runId: run.id, type: "approved" }, orderBy: { seq: "asc" } });
    expect(approved.filter((e) => (e.data as { stepId: string }).stepId === refundId).map((e) => [e.actorId, (e.data as { policyVersion: number }).policyVersion])).toEqual([
      ["usr_senior", 2],
      ["usr_supervisor", 2],
    ]);
    const claimEvent = await prisma.auditEvent.findFirstOrThrow({ where: { runId: run.id, type: "claimed" }, orderBy: { seq: "desc" } });
    expect((claimEvent.data as { approverIds: string[] }).approverIds.sort()).toEqual(["usr_senior", "usr_supervisor"]);
  });

  it("an edit of the refund invalidates both approvals", async () => {
    const run = await submitReply("75003"); // a customs hold: its intent permits a refund (75015 is a question)
    const { version, refundId } = await addRefund(run.id, "in_74201", 120000);
    const acks = await concurrentAcks(run.id); // an earlier test's run of the task may still be executing
    await approveSteps(senior, run.id, { planVersion: version, stepIds: "all", idempotencyKey: `a-${nanoid()}`, ...acks }, TEST_NOW);
    await approveSteps(supervisor, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}`, ...acks }, TEST_NOW);
    expect((await view(run.id)).status).toBe("approved");
    const v = await view(run.id);
    const steps = editable(v.steps as never);
    (steps.find((s) => s.id === refundId)!.args as { amount: { minor: number } }).amount.minor = 130000;
    await submitEdit(senior, run.id, { baseVersion: version, steps }, TEST_NOW);
    const after = await view(run.id);
    expect(after.status).toBe("pending_review");
    expect(after.steps.find((s) => s.id === refundId)!.approvals).toMatchObject({ required: 2, given: 0 });
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: refundId, planVersion: version, state: "invalidated" } })).toBe(2);
  });

  it("under a rule that excludes authors, the author is refused (403, audited) and two other people are needed", async () => {
    await saveGatePolicy(admin, { ...(await liveWith(rule({ tool: "issue_refund", accountId: "acc_polar", minAmountMinor: 100000, decision: "two", authorMayApprove: false }))), note: "Polar: authors never approve their refunds" });
    const run = await submitReply("75011");
    const { version, refundId } = await addRefund(run.id, "in_75101", 150000);
    const denied = await refused(approveSteps(senior, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW));
    expect(denied.code).toBe("author_may_not_approve");
    expect(denied.status).toBe(403);
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { runId: run.id, type: "denied" }, orderBy: { seq: "desc" } });
    expect(audit.actorId).toBe("usr_senior");
    // approving "all" skips the step the senior wrote: the reply is approved, the refund still waits
    const all = await approveSteps(senior, run.id, { planVersion: version, stepIds: "all", idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect(all.run.steps.find((s) => s.id === refundId)!.approvals).toMatchObject({ required: 2, given: 0, authorMayApprove: false });
    await approveSteps(supervisor, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect((await view(run.id)).status).toBe("pending_review");
    await approveSteps(senior2, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect((await view(run.id)).status).toBe("approved");
  });

  it("parallel approvals by three people and by one person twice: exactly two rows, one per person", async () => {
    const run = await submitReply("75003");
    const { version, refundId } = await addRefund(run.id, "in_74201", 110000);
    const acks = await concurrentAcks(run.id); // an earlier test's run of the task is still being executed
    await approveSteps(supervisor, run.id, { planVersion: version, stepIds: ["st_reply"], idempotencyKey: `a-${nanoid()}`, ...acks }, TEST_NOW);
    const same = await Promise.allSettled([1, 2, 3].map(() => approveSteps(senior, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}`, ...acks }, TEST_NOW)));
    expect(same.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of same.filter((x): x is PromiseRejectedResult => x.status === "rejected")) expect(r.reason.code).toBe("already_approved_by_you");
    const others = await Promise.allSettled([supervisor, senior2, supervisor].map((who) => approveSteps(who, run.id, { planVersion: version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}`, ...acks }, TEST_NOW)));
    for (const r of others) if (r.status === "rejected") expect(r.reason.code).toBe("already_approved_by_you");
    const rows = await prisma.approval.findMany({ where: { runId: run.id, stepId: refundId, planVersion: version, state: "active" } });
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.approverId)).size).toBe(2);
    expect((await view(run.id)).status).toBe("approved");
  });
});

describe("a stricter rule and a new plan version", () => {
  it("a step only the policy approved needs a person once the live rule gates it: an edit of another step does not carry the policy's consent", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75015" } });
    const steps: StepInput[] = [
      { id: "st_note", tool: "add_ticket_note", args: { ticketId: "75015", note: "Customer asked for an update." } },
      { id: "st_reply", tool: "send_reply", args: { ticketId: "75015", body: "Thanks, we are looking into it and will write again today." } },
    ];
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW);
    const before = await view(run.id);
    expect(before.steps.find((s) => s.id === "st_note")!.approval).toMatchObject({ state: "active", approverId: null });

    const previous = await liveWith();
    const stricter = previous.rules.map((r) => (r.tool === "add_ticket_note" && r.accountId === null && r.desk === null && r.minAmountMinor === null ? { ...r, decision: "one" as const } : r));
    expect(stricter).not.toEqual(previous.rules);
    await saveGatePolicy(admin, { baseVersion: previous.baseVersion, rules: stricter, note: "notes need a person" });
    const edited = editable(before.steps as never);
    (edited.find((s) => s.id === "st_reply")!.args as { body: string }).body = "Thanks, we are on it and will write again today.";
    const res = await submitEdit(senior, run.id, { baseVersion: before.planVersion, steps: edited }, TEST_NOW);
    // The review names it, and the server did exactly that: the policy approval is gone.
    expect(res.diff.reapprovalRequired).toContain("st_note");
    expect(res.reapproval).toContain("now needs a person's approval");
    const after = await view(run.id);
    expect(after.steps.find((s) => s.id === "st_note")!.approval).toBeNull();
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: "st_note", planVersion: before.planVersion, state: "invalidated" } })).toBe(1);
    await approveSteps(senior, run.id, { planVersion: after.planVersion, stepIds: "all", idempotencyKey: `a-${nanoid()}` }, TEST_NOW);
    expect((await view(run.id)).steps.find((s) => s.id === "st_note")!.approval).toMatchObject({ state: "active", approverId: "usr_senior" });

    await saveGatePolicy(admin, { baseVersion: (await loadGatePolicy(prisma)).version, rules: previous.rules, note: "restored" });
  });
});

describe("a suggested step's authors", () => {
  it("the person who suggested a step is one of its authors: under a rule that excludes authors they may not approve it", async () => {
    const operator = (await loadViewer("usr_operator"))!;
    const run = await submitReply("75003"); // a customs hold: its intent permits a refund
    const previous = await liveWith();
    const { accountId } = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { accountId: true } });
    await saveGatePolicy(admin, { ...(await liveWith(rule({ tool: "issue_refund", accountId, decision: "two", authorMayApprove: false }))), note: "This account's refunds: authors never approve" });
    const invoice = await prisma.invoice.findFirstOrThrow({ where: { accountId, status: "open", currency: "USD", openMinor: { gte: 10000 } } });
    const v = await view(run.id);
    const s = await suggestStep(operator, run.id, { planVersion: v.planVersion, tool: "issue_refund", args: { invoiceId: invoice.id, amount: { minor: 5000, currency: "USD" }, reason: "Goodwill for the delay" }, note: "small goodwill" }, TEST_NOW);
    const { edit } = await acceptSuggestion(senior, run.id, s.id, TEST_NOW);
    const refundId = edit.planVersion.steps.find((x) => x.tool === "issue_refund")!.id;
    const denied = await refused(approveSteps(operator, run.id, { planVersion: edit.planVersion.version, stepIds: [refundId], idempotencyKey: `a-${nanoid()}` }, TEST_NOW));
    expect(denied.code).toBe("author_may_not_approve");
    expect(denied.details).toMatchObject({ authors: expect.arrayContaining(["usr_operator", "usr_senior"]) });
    await saveGatePolicy(admin, { baseVersion: (await loadGatePolicy(prisma)).version, rules: previous.rules, note: "restored" });
  });
});

describe("account tags", () => {
  it("the demo desk tags accounts in good standing, and a run of such an account is gated with its tags", async () => {
    const { gateRulesFor } = await import("./load-gate-policy");
    expect((await gateRulesFor(prisma, { desk: "freight", accountId: "acc_alpine" })).accountTags).toEqual(["good_standing"]);
    expect((await gateRulesFor(prisma, { desk: "freight", accountId: "acc_nordkapp" })).accountTags).toEqual([]);
  });
});
