import { DEMO_AGENT_TOOLS } from "../demo/desk-data";
import { validatePlan } from "../validation/pipeline";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import canonicalize from "canonicalize";
import type { Plan, Step } from "../plan/schema";
import {
  applyDiff,
  describeReapproval,
  diffPlans,
  editSize,
  formatPath,
  planDiffSchema,
  PlanDiffError,
  type PlanDiff,
} from "./plan-diff";
import { digest } from "../plan/digest";
import { referenceAfter, referenceBefore, referenceDesk, referenceRefundStep } from "./test-fixtures";

const step = (id: string, tool: string, args: Record<string, unknown>): Step => ({
  id,
  tool,
  args,
  provenance: {},
  author: { kind: "model" },
});
const plan = (version: number, ...steps: Step[]): Plan => ({ version, steps });

describe("reference case (ticket #74991)", () => {
  const before = referenceBefore();
  const after = referenceAfter();
  const desk = referenceDesk();
  // the validator's issues of the edited plan: the diff annotates its changed steps with them
  const issues = validatePlan(after, { desk, now: new Date("2026-04-01T09:00:00Z"), agentAllowedTools: [...DEMO_AGENT_TOOLS, "issue_refund"] }).issues;
  const diff = diffPlans(before, after, desk, { issues });

  it("counts 2 changes: step 2 changed, step 4 added", () => {
    expect(diff.changeCount).toBe(2);
    expect(diff.added).toEqual([referenceRefundStep()]);
    expect(diff.removed).toEqual([]);
    expect(diff.moved).toEqual([]);
    expect(diff.changed).toHaveLength(1);
    expect(diff.changed[0]).toMatchObject({ stepId: "st_resched", tool: "reschedule_delivery", position: 2 });
    expect(diff.changed[0].fields).toEqual([
      { path: "args.window.from", segments: ["args", "window", "from"], kind: "changed", before: "2026-04-02", after: "2026-04-06" },
      { path: "args.window.to", segments: ["args", "window", "to"], kind: "changed", before: "2026-04-03", after: "2026-04-07" },
    ]);
    expect(diff.changed[0].digestBefore).toBe(digest(before.steps[1]));
    expect(diff.changed[0].digestAfter).toBe(digest(after.steps[1]));
  });

  it("summarises in plan order, one line per change", () => {
    expect(diff.summary).toEqual([
      "step 2 reschedule_delivery: window.from 2026-04-02 → 2026-04-06; window.to 2026-04-03 → 2026-04-07",
      "step 4 issue_refund added",
    ]);
  });

  it("annotates the added refund with the validator's own issue (one rule set) and its balance", () => {
    expect(diff.annotations.filter((a) => a.stepId === "st_refund")).toEqual([
      {
        stepId: "st_refund",
        severity: "warning",
        code: "cross_account_target",
        path: "args.invoiceId",
        message: "invoice in_74119 belongs to Halvorsen Freight, not to Nordkapp Logistics (the account on ticket #74991)",
      },
      {
        stepId: "st_refund",
        severity: "info",
        code: "amount_of_balance",
        path: "args.amount",
        message: "amount $1,489.00 of open balance $2,120.00",
      },
    ]);
    // every other annotation is a validator issue of a changed step, word for word
    for (const a of diff.annotations.filter((x) => x.code !== "amount_of_balance")) {
      expect(issues).toContainEqual(expect.objectContaining({ stepId: a.stepId, code: a.code, severity: a.severity, message: a.message }));
    }
    expect(diff.annotations.every((a) => a.stepId === "st_refund" || a.stepId === "st_resched")).toBe(true);
  });

  it("requires re-approval for step 4 (added), then step 2 (changed)", () => {
    expect(diff.reapprovalRequired).toEqual(["st_refund", "st_resched"]);
    expect(diff.touchedStepIds).toEqual(["st_resched", "st_refund"]);
    expect(describeReapproval(diff, after)).toBe("re-approval required for step 4 (added), step 2 (changed)");
  });

  it("ignores provenance/author-only differences for changes but records them", () => {
    expect(diff.metadataChanged).toEqual([
      { stepId: "st_resched", author: { kind: "model" }, provenance: after.steps[1].provenance },
    ]);
  });

  it("validates against its own zod schema and survives a JSON round trip", () => {
    const json = JSON.parse(JSON.stringify(diff)) as PlanDiff;
    expect(planDiffSchema.parse(json)).toEqual(diff);
    expect(applyDiff(before, json)).toEqual(after.steps);
  });

  it("has no annotations without the validator's issues and a desk", () => {
    expect(diffPlans(before, after).annotations).toEqual([]);
  });

  it("annotates only added and changed steps: an issue of an unchanged step is the card's, not the diff's", () => {
    const onNote = { stepId: "st_note", code: "missing_rationale", severity: "warning" as const, path: "steps.0.args", message: "no rationale" };
    expect(diffPlans(before, after, undefined, { issues: [onNote] }).annotations).toEqual([]);
  });

  it("edit size: 2 of 4 steps touched", () => {
    expect(editSize(diff)).toEqual({ touched: 2, total: 4, fraction: 0.5 });
  });
});

