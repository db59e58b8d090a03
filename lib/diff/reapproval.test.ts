import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Plan, Step } from "../plan/schema";
import { decideReapproval, keptInOrder } from "./reapproval";
import { describeReapproval, diffPlans } from "./plan-diff";

const step = (id: string, tool = "add_ticket_note", args: Record<string, unknown> = { ticketId: "74991", note: id }, extra: Partial<Step> = {}): Step => ({
  id,
  tool,
  args,
  provenance: {},
  author: { kind: "model" },
  ...extra,
});
const plan = (version: number, steps: Step[]): Plan => ({ version, steps });
const order = (ids: string[]) => ids.map((id) => step(id));
const movesOf = (a: string[], b: string[]) => decideReapproval(plan(1, order(a)), plan(2, order(b))).moved.map((m) => [m.stepId, m.from, m.to]);

describe("moves are the minimal set of steps whose relative order changed (issue 14)", () => {
  it("the issue's case: s1 s2 s3 s4 → s1 s4 s3 s2 moves s4 and s2, never s3 from 3 to 3", () => {
    const before = plan(1, [step("s1"), step("s2", "reschedule_delivery", { shipmentId: "sh_1" }), step("s3", "send_reply", { body: "a" }), step("s4", "send_reply", { body: "b" })]);
    const after = plan(2, [before.steps[0], before.steps[3], before.steps[2], before.steps[1]]);
    const d = diffPlans(before, after);
    expect(d.moved).toEqual([
      { stepId: "s4", tool: "send_reply", from: 4, to: 2 },
      { stepId: "s2", tool: "reschedule_delivery", from: 2, to: 4 },
    ]);
    expect(d.reapprovalRequired).toEqual(["s4", "s2"]);
    expect(describeReapproval(d, after)).toBe("re-approval required for step 2 (moved), step 4 (moved)");
    expect(d.summary).toEqual(["step 2 send_reply moved from position 4 to 2", "step 4 reschedule_delivery moved from position 2 to 4"]);
  });

  it("a swap across others is two moves, a reversal of three is two moves (the middle stays), an adjacent swap is one", () => {
    expect(movesOf(["a", "b", "c", "d"], ["d", "b", "c", "a"])).toEqual([["d", 4, 1], ["a", 1, 4]]);
    expect(movesOf(["a", "b", "c"], ["c", "b", "a"])).toEqual([["c", 3, 1], ["a", 1, 3]]);
    expect(movesOf(["a", "b"], ["b", "a"])).toHaveLength(1);
    expect(movesOf(["a", "b", "c"], ["a", "b", "c"])).toEqual([]);
  });

  it("insertions and removals shift steps without moving them", () => {
    const d = decideReapproval(plan(1, order(["a", "b", "c"])), plan(2, order(["x", "a", "c", "y"])));
    expect(d.moved).toEqual([]);
    expect(d.required.map((r) => [r.stepId, r.reasons])).toEqual([["x", ["added"]], ["y", ["added"]]]);
  });

  it("a step stays put unless every minimal set must move it", () => {
    // x keeps position 3, but c and d jumped over it and a, b fell behind it: 3 moves are minimal and x is in every such set.
    const d = movesOf(["a", "b", "x", "c", "d"], ["c", "d", "x", "a", "b"]);
    expect(d).toHaveLength(3);
    // whenever a same-position step can stay, it does
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 9 }).chain((ids) => fc.tuple(fc.constant(ids), fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }))), ([a, b]) => {
        const before = a.map(String);
        const after = b.map(String);
        const kept = keptInOrder(before, after);
        const lis = kept.size;
        for (const id of after) {
          if (kept.has(id) || before.indexOf(id) !== after.indexOf(id)) continue;
          // forcing `id` in place leaves a shorter subsequence
          const pre = (xs: string[]) => xs.slice(0, xs.indexOf(id));
          const post = (xs: string[]) => xs.slice(xs.indexOf(id) + 1);
          const inter = (xs: string[], ys: string[]) => xs.filter((x) => ys.includes(x));
          const lcs = (xs: string[], ys: string[]) => keptInOrder(inter(xs, ys), inter(ys, xs)).size;
          expect(lcs(pre(before), pre(after)) + 1 + lcs(post(before), post(after))).toBeLessThan(lis);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("reasons beyond the arguments", () => {
  it("a changed prerequisite list needs re-approval", () => {
    const d = decideReapproval(plan(1, [step("a"), step("b")]), plan(2, [step("a"), step("b", undefined, undefined, { dependsOn: ["a"] })]));
    expect(d.required).toEqual([{ stepId: "b", position: 2, reasons: ["prerequisites_changed"] }]);
  });

  it("an approved step with a new warning its approver did not acknowledge needs re-approval; an acknowledged one does not", () => {
    const p = plan(1, [step("a"), step("b")]);
    const issues = [{ stepId: "b", code: "unbacked_commitment", needsAcknowledgement: true }];
    expect(decideReapproval(p, { ...p, version: 2 }, { issues, approvals: [{ stepId: "b", acknowledged: [] }] }).required).toEqual([
      { stepId: "b", position: 2, reasons: ["unacknowledged_warning"] },
    ]);
    expect(decideReapproval(p, { ...p, version: 2 }, { issues, approvals: [{ stepId: "b", acknowledged: [{ code: "unbacked_commitment", stepId: "b" }] }] }).required).toEqual([]);
    // a step nobody approved has no approval to lose
    expect(decideReapproval(p, { ...p, version: 2 }, { issues, approvals: [] }).required).toEqual([]);
  });

  it("groups by first reason: added, changed, moved — each once with all its reasons", () => {
    const before = plan(1, [step("a"), step("b"), step("c")]);
    const after = plan(2, [step("c", undefined, { ticketId: "74991", note: "new" }), step("n"), step("a"), step("b")]);
    expect(decideReapproval(before, after).required).toEqual([
      { stepId: "n", position: 2, reasons: ["added"] },
      { stepId: "c", position: 1, reasons: ["changed", "moved"] },
    ]);
  });
});

describe("a step only the gate policy approved (issue #17)", () => {
  const before = plan(1, [step("n1"), step("r1", "send_reply", { ticketId: "74991", body: "a" })]);
  const after = plan(2, [before.steps[0], step("r1", "send_reply", { ticketId: "74991", body: "b" })]);
  const required = (approverId: string | null | undefined, gate: "auto" | "approval_required") =>
    decideReapproval(before, after, { approvals: [{ stepId: "n1", acknowledged: [], approverId }], gate: { n1: gate, r1: "approval_required" } }).required;

  it("needs a person when the edited plan's gate asks for one", () => {
    expect(required(null, "approval_required")).toEqual([
      { stepId: "r1", position: 2, reasons: ["changed"] },
      { stepId: "n1", position: 1, reasons: ["gate_changed"] },
    ]);
    expect(describeReapproval(diffPlans(before, after, undefined, { approvals: [{ stepId: "n1", approverId: null }], gate: { n1: "approval_required" } }), after)).toBe(
      "re-approval required for step 2 (changed), step 1 (now needs a person's approval)",
    );
  });

  it("keeps the policy's consent while the step stays auto, and a person's consent whatever the gate", () => {
    expect(required(null, "auto").map((e) => e.stepId)).toEqual(["r1"]);
    expect(required("usr_senior", "approval_required").map((e) => e.stepId)).toEqual(["r1"]);
    expect(required(undefined, "approval_required").map((e) => e.stepId)).toEqual(["r1"]);
  });
});
