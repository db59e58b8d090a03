import { addDays, formatISO } from "date-fns";
import { beforeAll, describe, expect, it } from "vitest";
import type { Step } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { prisma } from "../db/db";
import { discardEdit } from "./discard-edit";
import { submitEdit } from "./submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { deskScope, loadViewer, type Viewer } from "../auth/viewer";
import { reviseTask } from "../tasks/revise-task";
import { editable, prepareTestDatabase, referenceEdit, refused, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";

const iso = (n: number) => formatISO(addDays(TEST_NOW, n), { representation: "date" });
let operator: Viewer;
let senior: Viewer;
let supervisor: Viewer;


async function runOfTicket(ticketId: string) {
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId }, idempotencyKey: { startsWith: "seed:" } } });
  return toRunView(await loadRun(run.id), TEST_NOW);
}



beforeAll(async () => {
  await prepareTestDatabase();
  operator = (await loadViewer("usr_operator"))!;
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
});

describe("the reference case (ticket #74991)", () => {
  it("refuses the operator without refund authorship and stores nothing", async () => {
    const run = await runOfTicket("74991");
    const before = await prisma.planVersion.count({ where: { runId: run.id } });
    const err = await refused(submitEdit(operator, run.id, { baseVersion: 1, steps: referenceEdit(run.steps as never) }, TEST_NOW));
    expect(err.code).toBe("authorship_denied");
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/issue_refund/);
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(before);
    const denied = await prisma.auditEvent.findMany({ where: { runId: run.id, type: "denied" } });
    expect(denied).toHaveLength(1);
    expect(denied[0].actorId).toBe("usr_operator");
  });

  it("lets the senior edit: 2 changes, the added step, the cross-account note, re-approval for step 4 and step 2", async () => {
    const run = await runOfTicket("74991");
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(run.steps as never) }, TEST_NOW);
    expect(res.unchanged).toBe(false);
    expect(res.planVersion.version).toBe(2);
    expect(res.diff.changeCount).toBe(2);
    expect(res.diff.added).toHaveLength(1);
    expect(res.diff.added[0].tool).toBe("issue_refund");
    const addedId = res.diff.added[0].id;
    expect(addedId).not.toBe("new-refund"); // the server gives added steps their own id
    expect(res.diff.changed.map((c) => c.stepId)).toEqual(["st_resched"]);
    expect(res.diff.annotations.some((a) => a.stepId === addedId && /in_74119 belongs to Halvorsen Freight/.test(a.message) && /Nordkapp Logistics/.test(a.message))).toBe(true);
    expect(res.reapproval).toBe("re-approval required for step 4 (added), step 2 (changed)");
    const cross = res.validation.issues.find((i) => i.code === "cross_account_target");
    expect(cross).toMatchObject({ stepId: addedId, severity: "warning", needsAcknowledgement: true });

    const stored = toRunView(await loadRun(run.id), TEST_NOW);
    expect(stored.planVersion).toBe(2);
    const added = stored.steps.find((s) => s.id === addedId)!;
    expect(added.author).toEqual({ kind: "user", userId: "usr_senior" });
    expect(added.provenance.amount).toMatchObject({ kind: "operator", userId: "usr_senior" });
    const resched = stored.steps.find((s) => s.id === "st_resched")!;
    expect(resched.author).toEqual({ kind: "user", userId: "usr_senior" });
    expect(resched.provenance.window).toMatchObject({ kind: "operator", previous: { from: iso(3), to: iso(3) } });
    expect(resched.provenance.shipmentId).toEqual({ kind: "source", recordType: "shipment", recordId: "sh_5521" });
    // the untouched note keeps its policy approval (same digest); step 2 and 4 need a person
    expect(stored.steps.find((s) => s.id === "st_note")!.approval?.state).toBe("active");
    expect(resched.approval).toBeNull();
    expect(added.approval).toBeNull();
    const edit = await prisma.planEdit.findFirstOrThrow({ where: { runId: run.id, toVersion: 2 } });
    expect((edit.before as { steps: Step[] }).steps).toHaveLength(3);
    expect((edit.after as { steps: Step[] }).steps).toHaveLength(4);

    // approving step 4 needs the cross-account warning acknowledged
    const ack = await refused(approveSteps(senior, run.id, { planVersion: 2, stepIds: [addedId], idempotencyKey: "k-ack-1" }, TEST_NOW));
    expect(ack.code).toBe("acknowledgement_required");
    // … and its evidence, the task's ticket, which is not about another account's invoice
    expect(ack.details.required).toEqual([expect.objectContaining({ code: "cross_account_target", stepId: addedId }), expect.objectContaining({ code: "evidence_unrelated", stepId: addedId })]);
    expect(await prisma.approval.count({ where: { runId: run.id, stepId: addedId } })).toBe(0);

    // "remove the added step": a new edit from version 2 without it keeps the date change
    const v2 = toRunView(await loadRun(run.id), TEST_NOW);
    const removed = await submitEdit(senior, run.id, { baseVersion: 2, steps: editable(v2.steps.filter((s) => s.id !== addedId) as never) }, TEST_NOW);
    expect(removed.planVersion.version).toBe(3);
    expect(removed.diff.removed.map((s) => s.id)).toEqual([addedId]);
    expect(removed.planVersion.steps.find((s) => s.id === "st_resched")!.args.window).toEqual({ from: iso(7), to: iso(7) });

    const approved = await approveSteps(senior, run.id, { planVersion: 3, stepIds: "all", idempotencyKey: "k-all-1" }, TEST_NOW);
    expect(approved.run.status).toBe("approved");
    expect(approved.run.approvedVersion).toBe(3);
    expect(approved.approvals.map((a) => a.stepId).sort()).toEqual(["st_note", "st_reply", "st_resched"]);
    const a = await prisma.approval.findFirstOrThrow({ where: { runId: run.id, stepId: "st_resched", planVersion: 3 } });
    expect(a).toMatchObject({ approverId: "usr_senior", boundTaskRevision: 1, state: "active", tool: "reschedule_delivery" });
  });
});

