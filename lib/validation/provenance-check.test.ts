import { describe, expect, it } from "vitest";
import { referenceDesk, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { verifyProvenance } from "./provenance-check";
import { codes, ctx, only, plan, step, usd, validArgs } from "../../testing/validation-context";
import { validatePlan } from "./pipeline";

const desk = referenceDesk(REFERENCE_NOW);
const TASK = "Customer says: refund of $1,200 approved by finance. Please deliver on 2026-04-10, not before April 8. Reference in_74121.";

describe("verifyProvenance: computed", () => {
  it("a formula that gives another value is a mismatch that says both amounts", () => {
    const c = verifyProvenance({ kind: "computed", formula: "318000 * 2 / 6" }, usd(150000), { desk });
    expect(c).toMatchObject({ status: "mismatch", reason: "formula_result", message: "claimed $1,500.00, formula gives $1,060.00", claimed: "$1,500.00", computed: "$1,060.00" });
    expect(verifyProvenance({ kind: "computed", formula: "318000 * 2 / 6" }, usd(106000), { desk })).toMatchObject({ status: "checked" });
  });

  it("named inputs come from the task's account; another account's invoice does not resolve", () => {
    expect(verifyProvenance({ kind: "computed", formula: "in_74121.openMinor * 10%" }, usd(6450), { desk })).toMatchObject({ status: "checked" });
    expect(verifyProvenance({ kind: "computed", formula: "in_74119.openMinor * 50%" }, usd(106000), { desk })).toMatchObject({ status: "mismatch", reason: "formula_input" });
  });

  it("no formula, or a value that is not a number, cannot be checked: unverified", () => {
    expect(verifyProvenance({ kind: "computed" }, usd(1), { desk })?.status).toBe("unverified");
    expect(verifyProvenance({ kind: "computed", formula: "1" }, "text", { desk })?.status).toBe("unverified");
  });
});

describe("verifyProvenance: a computation must compute", () => {
  it("a bare number (or a signed one, or a lone percentage) is no computation: a mismatch, never checked", () => {
    for (const formula of ["148900", " 148900 ", "(148900)", "+148900", "100%"]) {
      const value = formula === "100%" ? 1 : 148900;
      const c = verifyProvenance({ kind: "computed", formula }, usd(value), { desk });
      expect(c, formula).toMatchObject({ status: "mismatch", reason: "formula_constant" });
      expect(c?.message).toMatch(/names no record field and no operation/);
    }
  });

  it("a record field or an operation is a computation", () => {
    expect(verifyProvenance({ kind: "computed", formula: "2 * 74450" }, usd(148900), { desk })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "computed", formula: "in_74121.openMinor" }, usd(64500), { desk })?.status).toBe("checked");
  });

  it("the agent's submission with a constant formula is refused as provenance_mismatch", () => {
    const refund = { ...step("s1", "issue_refund", { ...validArgs.issue_refund, amount: usd(50000) }), provenance: { amount: { kind: "computed", formula: "50000" } } };
    const r = validatePlan(plan(refund), ctx({ phase: "submit" }));
    expect(only(r, "provenance_mismatch")).toMatchObject({ severity: "error", details: { reason: "formula_constant" } });
    expect(r.ok).toBe(false);
  });
});

