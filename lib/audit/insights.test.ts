import { describe, expect, it } from "vitest";
import type { Step } from "../plan/schema";
import { assembleInsights, binIndex, OVER_HALF, planEditSize, recurringEdits, touchesMoreThanHalf, type InsightDiff, type InsightEdit, type InsightRun } from "./insights";
import { computeInsights } from "../../testing/insights-from-rows";

const step = (id: string, tool = "add_ticket_note"): Step => ({ id, tool, args: {}, provenance: {}, author: { kind: "model" } });

/** A hand-written diff: `order` = post-edit step ids; the rest as named. */
function diff(d: {
  order: string[];
  added?: [string, string][];
  removed?: [string, string][];
  changed?: { stepId: string; tool: string; fields: { path: string; before?: unknown; after?: unknown }[] }[];
  moved?: string[];
}): InsightDiff {
  const added = (d.added ?? []).map(([id, tool]) => step(id, tool));
  const removed = (d.removed ?? []).map(([id, tool]) => step(id, tool));
  const changed = (d.changed ?? []).map((c) => ({
    stepId: c.stepId,
    tool: c.tool,
    position: d.order.indexOf(c.stepId) + 1,
    digestBefore: "a".repeat(64),
    digestAfter: "b".repeat(64),
    fields: c.fields.map((f) => ({ path: f.path, segments: f.path.split("."), kind: "changed" as const, before: f.before, after: f.after })),
  }));
  const moved = (d.moved ?? []).map((id) => ({ stepId: id, tool: "add_ticket_note", from: 1, to: 2 }));
  const touched = new Set([...added.map((s) => s.id), ...changed.map((c) => c.stepId), ...moved.map((m) => m.stepId)]);
  return { added, removed, changed, moved, order: d.order, touchedStepIds: d.order.filter((id) => touched.has(id)) };
}

const edit = (runId: string, editorId: string, d: InsightDiff, toVersion = 2, createdAt = "2026-05-01T10:00:00Z"): InsightEdit => ({
  runId,
  fromVersion: toVersion - 1,
  toVersion,
  editorId,
  createdAt,
  diff: d,
});

// Ten runs over three days. Plans have 4 steps a–d unless an edit says otherwise.
const runs: InsightRun[] = [
  { id: "r1", createdAt: "2026-05-01T08:00:00Z", status: "completed" }, // edited: 1 of 4 changed (0.25)
  { id: "r2", createdAt: "2026-05-01T09:00:00Z", status: "completed" }, // unedited
  { id: "r3", createdAt: "2026-05-01T23:59:59Z", status: "rejected" }, // edited: 3 of 4 changed (0.75)
  { id: "r4", createdAt: "2026-05-01T12:00:00Z", status: "failed" }, // unedited
  { id: "r5", createdAt: "2026-05-02T00:00:00Z", status: "approved" }, // edited twice: +1 step, then 1 change → run 2 of 5
  { id: "r6", createdAt: "2026-05-02T10:00:00Z", status: "pending_review" }, // edited but not decided
  { id: "r7", createdAt: "2026-05-02T11:00:00Z", status: "expired" }, // unedited, never decided
  { id: "r8", createdAt: "2026-05-04T11:00:00Z", status: "stopped" }, // edited: 3 removed of 4 (0.75)
  { id: "r9", createdAt: "2026-05-04T12:00:00Z", status: "executing" }, // edited: 1 of 4 (0.25), same change as r1
  { id: "r10", createdAt: "2026-05-04T13:00:00Z", status: "completed" }, // edited: date moved +4 days (0.25)
];
const abcd = ["a", "b", "c", "d"];
const noteChange = { stepId: "a", tool: "add_ticket_note", fields: [{ path: "args.note", before: "Called.", after: "Called twice." }] };
const edits: InsightEdit[] = [
  edit("r1", "u_sam", diff({ order: abcd, changed: [noteChange] })),
  edit("r3", "u_sam", diff({
    order: abcd,
    changed: [
      { stepId: "a", tool: "add_ticket_note", fields: [{ path: "args.note", before: "Called.", after: "Customer phoned." }] },
      { stepId: "b", tool: "escalate_ticket", fields: [{ path: "args.team", before: "operations", after: "billing" }] },
      { stepId: "c", tool: "issue_refund", fields: [{ path: "args.amount", before: { minor: 5000, currency: "USD" }, after: { minor: 4000, currency: "USD" } }] },
    ],
  })),
  edit("r5", "u_olivia", diff({ order: [...abcd, "e"], added: [["e", "issue_refund"]] }), 2),
  edit("r5", "u_sam", diff({ order: [...abcd, "e"], changed: [{ stepId: "e", tool: "issue_refund", fields: [{ path: "args.amount", before: { minor: 5000, currency: "USD" }, after: { minor: 4000, currency: "USD" } }] }, { ...noteChange, stepId: "b" }] }), 3),
  edit("r6", "u_sam", diff({ order: abcd, changed: [noteChange] })),
  edit("r8", "u_olivia", diff({ order: ["d"], removed: [["a", "add_ticket_note"], ["b", "add_ticket_note"], ["c", "send_reply"]] })),
  edit("r9", "u_olivia", diff({ order: abcd, changed: [noteChange] })),
  edit("r10", "u_sam", diff({
    order: abcd,
    changed: [{ stepId: "b", tool: "reschedule_delivery", fields: [{ path: "args.window.from", before: "2026-05-06", after: "2026-05-10" }] }],
  })),
  edit("ghost", "u_sam", diff({ order: abcd, changed: [noteChange] })), // a run outside the set: ignored
];

