import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { describeReapproval } from "../../diff/plan-diff";
import { isDomainError } from "../../errors/domain-error";
import { approveSteps } from "../approvals/approve-steps";
import { prisma } from "../db/db";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { storedValidation } from "../plans/stored-plan";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type Viewer } from "../auth/viewer";
import { editable, prepareTestDatabase, TEST_NOW, withRequiredReasons } from "../../../testing/test-support";
import { submitEdit } from "./submit-edit";

// Issue 14, case 1: the diff the operator reads and the approvals the server keeps come from one
// rule. For random reorders, argument edits, insertions and removals of an approved plan, the
// approvals the server invalidated are exactly the approved steps the diff lists for re-approval
// (plus removed steps), and every other approval carried over.

let senior: Viewer;
const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "issue_refund"], keyId: "key_demo" };

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
});

type Draft = { id: string; tool: string; args: Record<string, unknown> };
const note = (id: string, text: string): Draft => ({ id, tool: "add_ticket_note", args: { ticketId: "75018", note: text } });
const reply = (id: string, body: string): Draft => ({ id, tool: "send_reply", args: { ticketId: "75018", body } });
const refund = (id: string): Draft => ({ id, tool: "issue_refund", args: { invoiceId: "in_74804", amount: { minor: 10000, currency: "USD" }, reason: "Storage fee goodwill" } });

/** The pool a base plan is drawn from: notes, replies (one promising money the refund backs), a refund. */
const POOL: Draft[] = [note("n1", "Checked the storage fee"), note("n2", "Customer called twice"), reply("r1", "Hello, we have refunded $100.00 to your account."), reply("r2", "Thanks for your patience."), refund("f1"), note("n3", "Escalation not needed")];
const TEXTS = ["Edited note", "Looked again at the invoice", "Second look"];

const scenario = fc
  .record({
    base: fc.shuffledSubarray(POOL, { minLength: 2, maxLength: POOL.length }),
    order: fc.array(fc.nat(), { minLength: POOL.length, maxLength: POOL.length }),
    removeMask: fc.array(fc.boolean(), { minLength: POOL.length, maxLength: POOL.length }),
    editMask: fc.array(fc.option(fc.constantFrom(...TEXTS), { nil: undefined }), { minLength: POOL.length, maxLength: POOL.length }),
    inserts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...TEXTS)), { maxLength: 2 }),
  })
  .map(({ base, order, removeMask, editMask, inserts }) => {
    // reorder by random keys, remove some (never all), edit some notes, insert new notes anywhere
    let steps = base.map((s, i) => ({ s, k: order[i] })).sort((a, b) => a.k - b.k).map(({ s }) => structuredClone(s));
    const kept = steps.filter((_, i) => !removeMask[i]);
    steps = kept.length > 0 ? kept : steps.slice(0, 1);
    steps = steps.map((s, i) => (s.tool === "add_ticket_note" && editMask[i] ? { ...s, args: { ...s.args, note: editMask[i] } } : s));
    inserts.forEach(([at, text], j) => steps.splice(at % (steps.length + 1), 0, note(`new${j}`, text)));
    return { base, edited: steps };
  });

let key = 0;
/** What the random edits exercised (asserted after the property, so the test cannot pass vacuously). */
const seen = { moved: 0, carried: 0, invalidated: 0, warning: 0, refused: 0 };