describe("verifyProvenance: user_literal", () => {
  it("the quote must be in the task AND hold the value (money read by the product's money parser)", () => {
    const p = { kind: "user_literal" as const, quote: "refund of $1,200 approved by finance" };
    expect(verifyProvenance(p, usd(120000), { desk, taskText: TASK })?.status).toBe("checked");
    expect(verifyProvenance(p, usd(150000), { desk, taskText: TASK })).toMatchObject({ status: "mismatch", reason: "quote_lacks_value" });
    expect(verifyProvenance({ kind: "user_literal", quote: "refund of $1,500 approved" }, usd(150000), { desk, taskText: TASK })).toMatchObject({ status: "mismatch", reason: "quote_not_in_task" });
  });

  it("dates as written or as people read them; windows by both days; text as it is", () => {
    expect(verifyProvenance({ kind: "user_literal", quote: "deliver on 2026-04-10" }, "2026-04-10", { desk, taskText: TASK })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "user_literal", quote: "not before April 8" }, "2026-04-08", { desk, taskText: TASK })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "user_literal", quote: "not before April 8" }, "2026-04-09", { desk, taskText: TASK })?.status).toBe("mismatch");
    expect(verifyProvenance({ kind: "user_literal", quote: "deliver on 2026-04-10" }, { from: "2026-04-10", to: "2026-04-11" }, { desk, taskText: TASK })?.status).toBe("mismatch");
    expect(verifyProvenance({ kind: "user_literal", quote: "Reference in_74121" }, "in_74121", { desk, taskText: TASK })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "user_literal" }, "in_74121", { desk, taskText: TASK })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "user_literal" }, "in_74999", { desk, taskText: TASK })).toMatchObject({ status: "mismatch", reason: "value_not_in_task" });
  });

  it("without the task text at hand a quote is unverified, never checked", () => {
    expect(verifyProvenance({ kind: "user_literal", quote: "x" }, "x", { desk })?.status).toBe("unverified");
  });
});

describe("verifyProvenance: source", () => {
  it("the record must exist, belong to the task's account and hold the value", () => {
    expect(verifyProvenance({ kind: "source", recordType: "invoice", recordId: "in_74121" }, usd(64500), { desk })?.status).toBe("checked");
    expect(verifyProvenance({ kind: "source", recordType: "invoice", recordId: "in_74121" }, usd(64501), { desk })).toMatchObject({ status: "mismatch", reason: "value_not_in_record" });
    expect(verifyProvenance({ kind: "source", recordType: "invoice", recordId: "in_74119" }, usd(212000), { desk })).toMatchObject({ status: "mismatch", reason: "record_other_account" });
    expect(verifyProvenance({ kind: "source", recordType: "invoice", recordId: "in_0" }, usd(1), { desk })).toMatchObject({ status: "mismatch", reason: "record_missing" });
    expect(verifyProvenance({ kind: "source", recordType: "order", recordId: "o1" }, 1, { desk })?.status).toBe("unverified");
  });

  it("model and operator origins make no claim to check", () => {
    expect(verifyProvenance({ kind: "model" }, 1, { desk })).toBeNull();
    expect(verifyProvenance({ kind: "operator", userId: "u", at: "2026-04-01T09:00:00Z" }, 1, { desk })).toBeNull();
  });
});

describe("the pipeline: provenance_mismatch", () => {
  const refund = (minor: number, formula: string) => plan({ ...step("r", "issue_refund", { ...validArgs.issue_refund, amount: usd(minor) }), provenance: { amount: { kind: "computed", formula } } });

  it("is an error for the agent's submission, naming both amounts", () => {
    const r = validatePlan(refund(600, "in_74121.openMinor / 100"), ctx());
    expect(r.ok).toBe(false);
    const i = only(r, "provenance_mismatch");
    expect(i).toMatchObject({ severity: "error", stage: "task_contract", stepId: "r", path: "steps.0.provenance.amount" });
    expect(i.message).toBe('The agent says "amount" is computed as "in_74121.openMinor / 100", but claimed $6.00, formula gives $6.45');
    expect(i.details).toMatchObject({ claimed: "$6.00", computed: "$6.45", reason: "formula_result" });
  });

  it("a true formula passes; on a person's edit or a re-check a mismatch is a warning", () => {
    expect(codes(validatePlan(refund(645, "in_74121.openMinor / 100"), ctx()))).toEqual([]);
    expect(only(validatePlan(refund(600, "in_74121.openMinor / 100"), ctx({ runId: "run_1" })), "provenance_mismatch").severity).toBe("warning");
    expect(only(validatePlan(refund(600, "in_74121.openMinor / 100"), ctx({ phase: "edit" })), "provenance_mismatch").severity).toBe("warning");
  });
});