describe("edits", () => {
  it("refuse a stale base version with the current plan, and never merge", async () => {
    const run = await runOfTicket("74994");
    const first = editable(run.steps as never);
    first[0].args.note = "First operator's note";
    const second = editable(run.steps as never);
    second[0].args.note = "Second operator's note";
    await submitEdit(senior, run.id, { baseVersion: 1, steps: first }, TEST_NOW);
    const err = await refused(submitEdit(supervisor, run.id, { baseVersion: 1, steps: second }, TEST_NOW));
    expect(err.code).toBe("stale_plan_version");
    expect(err.details.currentVersion).toBe(2);
    expect((err.details.plan as { steps: Step[] }).steps[0].args.note).toBe("First operator's note");
  });

  it("validate a raw edit that changes a tool like a new step: new schema, new gate, new authorship", async () => {
    const run = await runOfTicket("74995");
    const steps = editable(run.steps as never);
    steps[0] = withRequiredReasons([{ ...steps[0], tool: "issue_refund", args: { invoiceId: "in_75101", amount: { minor: 1000, currency: "USD" }, reason: "x" } }])[0];
    const denied = await refused(submitEdit(operator, run.id, { baseVersion: 1, steps }, TEST_NOW));
    expect(denied.code).toBe("authorship_denied");
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    expect(res.diff.removed.map((s) => s.id)).toEqual(["st_escalate"]);
    expect(res.diff.added.map((s) => s.tool)).toEqual(["issue_refund"]);
    expect(res.validation.gate[res.diff.added[0].id]).toBe("approval_required");
  });

  it("treat a cleared amount as missing, never 0, and keep the database as it was", async () => {
    const run = await runOfTicket("74997");
    const steps = editable(run.steps as never);
    steps[0].args.amount = { currency: "USD" };
    const err = await refused(submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW));
    expect(err.code).toBe("validation_failed");
    const issues = err.details.issues as { code: string; path?: string }[];
    expect(issues.some((i) => i.path?.startsWith("steps.0.args.amount"))).toBe(true);
    expect(toRunView(await loadRun(run.id), TEST_NOW).planVersion).toBe(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "edit_refused" } })).toBe(1);
  });

  it("submit nothing for an unchanged plan", async () => {
    const run = await runOfTicket("75002");
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps: editable(run.steps as never) }, TEST_NOW);
    expect(res.unchanged).toBe(true);
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(1);
  });

  it("discard my edits restores the pre-edit plan as a new version", async () => {
    const run = await runOfTicket("75003");
    const steps = editable(run.steps as never);
    steps[1].args.body = "Edited reply";
    await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    const other = await refused(discardEdit(operator, run.id, 2, TEST_NOW));
    expect(other.code).toBe("forbidden");
    const res = await discardEdit(senior, run.id, 2, TEST_NOW);
    expect(res.planVersion.version).toBe(3);
    expect(res.planVersion.steps.map((s) => s.args)).toEqual(run.steps.map((s) => s.args));
  });

  it("discarding an edit of a run whose task was revised is refused stale_task, like the edit and the approval, and stores nothing", async () => {
    const run = await runOfTicket("75004");
    const steps = editable(run.steps as never);
    steps[0].args.note = "New Oslo delivery contact: Ingrid Berg (edited)";
    await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    await reviseTask("task_75004", { comment: "The contact is Ola Nordmann, not Ingrid Berg" }, { kind: "user", id: "usr_supervisor" });
    const versions = await prisma.planVersion.count({ where: { runId: run.id } });
    const err = await refused(discardEdit(senior, run.id, 2, TEST_NOW));
    expect(err.code).toBe("stale_task");
    expect(err.details).toMatchObject({ boundRevision: 1 });
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(versions);
  });
});