describe("assembleInsights over the aggregates of a hand-computed fixture", () => {
  const ins = computeInsights(runs, edits, { threshold: 0.2 });

  it("edit rate = edited decided runs / decided runs", () => {
    // decided: r1 r2 r3 r4 r5 r8 r9 r10 (8); edited among them: r1 r3 r5 r8 r9 r10 (6)
    expect(ins.runs).toEqual({ total: 10, decided: 8, pending: 1, expired: 1 });
    expect(ins.editRate).toEqual({ decided: 8, edited: 6, rate: 0.75 });
    // the edits of those same decided runs: all 8 but r6's (its run waits for review)
    expect(ins.edits.onDecidedRuns).toBe(7);
  });

  it("edit sizes per edit and their distribution", () => {
    // per edit: r1 1/4, r3 3/4, r5a 1/5, r5b 2/5, r6 1/4, r8 3/4 (3 removed of 4 identities), r9 1/4, r10 1/4
    // sorted: .2 .25 .25 .25 .25 .4 .75 .75 → median .25, mean 3.1/8
    expect(ins.edits.count).toBe(8);
    expect(ins.edits.medianSize).toBe(0.25);
    expect(ins.edits.meanSize).toBeCloseTo(3.1 / 8, 10);
    // 2 edits alone touch more than half (r3, r8): the orange bars
    expect(ins.editSizeBins.map((b) => b.edits)).toEqual([0, 1, 4, 1, 0, 0, 0, 2, 0, 0]);
    expect(ins.editSizeBins[1].label).toBe("10–20%");
    expect(ins.editSizeBins.filter((b) => b.overHalf).map((b) => b.label)).toEqual(["50–60%", "60–70%", "70–80%", "80–90%", "90–100%"]);
  });

  it("share of decided plans over half touched per submission day, gaps filled, alerts above the line", () => {
    // 05-01: r1 .25, r2 0, r3 .75, r4 0 → 1 of 4
    // 05-02: r5 (union: e added, e and b changed → 2 of 5) → 0 of 1 (r6 pending, r7 expired: not decided)
    // 05-03: nothing decided → gap
    // 05-04: r8 .75, r9 .25, r10 .25 → 1 of 3
    expect(ins.drift.points).toEqual([
      { day: "2026-05-01", plans: 4, overHalf: 1, share: 0.25 },
      { day: "2026-05-02", plans: 1, overHalf: 0, share: 0 },
      { day: "2026-05-03", plans: 0, overHalf: 0, share: null },
      { day: "2026-05-04", plans: 3, overHalf: 1, share: 1 / 3 },
    ]);
    expect(ins.drift.alertDays).toEqual(["2026-05-01", "2026-05-04"]);
    // the headline count is the same definition: r3 and r8 of the 8 decided plans
    expect(ins.plansOverHalf).toEqual({ plans: 2, decided: 8 });
    expect(computeInsights(runs, edits, { threshold: 0.3 }).drift.alertDays).toEqual(["2026-05-04"]);
  });

  it("outcomes of edited vs unedited plans", () => {
    const row = (k: string) => ins.outcomes.find((o) => o.key === k)!;
    expect(row("completed")).toMatchObject({ edited: 2, unedited: 1 }); // r1 r10 | r2
    expect(row("failed")).toMatchObject({ edited: 0, unedited: 1 }); // r4
    expect(row("stopped")).toMatchObject({ edited: 1, unedited: 0 }); // r8
    expect(row("rejected")).toMatchObject({ edited: 1, unedited: 0 }); // r3
    expect(row("expired")).toMatchObject({ edited: 0, unedited: 1 }); // r7
    expect(row("in_progress")).toMatchObject({ edited: 2, unedited: 0 }); // r5 r9
    // edited: 2 completed of (2 + 0 failed + 1 stopped); unedited: 1 of (1 + 1)
    expect(ins.completionRate.edited).toBeCloseTo(2 / 3, 10);
    expect(ins.completionRate.unedited).toBe(0.5);
  });

  it("recurring edits: same tool and field changed the same way, or at all, on two runs by two people", () => {
    // note "Called." → "Called twice.": r1, r5b (step b), r6 by Sam, r9 by Olivia = 4 edits in 4 runs
    // note changed at all: those 4 + r3 = 5; issue_refund amount $50.00 → $40.00: r3, r5b — both
    // Sam's, so not recurring; single occurrences (team, window.from, step added/removed) neither
    expect(ins.recurring.map((r) => [r.kind, r.tool, r.pattern, r.count, r.runs])).toEqual([
      ["field", "add_ticket_note", "note changed", 5, 5],
      ["field_change", "add_ticket_note", "note: Called. → Called twice.", 4, 4],
    ]);
    expect(ins.recurring[1].editors).toEqual(["u_olivia", "u_sam"]);
  });
});

