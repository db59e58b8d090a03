import { describe, expect, it } from "vitest";
import type { Grant } from "../people/grants";
import type { Plan } from "../plan/schema";
import { DEMO_GRANTS, referenceEditedPlan, referencePlan } from "../../testing/fixtures/reference-desk";
import { authoredSteps } from "./authorship";
import { checkShape } from "./shape";
import { validatePlan } from "./pipeline";
import { codes, ctx, NOW, only, usd } from "../../testing/validation-context";

const base = referencePlan(NOW);
const edit = (userGrants: Grant[], edited: unknown, basePlan: Plan = base) =>
  validatePlan(edited, ctx({ editor: { userId: "u1", grants: userGrants }, basePlan }));
const withStep = (s: Record<string, unknown>) => ({ ...base, version: 2, steps: [...base.steps, s] });
const refundStep = (minor: number) => ({ id: "s4", tool: "issue_refund", args: { invoiceId: "in_74121", amount: usd(minor), reason: "Damage" }, author: { kind: "user", userId: "u1" } });
const refundGrant = (g: Partial<Grant>): Grant => ({ tool: "issue_refund", canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null, ...g });

describe("authorship stage", () => {
  it("does nothing without an editor and a base plan (not an edit)", () => {
    expect(validatePlan(withStep(refundStep(100)), ctx()).ok).toBe(true);
    expect(validatePlan(withStep(refundStep(100)), ctx({ editor: { userId: "u1", grants: [] } })).ok).toBe(true);
  });

  it("refuses an added step whose tool the editor may not author", () => {
    const r = edit(DEMO_GRANTS.operator, withStep(refundStep(100)));
    expect(r.ok).toBe(false);
    expect(only(r, "authorship_denied")).toMatchObject({
      stage: "authorship",
      severity: "error",
      stepId: "s4",
      path: "steps.3.tool",
      message: "You may not author issue_refund steps",
      details: { tool: "issue_refund", reason: "added", userId: "u1", denial: "no_grant" },
    });
  });

  it("an approve-only grant does not allow authoring", () => {
    const r = edit([refundGrant({ canAuthor: false })], withStep(refundStep(100)));
    expect(codes(r)).toEqual(["authorship_denied"]);
  });

  it("applies the author ceiling: exactly the limit is fine, one minor unit more is not", () => {
    expect(edit([refundGrant({ authorLimit: usd(500) })], withStep(refundStep(500))).ok).toBe(true);
    const r = edit([refundGrant({ authorLimit: usd(50000) })], withStep(refundStep(50001)));
    const i = only(r, "authorship_denied");
    expect(i.message).toBe("You may not author issue_refund steps above $500.00 (this one is $500.01)");
    expect(i.path).toBe("steps.3.args.amount");
    expect(i.details).toMatchObject({ denial: "over_limit", limit: usd(50000), amount: usd(50001) });
    const eur = edit([refundGrant({ authorLimit: usd(50000) })], withStep({ ...refundStep(100), args: { invoiceId: "in_74123", amount: { minor: 100, currency: "EUR" }, reason: "x" } }));
    expect(only(eur, "authorship_denied").message).toBe("You may author issue_refund steps only in USD, up to $500.00");
  });

  it("checks changed steps (digest differs) but not unchanged ones, whatever their key order", () => {
    const reordered = {
      ...base,
      steps: base.steps.map((s) => ({ author: s.author, provenance: s.provenance, args: Object.fromEntries(Object.entries(s.args).reverse()), tool: s.tool, id: s.id })),
    };
    expect(edit([], reordered).ok).toBe(true); // nothing authored → no grants needed

    const changed = referenceEditedPlan(NOW);
    changed.steps.pop(); // keep only the window change on s2
    const r = edit([], changed);
    expect(only(r, "authorship_denied")).toMatchObject({ stepId: "s2", details: { reason: "changed", tool: "reschedule_delivery" } });
    expect(edit(DEMO_GRANTS.operator, changed).ok).toBe(true);
  });

  it("a reused id with another tool is a new step, judged by the new tool only", () => {
    const swapped = { ...base, steps: [base.steps[0], base.steps[1], { ...refundStep(100), id: "s3" }] };
    const r = edit(DEMO_GRANTS.operator, swapped);
    expect(only(r, "authorship_denied")).toMatchObject({ stepId: "s3", details: { tool: "issue_refund", reason: "added" } });
    const views = checkShape(swapped).steps!;
    expect([...authoredSteps(views, base)]).toEqual([[2, "added"]]);
  });

  it("removing steps needs no authoring right", () => {
    expect(edit([], { ...base, steps: [base.steps[0]] }).ok).toBe(true);
  });

  it("the reference edit: 'changed' s2 and 'added' s4", () => {
    const views = checkShape(referenceEditedPlan(NOW)).steps!;
    expect(Object.fromEntries([...authoredSteps(views, base)].map(([i, why]) => [views[i].id, why]))).toEqual({ s2: "changed", s4: "added" });
  });

  it("checks the no-grant rule even when the added step's args failed shape", () => {
    const r = edit(DEMO_GRANTS.operator, withStep({ id: "s4", tool: "issue_refund", args: {} }));
    expect(codes(r)).toContain("authorship_denied");
  });
});