describe("approvals", () => {
  it("respect the approve ceiling at its boundary: exactly the limit passes, one minor unit above is refused", async () => {
    const run = await runOfTicket("74996"); // waive_fee of $89.00 + reply
    const steps = editable(run.steps as never);
    // the operator may not author a fee waiver; the senior sets the amount to exactly 500.00 on an invoice fee big enough
    await prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74501" } }, data: { fees: [{ code: "LATE_FEE", amount: { minor: 50001, currency: "USD" } }] } });
    steps[0].args.amount = { minor: 50001, currency: "USD" };
    const v2 = await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    const over = await refused(approveSteps(operator, run.id, { planVersion: v2.planVersion.version, stepIds: ["st_waive"], idempotencyKey: "over" }, TEST_NOW));
    expect(over.code).toBe("approval_denied");
    expect(over.message).toMatch(/\$500\.00/);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "denied", actorId: "usr_operator" } })).toBe(1);
    steps[0].args.amount = { minor: 50000, currency: "USD" };
    const v3 = await submitEdit(senior, run.id, { baseVersion: v2.planVersion.version, steps }, TEST_NOW);
    const ok = await approveSteps(operator, run.id, { planVersion: v3.planVersion.version, stepIds: ["st_waive"], idempotencyKey: "exact" }, TEST_NOW);
    expect(ok.approvals.find((a) => a.stepId === "st_waive")?.approverId).toBe("usr_operator");
  });

  it("50 parallel approvals with one idempotency key create one approval and the same answer", async () => {
    const run = await runOfTicket("74998");
    const results = await Promise.all(
      Array.from({ length: 50 }, () => approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "double-click" }, TEST_NOW)),
    );
    expect(await prisma.approval.count({ where: { runId: run.id, approverId: "usr_senior" } })).toBe(3);
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(results[0].run.status).toBe("approved");
  });

  it("refuse a stale plan version, a moved task revision and an expired run with their typed reasons", async () => {
    const run = await runOfTicket("74992");
    const stale = await refused(approveSteps(senior, run.id, { planVersion: 7, stepIds: "all", idempotencyKey: "s1" }, TEST_NOW));
    expect(stale.code).toBe("stale_plan_version");
    await reviseTask(`task_74992`, { comment: "Customer now wants a replacement, not a refund" }, { kind: "user", id: "usr_supervisor" });
    const moved = await refused(approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "s2" }, TEST_NOW));
    expect(moved.code).toBe("stale_task");
    expect(moved.details).toMatchObject({ boundRevision: 1, liveRevision: 2 });

    const other = await runOfTicket("74993");
    const expiresAt = new Date(other.expiresAt);
    const late = await refused(approveSteps(senior, other.id, { planVersion: 1, stepIds: "all", idempotencyKey: "late" }, new Date(expiresAt.getTime() + 1000)));
    expect(late.code).toBe("expired");
    expect(await prisma.approval.count({ where: { runId: other.id, approverId: { not: null } } })).toBe(0);
  });

  it("rejection needs the current version and leaves the reason for the agent", async () => {
    const run = await runOfTicket("75000");
    const res = await rejectRun(operator, run.id, { planVersion: 1, reason: "Duplicate already credited last week" }, TEST_NOW);
    expect(res.status).toBe("rejected");
    expect(res.rejectionReason).toBe("Duplicate already credited last week");
    const again = await refused(approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "after-reject" }, TEST_NOW));
    expect(again.code).toBe("run_not_pending");
  });
});