describe("a run that needs a new decision", () => {
  it("was decided (approved, then its next step could not be claimed): it counts as decided and as approved, not finished", () => {
    const i = assembleInsights({ runsByStatus: [{ status: "needs_decision", edited: true, count: 2 }, { status: "pending_review", edited: false, count: 1 }], decidedByDay: [], editBins: [], editCount: 0, decidedEditCount: 0, meanSize: 0, medianSize: 0, recentEdits: [] });
    expect(i.runs).toEqual({ total: 3, decided: 2, pending: 1, expired: 0 });
    expect(i.editRate).toEqual({ decided: 2, edited: 2, rate: 1 });
    expect(i.outcomes.find((o) => o.key === "in_progress")).toMatchObject({ edited: 2, unedited: 0 });
  });
});

describe("pieces", () => {
  it("bins hold (lower, upper]; exactly one half is not over half", () => {
    expect([0, 0.05, 0.1, 0.1000001, 0.3, 1 / 3, 0.5, 0.51, 1].map(binIndex)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 9]);
  });

  it("plan edit size unions touched ids over every edit of the run", () => {
    const r5 = edits.filter((e) => e.runId === "r5");
    expect(planEditSize(r5)).toEqual({ touched: 2, total: 5, fraction: 0.4 });
    expect(planEditSize([])).toEqual({ touched: 0, total: 0, fraction: 0 });
  });

  it("a date moved by the same number of days is one pattern, whatever the dates", () => {
    const shift = (runId: string, before: string, after: string) =>
      edit(runId, "u_sam", diff({ order: ["b"], changed: [{ stepId: "b", tool: "reschedule_delivery", fields: [{ path: "args.window.from", before, after }] }] }));
    const rec = recurringEdits([shift("x", "2026-05-06", "2026-05-10"), shift("y", "2026-06-28", "2026-07-02"), shift("z", "2026-06-28", "2026-06-29")], { minEditors: 1 });
    expect(rec.map((r) => [r.kind, r.pattern, r.count])).toEqual([
      ["field", "window.from changed", 3],
      ["date_shift", "window.from moved +4 days", 2],
    ]);
  });

  it("one person's repeated edit is not recurring, on one run or on many; two people on one run neither", () => {
    const note = (runId: string, editor: string, v = 2) => edit(runId, editor, diff({ order: ["a"], changed: [noteChange] }), v);
    expect(recurringEdits([note("x", "u_sam", 2), note("x", "u_sam", 3), note("x", "u_sam", 4)])).toEqual([]);
    expect(recurringEdits([note("x", "u_sam"), note("y", "u_sam"), note("z", "u_sam")])).toEqual([]);
    expect(recurringEdits([note("x", "u_sam", 2), note("x", "u_olivia", 3)])).toEqual([]);
    const two = recurringEdits([note("x", "u_sam"), note("y", "u_olivia")]);
    expect(two.map((r) => [r.pattern, r.runs, r.editors])).toEqual([
      ["note: Called. → Called twice.", 2, ["u_olivia", "u_sam"]],
      ["note changed", 2, ["u_olivia", "u_sam"]],
    ]);
  });

  it("more than half means > 0.5 everywhere: one function, and plans of several small edits count", () => {
    expect([0.5, 0.5000001, 2 / 3, 0.49].map(touchesMoreThanHalf)).toEqual([false, true, true, false]);
    expect(OVER_HALF).toBe(0.5);
    // Two edits of one 3-step plan, each touching one step (1/3 each): no edit alone is over half,
    // the plan is (2 of 3). The headline and the drift series say 1; no orange bar is lit.
    const r: InsightRun[] = [{ id: "p", createdAt: "2026-05-01T08:00:00Z", status: "approved" }];
    const e = [
      edit("p", "u_sam", diff({ order: ["a", "b", "c"], changed: [{ ...noteChange, stepId: "a" }] }), 2),
      edit("p", "u_sam", diff({ order: ["a", "b", "c"], changed: [{ ...noteChange, stepId: "b" }] }), 3),
    ];
    const got = computeInsights(r, e);
    expect(got.plansOverHalf).toEqual({ plans: 1, decided: 1 });
    expect(got.drift.points[0]).toMatchObject({ plans: 1, overHalf: 1 });
    expect(got.editSizeBins.filter((b) => b.overHalf).reduce((a, b) => a + b.edits, 0)).toBe(0);
  });

  it("a recurring date shift carries the fewest days ahead people set; an added step the tool that followed it", () => {
    const shift = (runId: string, editor: string, after: string, at: string) =>
      edit(runId, editor, diff({ order: ["b"], changed: [{ stepId: "b", tool: "reschedule_delivery", fields: [{ path: "args.window.from", before: "2026-05-03", after }] }] }), 2, at);
    const [s] = recurringEdits([shift("x", "u_sam", "2026-05-05", "2026-05-01T10:00:00Z"), shift("y", "u_olivia", "2026-05-05", "2026-05-02T23:00:00Z")]).filter((r) => r.kind === "date_shift");
    expect(s).toMatchObject({ pattern: "window.from moved +2 days", minDaysAhead: 3, tool: "reschedule_delivery", path: "window.from" });
    const added = (runId: string, editor: string) => edit(runId, editor, diff({ order: ["a", "n", "r"], added: [["n", "add_ticket_note"]], moved: ["r"] }));
    const [a] = recurringEdits([added("x", "u_sam"), added("y", "u_olivia")]);
    expect(a).toMatchObject({ kind: "step_added", tool: "add_ticket_note", minDaysAhead: null });
    expect(a.key).toBe("added|add_ticket_note");
  });

  it("no runs: zeros, no points, no division by zero", () => {
    const empty = computeInsights([], []);
    expect(empty.editRate).toEqual({ decided: 0, edited: 0, rate: 0 });
    expect(empty.drift.points).toEqual([]);
    expect(empty.completionRate).toEqual({ edited: null, unedited: null });
  });
});