describe("the diff's re-approval list is what the server does (property, real database)", () => {
  it("for random reorders, edits, insertions and removals of an approved plan", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ base, edited }) => {
        key++;
        const { run } = await submitRun(agent, "task_75018", { taskRevision: 1, steps: withRequiredReasons(base) }, `agree-${key}`, TEST_NOW);
        const v1 = await prisma.planVersion.findFirstOrThrow({ where: { runId: run.id, version: 1 } });
        const acks = storedValidation(v1.validation).issues.filter((i) => i.needsAcknowledgement && i.stepId).map((i) => ({ code: i.code, stepId: i.stepId! }));
        await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `agree-a-${key}`, acknowledgedWarnings: acks }, TEST_NOW);
        const v1Approvals = await prisma.approval.findMany({ where: { runId: run.id, planVersion: 1, state: "active" } });
        const approvedBefore = new Set(v1Approvals.map((a) => a.stepId));
        const approverOf = new Map(v1Approvals.map((a) => [a.stepId, a.approverId]));
        expect(approvedBefore.size).toBe(base.length);

        let res;
        try {
          res = await submitEdit(senior, run.id, { baseVersion: 1, steps: editable(edited) }, TEST_NOW);
        } catch (e) {
          if (isDomainError(e) && e.code === "validation_failed") {
            seen.refused++;
            return; // a refused edit stores nothing; nothing to compare
          }
          throw e;
        }
        if (res.unchanged) {
          expect(res.diff.reapprovalRequired).toEqual([]);
          return;
        }
        const nextIds = new Set(res.planVersion.steps.map((s) => s.id));
        const required = new Set(res.diff.reapprovalRequired);
        const old = await prisma.approval.findMany({ where: { runId: run.id, planVersion: 1 } });
        const invalidated = new Set(old.filter((a) => a.state === "invalidated").map((a) => a.stepId));
        const carried = new Set(old.filter((a) => a.state === "superseded").map((a) => a.stepId));
        const expectInvalid = [...approvedBefore].filter((id) => required.has(id) || !nextIds.has(id)).sort();
        expect([...invalidated].sort()).toEqual(expectInvalid);
        expect([...carried].sort()).toEqual([...approvedBefore].filter((id) => !expectInvalid.includes(id)).sort());
        seen.moved += res.diff.moved.length > 0 ? 1 : 0;
        seen.carried += carried.size > 0 ? 1 : 0;
        seen.invalidated += invalidated.size > 0 ? 1 : 0;
        seen.warning += (res.diff.reapproval ?? []).some((r) => r.reasons.includes("unacknowledged_warning")) ? 1 : 0;

        // every step the diff does not name keeps its approval (same approver) on the new version; no
        // step it names keeps a person's approval (a policy may approve an internal step afresh)
        const now = await prisma.approval.findMany({ where: { runId: run.id, planVersion: 2, state: "active" } });
        for (const s of res.planVersion.steps) {
          if (approvedBefore.has(s.id) && !required.has(s.id)) expect(now.some((a) => a.stepId === s.id && a.approverId === approverOf.get(s.id))).toBe(true);
          if (required.has(s.id)) expect(now.some((a) => a.stepId === s.id && a.approverId !== null)).toBe(false);
        }
        // moves: the minimal number (common steps minus a longest common subsequence), never an unmoved step
        const common = (ids: string[], other: Set<string>) => ids.filter((id) => other.has(id));
        const beforeIds = base.map((s) => s.id);
        const afterIds = res.planVersion.steps.map((s) => s.id);
        const ca = common(beforeIds, new Set(afterIds));
        const cb = common(afterIds, new Set(beforeIds));
        expect(res.diff.moved.length).toBe(ca.length - lcsLength(ca, cb));
        for (const m of res.diff.moved) expect(required.has(m.stepId)).toBe(true);
        // the line on the screen names the same steps, and the run waits for review exactly when something lost its approval
        expect(res.reapproval).toBe(describeReapproval(res.diff, res.planVersion as never));
        const view = toRunView(await loadRun(run.id), TEST_NOW);
        const allApproved = res.planVersion.steps.every((s) => now.some((a) => a.stepId === s.id));
        expect(view.status).toBe(allApproved ? "approved" : "pending_review");
      }),
      { numRuns: 30 },
    );
    expect(seen.moved).toBeGreaterThan(0);
    expect(seen.carried).toBeGreaterThan(0);
    expect(seen.invalidated).toBeGreaterThan(0);
  }, 240_000);

  it("an approved reply whose backing refund is removed loses its approval, and the diff says why", async () => {
    key++;
    const steps = [refund("f1"), reply("r1", "Hello, we have refunded $100.00 to your account."), note("n1", "Checked the storage fee")];
    const { run } = await submitRun(agent, "task_75018", { taskRevision: 1, steps: withRequiredReasons(steps) }, `agree-${key}`, TEST_NOW);
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `agree-a-${key}` }, TEST_NOW);
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps: editable([steps[1], steps[2]]) }, TEST_NOW);
    expect(res.diff.reapproval).toEqual([{ stepId: "r1", position: 1, reasons: ["unacknowledged_warning"] }]);
    expect(res.reapproval).toBe("re-approval required for step 1 (new warning)");
    const old = await prisma.approval.findMany({ where: { runId: run.id, planVersion: 1 } });
    expect(old.filter((a) => a.state === "invalidated").map((a) => a.stepId).sort()).toEqual(["f1", "r1"]);
    expect(old.filter((a) => a.state === "superseded").map((a) => a.stepId)).toEqual(["n1"]);
  });

  it("the issue's case: s1 s4 s3 s2 invalidates s4 and s2 and says so", async () => {
    key++;
    const steps: Draft[] = [note("s1", "First look"), { id: "s2", tool: "escalate_ticket", args: { ticketId: "75018", team: "billing", note: "Storage fee question" } }, reply("s3", "Thanks for your patience."), reply("s4", "We are on it.")];
    const { run } = await submitRun(agent, "task_75018", { taskRevision: 1, steps: withRequiredReasons(steps) }, `agree-${key}`, TEST_NOW);
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `agree-a-${key}` }, TEST_NOW);
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps: editable([steps[0], steps[3], steps[2], steps[1]]) }, TEST_NOW);
    expect(res.diff.moved.map((m) => [m.stepId, m.from, m.to])).toEqual([["s4", 4, 2], ["s2", 2, 4]]);
    expect(res.diff.reapprovalRequired).toEqual(["s4", "s2"]);
    expect(res.reapproval).toBe("re-approval required for step 2 (moved), step 4 (moved)");
    const old = await prisma.approval.findMany({ where: { runId: run.id, planVersion: 1 } });
    expect(old.filter((a) => a.state === "invalidated").map((a) => a.stepId).sort()).toEqual(["s2", "s4"]);
    expect(old.filter((a) => a.state === "superseded").map((a) => a.stepId).sort()).toEqual(["s1", "s3"]);
    expect(toRunView(await loadRun(run.id), TEST_NOW).status).toBe("pending_review");
  });
});

function lcsLength(a: string[], b: string[]): number {
  const L = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  return L[0][0];
}