describe("field changes", () => {
  it("reports every changed leaf at any depth with dotted/indexed paths", () => {
    const a = plan(1, step("s1", "t", { items: [{ sku: "A", qty: 1 }, { sku: "B", qty: 2 }, { sku: "C", qty: 3 }], meta: { deep: { x: 1 } } }));
    const b = plan(2, step("s1", "t", { items: [{ sku: "A", qty: 1 }, { sku: "B", qty: 5 }, { sku: "Z", qty: 3 }], meta: { deep: { x: 2 } } }));
    const d = diffPlans(a, b);
    expect(d.changeCount).toBe(1);
    expect(d.changed[0].fields.map((f) => [f.path, f.before, f.after])).toEqual([
      ["args.items[1].qty", 2, 5],
      ["args.items[2].sku", "C", "Z"],
      ["args.meta.deep.x", 1, 2],
    ]);
    expect(d.summary).toEqual(["step 1 t: items[1].qty 2 → 5; items[2].sku C → Z; meta.deep.x 1 → 2"]);
  });

  it("a key on one side only is added/removed with the absent side omitted", () => {
    const a = plan(1, step("s1", "t", { keep: 1, gone: { nested: true }, list: [1, 2, 3] }));
    const b = plan(2, step("s1", "t", { keep: 1, fresh: [1], list: [1] }));
    const fields = diffPlans(a, b).changed[0].fields;
    expect(fields).toEqual([
      { path: "args.fresh", segments: ["args", "fresh"], kind: "added", after: [1] },
      { path: "args.list[1]", segments: ["args", "list", 1], kind: "removed", before: 2 },
      { path: "args.list[2]", segments: ["args", "list", 2], kind: "removed", before: 3 },
      { path: "args.gone", segments: ["args", "gone"], kind: "removed", before: { nested: true } },
    ]);
    expect("before" in fields[0]).toBe(false);
    expect("after" in fields[1]).toBe(false);
    expect(applyDiff(a, diffPlans(a, b))).toEqual(b.steps);
  });

  it("key order and undefined-valued keys are not changes (same as the digest)", () => {
    const a = plan(1, step("s1", "t", { x: 1, y: { p: 1, q: 2 }, z: undefined }));
    const b = plan(2, step("s1", "t", { y: { q: 2, p: 1 }, x: 1 }));
    expect(diffPlans(a, b).changeCount).toBe(0);
  });

  it("null is a value, distinct from absent; a type change is one field", () => {
    const a = plan(1, step("s1", "t", { v: null, w: { a: 1 } }));
    const b = plan(2, step("s1", "t", { w: "flat" }));
    expect(diffPlans(a, b).changed[0].fields).toEqual([
      { path: "args.w", segments: ["args", "w"], kind: "changed", before: { a: 1 }, after: "flat" },
      { path: "args.v", segments: ["args", "v"], kind: "removed", before: null },
    ]);
  });

  it("odd keys get bracketed paths", () => {
    expect(formatPath(["args", "odd key", 0, "ok_1"])).toBe('args["odd key"][0].ok_1');
  });

  it("money changes read as money in the summary", () => {
    const a = plan(1, step("s1", "issue_refund", { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" } }));
    const b = plan(2, step("s1", "issue_refund", { invoiceId: "in_74119", amount: { minor: 120000, currency: "USD" } }));
    const d = diffPlans(a, b, referenceDesk());
    expect(d.changed[0].fields).toEqual([
      { path: "args.amount", segments: ["args", "amount"], kind: "changed", before: { minor: 148900, currency: "USD" }, after: { minor: 120000, currency: "USD" } },
    ]);
    expect(d.summary).toEqual(["step 1 issue_refund: amount $1,489.00 → $1,200.00"]);
    expect(d.annotations.map((x) => x.code)).toEqual(["amount_of_balance"]);
  });
});

describe("added, removed, tool change, reorder", () => {
  const n = step("n", "add_ticket_note", { ticketId: "74991", note: "x" });
  const r = step("r", "reschedule_delivery", { shipmentId: "sh_5521", window: { from: "2026-04-02", to: "2026-04-03" } });
  const s = step("s", "send_reply", { ticketId: "74991", body: "hi" });

  it("removal: reported once, positions of the rest are not moves", () => {
    const d = diffPlans(plan(1, n, r, s), plan(2, r, s));
    expect(d.removed).toEqual([n]);
    expect(d.moved).toEqual([]);
    expect(d.changeCount).toBe(1);
    expect(d.summary).toEqual(["step 1 add_ticket_note removed"]);
    expect(d.reapprovalRequired).toEqual([]);
    expect(describeReapproval(d, plan(2, r, s))).toBe("no re-approval required");
    expect(editSize(d)).toEqual({ touched: 1, total: 3, fraction: 1 / 3 });
  });

  it("insertion in the middle shifts later steps without moving them", () => {
    const x = step("x", "escalate_ticket", { ticketId: "74991", team: "billing" });
    const d = diffPlans(plan(1, n, r, s), plan(2, n, x, r, s));
    expect(d.moved).toEqual([]);
    expect(d.summary).toEqual(["step 2 escalate_ticket added"]);
  });

  it("same id with a different tool is removed + added, never a field change", () => {
    const r2 = step("r", "issue_refund", { invoiceId: "in_74119", amount: { minor: 100, currency: "USD" } });
    const d = diffPlans(plan(1, n, r, s), plan(2, n, r2, s), referenceDesk());
    expect(d.changed).toEqual([]);
    expect(d.removed).toEqual([r]);
    expect(d.added).toEqual([r2]);
    expect(d.changeCount).toBe(2);
    expect(d.reapprovalRequired).toEqual(["r"]);
    expect(d.summary).toEqual(["step 2 issue_refund added", "step 2 reschedule_delivery removed"]);
    expect(describeReapproval(d, plan(2, n, r2, s))).toBe("re-approval required for step 2 (added)");
    expect(applyDiff(plan(1, n, r, s), d)).toEqual([n, r2, s]);
  });

  it("reorder: only steps whose relative order changed are moved, and they need re-approval", () => {
    const d = diffPlans(plan(1, n, r, s), plan(2, r, s, n));
    expect(d.moved).toEqual([{ stepId: "n", tool: "add_ticket_note", from: 1, to: 3 }]);
    expect(d.changeCount).toBe(1);
    expect(d.touchedStepIds).toEqual(["n"]);
    expect(d.reapprovalRequired).toEqual(["n"]);
    expect(describeReapproval(d, plan(2, r, s, n))).toBe("re-approval required for step 3 (moved)");
    expect(d.summary).toEqual(["step 3 add_ticket_note moved from position 1 to 3"]);
    expect(applyDiff(plan(1, n, r, s), d)).toEqual([r, s, n]);
  });

  it("a step both changed and moved counts twice", () => {
    const s2 = { ...s, args: { ...s.args, body: "hello" } };
    const d = diffPlans(plan(1, n, r, s), plan(2, s2, n, r));
    expect(d.changeCount).toBe(2);
    expect(d.summary).toEqual(['step 1 send_reply: body hi → hello', "step 1 send_reply moved from position 3 to 1"]);
    expect(d.reapprovalRequired).toEqual(["s"]);
  });

  it("throws a typed error on duplicate ids", () => {
    expect(() => diffPlans(plan(1, n, n), plan(2, n))).toThrow(PlanDiffError);
    try {
      diffPlans(plan(1, n), plan(2, r, r));
    } catch (e) {
      expect((e as PlanDiffError).code).toBe("duplicate_step_id");
    }
  });

  it("applyDiff refuses a diff computed from another base", () => {
    const d = diffPlans(plan(1, n, r), plan(2, n, { ...r, args: { ...r.args, shipmentId: "sh_1" } }));
    const otherBase = plan(1, n, { ...r, args: { ...r.args, shipmentId: "sh_2" } });
    expect(() => applyDiff(otherBase, d)).toThrow(/does not match the base plan/);
  });
});

describe("annotations", () => {
  const desk = referenceDesk();
  it("every fact the validator checks appears once, with the validator's code and message (no second rule set)", () => {
    const before = plan(1, step("a", "add_ticket_note", { ticketId: "74991", note: "x" }));
    const after = plan(
      2,
      step("a", "add_ticket_note", { ticketId: "74991", note: "y" }),
      step("b", "issue_refund", { invoiceId: "in_99999", amount: { minor: 1, currency: "USD" }, reason: "r" }),
      step("d", "issue_refund", { invoiceId: "in_74119", amount: { minor: 300000, currency: "USD" }, reason: "r" }),
      step("e", "issue_refund", { invoiceId: "in_74119", amount: { minor: 100, currency: "EUR" }, reason: "r" }),
      step("f", "reschedule_delivery", { shipmentId: "sh_5521", window: { from: "2026-04-05", to: "2026-04-05" }, reason: "r" }),
    );
    const issues = validatePlan(after, { desk, now: new Date("2026-04-01T09:00:00Z"), agentAllowedTools: [...DEMO_AGENT_TOOLS, "issue_refund"] }).issues;
    const d = diffPlans(before, after, desk, { issues });
    const onChanged = issues.filter((i) => ["a", "b", "d", "e", "f"].includes(i.stepId ?? ""));
    expect(onChanged.length).toBeGreaterThan(0);
    // each validator issue of a touched step is an annotation with the same code, severity and message
    for (const i of onChanged) expect(d.annotations).toContainEqual(expect.objectContaining({ stepId: i.stepId, code: i.code, severity: i.severity, message: i.message }));
    // and nothing else but the informational balance note
    expect(d.annotations.filter((a) => a.code !== "amount_of_balance")).toHaveLength(onChanged.length);
    expect(new Set(d.annotations.map((a) => a.code))).toEqual(new Set([...onChanged.map((i) => i.code), ...(d.annotations.some((a) => a.code === "amount_of_balance") ? ["amount_of_balance"] : [])]));
    // the facts the old desk-computed notes reported, now under the validator's codes
    const codes = onChanged.map((i) => i.code);
    expect(codes).toEqual(expect.arrayContaining(["unknown_id", "cross_account_target", "amount_exceeds_balance", "currency_mismatch", "window_on_holiday"]));
  });

  it("unchanged and moved-only steps are not annotated", () => {
    const refund = referenceRefundStep();
    const note = step("a", "add_ticket_note", { ticketId: "74991", note: "x" });
    const d = diffPlans(plan(1, refund, note), plan(2, note, refund), desk);
    expect(d.moved).toHaveLength(1);
    expect(d.annotations).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------------

const canon = (v: unknown) => canonicalize(v);
const IDS = ["a", "b", "c", "d", "e", "f", "g"];
const TOOLS = ["add_ticket_note", "issue_refund", "send_reply"];

const leaf = fc.oneof(fc.constantFrom(0, 1, 2, "x", "y", "2026-04-02", null, true, false), fc.integer(), fc.string({ maxLength: 4 }));
const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("p", "q", "r", "from", "to", "sku", "__proto__", "odd key"), tie("value"), { maxKeys: 3 }),
  ),
}));
const argsArb = fc.oneof(
  fc.dictionary(fc.constantFrom("ticketId", "invoiceId", "amount", "window", "items", "note"), jsonish, { maxKeys: 4 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
) as fc.Arbitrary<Record<string, unknown>>;
const provArb = fc.constantFrom<Step["provenance"]>(
  {},
  { note: { kind: "model" } },
  { "window.from": { kind: "operator", userId: "u1", at: "2026-03-30T10:00:00.000Z", previous: "2026-04-02" } },
);
const authorArb = fc.constantFrom<Step["author"]>({ kind: "model" }, { kind: "user", userId: "u1" });
const stepArb = fc.record({
  id: fc.constantFrom(...IDS),
  tool: fc.constantFrom(...TOOLS),
  args: argsArb,
  provenance: provArb,
  author: authorArb,
});
const planArb = (version: number) =>
  fc.uniqueArray(stepArb, { selector: (s) => s.id, maxLength: IDS.length }).map((steps): Plan => ({ version, steps }));

/** `after` derived from `before` by edits (keep/drop, reorder, tweak args, add), so most ids overlap. */
const editedPairArb = planArb(1).chain((before) =>
  fc
    .record({
      keep: fc.array(fc.boolean(), { minLength: before.steps.length, maxLength: before.steps.length }),
      tweak: fc.array(fc.option(argsArb, { freq: 2 }), { minLength: before.steps.length, maxLength: before.steps.length }),
      extra: planArb(2),
      order: fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
    })
    .map(({ keep, tweak, extra, order }) => {
      const kept = before.steps
        .filter((_, i) => keep[i])
        .map((s, i) => {
          const t = tweak[i];
          return t ? { ...s, args: i % 2 ? t : { ...s.args, ...t } } : s;
        });
      const ids = new Set(kept.map((s) => s.id));
      const steps = [...kept, ...extra.steps.filter((s) => !ids.has(s.id))];
      const sorted = steps
        .map((s, i) => ({ s, k: order[i] % 3 === 0 ? order[i] : i * 1000 }))
        .sort((x, y) => x.k - y.k)
        .map((x) => x.s);
      return [before, { version: 2, steps: sorted }] as [Plan, Plan];
    }),
);
/** Same ids and tools, structurally similar nested args: exercises leaf-level changes at depth. */
const nestedArgsArb = fc.record(
  {
    window: fc.record({ from: fc.constantFrom("2026-04-02", "2026-04-06"), to: fc.constantFrom("2026-04-03", "2026-04-07") }),
    items: fc.array(fc.record({ sku: fc.constantFrom("A", "B"), qty: fc.integer({ min: 0, max: 2 }) }, { requiredKeys: ["sku"] }), { maxLength: 3 }),
    amount: fc.record({ minor: fc.constantFrom(100, 148900), currency: fc.constantFrom("USD", "EUR") }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, unknown>>;
const nestedPairArb = fc
  .uniqueArray(fc.record({ id: fc.constantFrom(...IDS), tool: fc.constantFrom(...TOOLS), a: nestedArgsArb, b: nestedArgsArb }), {
    selector: (x) => x.id,
    maxLength: 5,
  })
  .map((rows): [Plan, Plan] => [
    { version: 1, steps: rows.map((r) => ({ id: r.id, tool: r.tool, args: r.a, provenance: {}, author: { kind: "model" } })) },
    { version: 2, steps: rows.map((r) => ({ id: r.id, tool: r.tool, args: r.b, provenance: {}, author: { kind: "model" } })) },
  ]);
const pairArb = fc.oneof(editedPairArb, nestedPairArb, fc.tuple(planArb(1), planArb(2)));

const argsWise = (steps: Step[]) => steps.map((s) => ({ ...s, args: canon(s.args) }));

function lcsLength(a: string[], b: string[]): number {
  const L = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      L[i][j] = a[i - 1] === b[j - 1] ? L[i - 1][j - 1] + 1 : Math.max(L[i - 1][j], L[i][j - 1]);
  return L[a.length][b.length];
}

describe("properties", () => {
  it("diff(a, a) is empty", () => {
    fc.assert(
      fc.property(planArb(1), (a) => {
        const d = diffPlans(a, structuredClone(a), referenceDesk());
        expect(d.changeCount).toBe(0);
        expect([d.added, d.removed, d.changed, d.moved, d.annotations, d.touchedStepIds, d.reapprovalRequired, d.summary, d.metadataChanged]).toEqual([[], [], [], [], [], [], [], [], []]);
        expect(d.order).toEqual(a.steps.map((s) => s.id));
      }),
      { numRuns: 300 },
    );
  });

  it("applyDiff(a, diffPlans(a, b)) rebuilds b.steps, also after a JSON round trip", () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const d = diffPlans(a, b);
        expect(argsWise(applyDiff(a, d))).toEqual(argsWise(b.steps));
        const json = JSON.parse(JSON.stringify(d)) as PlanDiff;
        expect(argsWise(applyDiff(a, json))).toEqual(argsWise(b.steps));
        expect(() => planDiffSchema.parse(json)).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it("nothing that differs is missing, and nothing equal is reported", () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const d = diffPlans(a, b, referenceDesk());
        const touched = new Set([...d.touchedStepIds, ...d.added.map((s) => s.id), ...d.removed.map((s) => s.id)]);
        const aById = new Map(a.steps.map((s) => [s.id, s]));
        const bById = new Map(b.steps.map((s) => [s.id, s]));
        for (const id of new Set([...aById.keys(), ...bById.keys()])) {
          const x = aById.get(id);
          const y = bById.get(id);
          const differs = !x || !y || digest(x) !== digest(y);
          if (differs) expect(touched.has(id)).toBe(true);
          // re-approval exactly for steps of b whose digest is new for that id, or that moved
          const moved = d.moved.some((m) => m.stepId === id);
          const depsChanged = !!x && !!y && JSON.stringify(x.dependsOn ?? []) !== JSON.stringify(y.dependsOn ?? []);
          if (y) expect(d.reapprovalRequired.includes(id)).toBe(differs || moved || depsChanged);
          const isChanged = d.changed.some((c) => c.stepId === id);
          expect(isChanged).toBe(!!x && !!y && x.tool === y.tool && digest(x) !== digest(y));
        }
        expect(new Set(d.reapprovalRequired).size).toBe(d.reapprovalRequired.length);
        expect(d.summary).toHaveLength(d.changeCount);
        expect(d.changeCount).toBe(d.added.length + d.removed.length + d.changed.length + d.moved.length);
        for (const c of d.changed) expect(c.fields.length).toBeGreaterThan(0);
        // moves are minimal: common ids minus one LCS
        const common = (p: Plan) => p.steps.filter((s) => bById.get(s.id)?.tool === aById.get(s.id)?.tool && aById.has(s.id) && bById.has(s.id)).map((s) => s.id);
        const ca = common(a);
        const cb = common(b);
        expect(d.moved.length).toBe(ca.length - lcsLength(ca, cb));
        const movedIds = new Set(d.moved.map((m) => m.stepId));
        expect(ca.filter((id) => !movedIds.has(id))).toEqual(cb.filter((id) => !movedIds.has(id)));
      }),
      { numRuns: 400 },
    );
  });
});
