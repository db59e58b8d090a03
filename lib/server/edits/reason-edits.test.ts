/**
 * A step's reasons (title, rationale, evidence, risk, stop condition) are part of the plan a person
 * reviews and the executor receives (docs/design.md "The task contract and what the agent saw": the stop
 * condition travels with the claim), though not of the digest (§4). An edit that changes only them
 * is a new plan version with its diff (it answered 200 `unchanged` and saved nothing); the
 * approvals, bound to the unchanged digests, carry over. A step a person adds or changes is held to
 * the fields the gate policy requires of it (docs/design.md "The task contract and what the agent saw").
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { submitEdit } from "./submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { loadViewer, type Viewer } from "../auth/viewer";
import { approveAllAs, editable, PERSON_REFUND_REASONS, prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { storedSteps } from "../plans/stored-plan";

let senior: Viewer;
beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
});

async function runOfTicket(ticketId: string) {
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId }, idempotencyKey: { startsWith: "seed:" } } });
  return toRunView(await loadRun(run.id), TEST_NOW);
}

describe("an edit of a step's reasons only", () => {
  it("changing the stop condition and title is a new plan version with its diff; the approvals carry over", async () => {
    const run = await runOfTicket("75002");
    await approveAllAs(run.id, "usr_supervisor");
    const approvedBefore = await prisma.approval.count({ where: { runId: run.id, planVersion: 1, state: "active" } });
    expect(approvedBefore).toBeGreaterThan(0);

    const steps = editable(run.steps as never).map((s, i) => (i === 0 ? { ...s, stopCondition: "Stop if the customer already had an answer today.", title: "Answer the customer" } : s));
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    expect(res.unchanged).toBe(false);
    expect(res.planVersion.version).toBe(2);
    expect(res.diff.changeCount).toBe(1);
    expect(res.diff.changed).toHaveLength(1);
    const c = res.diff.changed[0];
    expect(c.stepId).toBe(steps[0].id);
    expect(c.digestAfter).toBe(c.digestBefore);
    expect(c.fields.map((f) => f.path).sort()).toEqual(["stopCondition", "title"]);
    expect(c.fields.find((f) => f.path === "stopCondition")).toMatchObject({ after: "Stop if the customer already had an answer today." });
    expect(res.diff.summary.join("\n")).toMatch(/stopCondition/);
    expect(res.diff.reapprovalRequired).toEqual([]);

    // stored: the new version carries the reasons, the edit row its diff
    const stored = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: run.id, version: 2 } } });
    expect(storedSteps(stored.steps)[0]).toMatchObject({ stopCondition: "Stop if the customer already had an answer today.", title: "Answer the customer" });
    expect(await prisma.planEdit.count({ where: { runId: run.id, toVersion: 2 } })).toBe(1);
    // approvals bound to the unchanged digests carry to version 2
    expect(await prisma.approval.count({ where: { runId: run.id, planVersion: 2, state: "active" } })).toBe(approvedBefore);
  });

  it("changing only the risk is a change too; sending the same reasons again is not", async () => {
    const run = await runOfTicket("75002");
    const steps = editable(run.steps as never).map((s, i) => (i === 0 ? { ...s, risk: "The customer may read it as a promise." } : s));
    const res = await submitEdit(senior, run.id, { baseVersion: run.planVersion, steps }, TEST_NOW);
    expect(res.unchanged).toBe(false);
    expect(res.diff.changed[0].fields.map((f) => f.path)).toEqual(["risk"]);
    const same = await submitEdit(senior, run.id, { baseVersion: res.planVersion.version, steps }, TEST_NOW);
    expect(same.unchanged).toBe(true);
  });
});

describe("a person's added refund and the gate policy's required fields", () => {
  const refund = { id: "new-refund", tool: "issue_refund", args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "Goodwill for the missed window" } };

  it("without title, evidence, risk and stop condition the edit is refused 422 at each field and the database is left as it was", async () => {
    const run = await runOfTicket("74991");
    const before = { versions: await prisma.planVersion.count({ where: { runId: run.id } }), edits: await prisma.planEdit.count({ where: { runId: run.id } }) };
    const steps = [...editable(run.steps as never), refund];
    const err = await refused(submitEdit(senior, run.id, { baseVersion: run.planVersion, steps }, TEST_NOW));
    expect(err.code).toBe("validation_failed");
    const errors = (err.details.issues as { code: string; path?: string; severity: string }[]).filter((i) => i.severity === "error");
    const n = steps.length - 1;
    expect(errors.map((i) => `${i.code} ${i.path}`).sort()).toEqual([`evidence_missing steps.${n}.evidence`, `missing_required_field steps.${n}.risk`, `missing_required_field steps.${n}.stopCondition`, `missing_required_field steps.${n}.title`]);
    // the same with text that says nothing
    const blank = await refused(submitEdit(senior, run.id, { baseVersion: run.planVersion, steps: [...editable(run.steps as never), { ...refund, title: "x", risk: "\u200B", stopCondition: "n/a" }] }, TEST_NOW));
    expect(blank.code).toBe("validation_failed");
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(before.versions);
    expect(await prisma.planEdit.count({ where: { runId: run.id } })).toBe(before.edits);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).planVersion).toBe(run.planVersion);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "edit_refused" } })).toBe(2);
  });

  it("with them the edit is saved and the added refund carries them; a later edit that changes its amount keeps them", async () => {
    const run = await runOfTicket("74991");
    const res = await submitEdit(senior, run.id, { baseVersion: run.planVersion, steps: [...editable(run.steps as never), { ...refund, ...PERSON_REFUND_REASONS }] }, TEST_NOW);
    expect(res.unchanged).toBe(false);
    const added = res.planVersion.steps.find((s) => s.tool === "issue_refund")!;
    expect(added).toMatchObject(PERSON_REFUND_REASONS);
    // the amount changed, the reasons not sent: carried over from the base step (keepReasons), so the edit is accepted
    const next = res.planVersion.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.id === added.id ? { ...s.args, amount: { minor: 100000, currency: "USD" } } : s.args }));
    const again = await submitEdit(senior, run.id, { baseVersion: res.planVersion.version, steps: next }, TEST_NOW);
    expect(again.planVersion.steps.find((s) => s.id === added.id)).toMatchObject({ ...PERSON_REFUND_REASONS, args: { amount: { minor: 100000 } } });
  });
});