describe("agent submissions", () => {
  it("refuse a reused idempotency key with another body, and operator provenance claimed by an agent", async () => {
    const { submitRun } = await import("../runs/submit-run");
    const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: ["add_ticket_note"], keyId: "key_demo" };
    const steps = [{ tool: "add_ticket_note", args: { ticketId: "75016", note: "Closing: customer thanked us." } }];
    const first = await submitRun(agent, "task_75016", { taskRevision: 1, steps: withRequiredReasons(steps) }, "same-key", TEST_NOW);
    const again = await submitRun(agent, "task_75016", { taskRevision: 1, steps: withRequiredReasons(steps) }, "same-key", TEST_NOW);
    expect(again.run.id).toBe(first.run.id);
    expect(again.replayed).toBe(true);
    const other = await refused(submitRun(agent, "task_75004", { taskRevision: 1, steps }, "same-key", TEST_NOW));
    expect(other.code).toBe("idempotency_conflict");

    const forged = await refused(
      submitRun(agent, "task_75016", {
        taskRevision: 1,
        steps: [{ ...steps[0], provenance: { note: { kind: "operator", userId: "usr_senior", at: TEST_NOW.toISOString() } } }],
      }, null, TEST_NOW),
    );
    expect(forged.code).toBe("validation_failed");
    expect((forged.details.issues as { code: string }[]).map((i) => i.code)).toContain("invalid_provenance");
  });
});

describe("approvals across edits", () => {
  it("lapse when a step moves or gains a warning nobody acknowledged, so no unreviewed version runs", async () => {
    const { submitRun } = await import("../runs/submit-run");
    const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "issue_refund"], keyId: "key_demo" };
    const fresh = await submitRun(
      agent,
      "task_75018",
      {
        taskRevision: 1,
        steps: withRequiredReasons([
          { id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_74804", amount: { minor: 10000, currency: "USD" }, reason: "Storage fee goodwill" } },
          { id: "s_reply", tool: "send_reply", args: { ticketId: "75018", body: "Hello, we have refunded $100.00 to your account." } },
        ]),
      },
      "lapse-1",
      TEST_NOW,
    );
    const id = fresh.run.id;
    await approveSteps(senior, id, { planVersion: 1, stepIds: "all", idempotencyKey: "lapse-approve" }, TEST_NOW);
    expect(toRunView(await loadRun(id), TEST_NOW).status).toBe("approved");
    // Remove the refund: the reply now promises money nothing moves, and it moved to position 1.
    const v1 = toRunView(await loadRun(id), TEST_NOW);
    const res = await submitEdit(senior, id, { baseVersion: 1, steps: editable(v1.steps.filter((s) => s.id === "s_reply") as never) }, TEST_NOW);
    const after = toRunView(await loadRun(id), TEST_NOW);
    expect(after.status).toBe("pending_review");
    expect(after.steps[0].approval).toBeNull();
    expect(res.validation.issues.some((i) => i.code === "unbacked_commitment" && i.stepId === "s_reply")).toBe(true);
    // a second person opening the run reads the edit: who, when, the step it removed
    const { getRunDetails } = await import("../runs/get-run-details");
    const seen = await getRunDetails(id, operator, TEST_NOW);
    expect(seen.edits.map((e) => ({ ...e, at: typeof e.at }))).toEqual([
      { version: 2, fromVersion: 1, editorId: senior.id, at: "string", steps: [{ stepId: "s_refund", tool: "issue_refund", position: null, from: 1, changes: ["removed"], fields: [] }] },
    ]);
    expect(seen.validation.issues.some((i) => i.code === "unbacked_commitment" && i.stepId === "s_reply")).toBe(true);
    const ack = await refused(approveSteps(senior, id, { planVersion: 2, stepIds: "all", idempotencyKey: "lapse-2" }, TEST_NOW));
    expect(ack.code).toBe("acknowledgement_required");
  });
});

