import { describe, expect, it } from "vitest";
import { validatePlan } from "./pipeline";
import { codes, completeRefund, ctx, only, readStep, requiring, step, validArgs } from "../../testing/validation-context";

const withReads = (steps: unknown[], reads: unknown[]) => ({ version: 1, steps, reads });
const policy = { gateRules: requiring({ issue_refund: ["title", "evidence", "risk", "stopCondition"] }) };

describe("evidence of a write", () => {
  it("where the policy requires evidence, a write without any is refused: evidence_missing", () => {
    const r = validatePlan(withReads([completeRefund("r", { evidence: undefined })], []), ctx(policy));
    expect(r.ok).toBe(false);
    expect(only(r, "evidence_missing")).toMatchObject({ severity: "error", path: "steps.0.evidence", details: { reason: "none" } });
  });

  it("a failed read as evidence is refused: evidence_failed (a failed read is not evidence)", () => {
    const failed = readStep("rd1", "read_invoice", { invoiceId: "in_74121" }, { status: "failed", error: "timeout" });
    const viaStep = validatePlan(withReads([completeRefund("r", { evidence: [{ readStepId: "rd1" }] })], [failed]), ctx(policy));
    expect(only(viaStep, "evidence_failed")).toMatchObject({ severity: "error", path: "steps.0.evidence.0", details: { readStepId: "rd1", reason: "read_failed" } });
    expect(only(viaStep, "evidence_failed").message).toContain("failed: timeout");
    // Naming the record whose read failed is no better.
    const viaRecord = validatePlan(withReads([completeRefund("r")], [failed]), ctx(policy));
    expect(codes(viaRecord)).toContain("evidence_failed");
    expect(viaRecord.ok).toBe(false);
  });

  it("a record of another account is refused where evidence is required, and must be acknowledged elsewhere", () => {
    const other = completeRefund("r", { evidence: [{ recordType: "invoice", recordId: "in_74119" }] });
    const required = validatePlan(withReads([other], []), ctx(policy));
    expect(only(required, "evidence_other_account")).toMatchObject({ severity: "error" });
    expect(codes(required)).toContain("evidence_missing"); // nothing usable remains
    expect(only(required, "evidence_other_account").message).toContain("invoice in_74119 belongs to another account");
    const advisory = validatePlan(withReads([other], []), ctx());
    expect(only(advisory, "evidence_other_account")).toMatchObject({ severity: "warning", needsAcknowledgement: true });
    expect(advisory.ok).toBe(true);
  });

  it("evidence that does not exist is no evidence: a read step the plan lacks, a record that is not there", () => {
    const noRead = validatePlan(withReads([completeRefund("r", { evidence: [{ readStepId: "rd9" }] })], []), ctx(policy));
    expect(noRead.issues.filter((i) => i.code === "evidence_missing").map((i) => i.path).sort()).toEqual(["steps.0.evidence", "steps.0.evidence.0"]);
    const noRecord = validatePlan(withReads([completeRefund("r", { evidence: [{ recordType: "invoice", recordId: "in_0" }] })], []), ctx(policy));
    expect(codes(noRecord)).toEqual(expect.arrayContaining(["unverified_evidence", "evidence_missing"]));
    expect(noRecord.ok).toBe(false);
  });

  it("a successful read of the task's own record is evidence; without a policy requirement nothing is refused", () => {
    const ok = readStep("rd1", "read_invoice", { invoiceId: "in_74121" }, { observed: { openMinor: 64500 } });
    expect(validatePlan(withReads([completeRefund("r", { evidence: [{ readStepId: "rd1" }] })], [ok]), ctx(policy)).issues).toEqual([]);
    expect(validatePlan(withReads([step("r", "issue_refund", validArgs.issue_refund)], []), ctx()).ok).toBe(true);
  });

  it("on a person's edit required evidence is asked for with a warning, not refused", () => {
    const r = validatePlan(withReads([completeRefund("r", { evidence: undefined })], []), ctx({ ...policy, phase: "edit" }));
    expect(only(r, "evidence_missing").severity).toBe("warning");
  });
});