describe("approval limits and keys", () => {
  it("bound the total a person approves per tool in a run, refuse a reused key with another body, ignore duplicate ids", async () => {
    const { submitRun } = await import("../runs/submit-run");
    const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: ["issue_refund", "add_ticket_note"], keyId: "key_demo" };
    const refund = (id: string) => ({ id, tool: "issue_refund", args: { invoiceId: "in_74801", amount: { minor: 40000, currency: "USD" }, reason: "Split goodwill" } });
    const { run } = await submitRun(agent, "task_75018", { taskRevision: 1, steps: withRequiredReasons([refund("r1"), refund("r2")]) }, "split-1", TEST_NOW);
    const first = await approveSteps(operator, run.id, { planVersion: 1, stepIds: ["r1", "r1"], idempotencyKey: "split-a" }, TEST_NOW);
    expect(first.approvals.map((a) => a.stepId)).toEqual(["r1"]);
    const second = await refused(approveSteps(operator, run.id, { planVersion: 1, stepIds: ["r2"], idempotencyKey: "split-b" }, TEST_NOW));
    expect(second.code).toBe("approval_denied");
    expect(second.message).toMatch(/per run/);
    const reuse = await refused(approveSteps(operator, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "split-a" }, TEST_NOW));
    expect(reuse.code).toBe("idempotency_conflict");
    // the senior's own ceiling (2,000.00) covers the rest
    const senior2 = await approveSteps(senior, run.id, { planVersion: 1, stepIds: ["r2"], idempotencyKey: "split-c" }, TEST_NOW);
    expect(senior2.run.status).toBe("approved");
  });
});

describe("desks", () => {
  it("an operator of another desk neither sees nor touches this desk's runs (404); supervisors see all", async () => {
    const { listQueue } = await import("../runs/list-queue");
    const { getRunDetails } = await import("../runs/get-run-details");
    const run = await runOfTicket("74999");
    const outsider: Viewer = { ...operator, id: "usr_operator", desk: "parcel" };
    expect((await listQueue({ scope: deskScope(outsider) }, TEST_NOW)).runs.length).toBe(0);
    expect((await refused(getRunDetails(run.id, outsider, TEST_NOW))).code).toBe("not_found");
    expect((await refused(approveSteps(outsider, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: "desk-1" }, TEST_NOW))).code).toBe("not_found");
    expect((await refused(submitEdit(outsider, run.id, { baseVersion: 1, steps: editable(run.steps as never) }, TEST_NOW))).code).toBe("not_found");
    expect((await refused(rejectRun(outsider, run.id, { planVersion: 1, reason: "not mine" }, TEST_NOW))).code).toBe("not_found");
    expect((await listQueue({ scope: deskScope(operator) }, TEST_NOW)).runs.some((r) => r.id === run.id)).toBe(true);
    expect((await listQueue({ scope: deskScope({ ...supervisor, desk: "parcel" }) }, TEST_NOW)).runs.some((r) => r.id === run.id)).toBe(true);
  });
});
