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

describe("a write resting on a failed or missing read waits for a person", () => {
  const note = (evidence: unknown[]) => ({ ...step("n", "add_ticket_note", validArgs.add_ticket_note), evidence });
  const failed = readStep("rd1", "read_ticket", { ticketId: "74991" }, { status: "failed", error: "timeout" });

  it("a note whose evidence is a failed read is not approved by the gate policy alone, with the reason shown", () => {
    const auto = validatePlan(withReads([note([])], []), ctx());
    expect(auto.gate).toEqual({ n: "auto" });
    const r = validatePlan(withReads([note([{ readStepId: "rd1" }])], [failed]), ctx());
    expect(r.ok).toBe(true); // a person may still approve it
    expect(r.gate).toEqual({ n: "approval_required" });
    expect(only(r, "evidence_failed")).toMatchObject({ severity: "warning", stepId: "n" });
    expect(only(r, "evidence_failed").message).toMatch(/failed: timeout.*a person must approve this step/);
    // naming the record whose read failed is the same
    expect(validatePlan(withReads([note([{ recordType: "ticket", recordId: "74991" }])], [failed]), ctx()).gate).toEqual({ n: "approval_required" });
  });

  it("a note naming a read the plan does not have waits for a person too", () => {
    const r = validatePlan(withReads([note([{ readStepId: "rd_nope" }])], []), ctx());
    expect(r.gate).toEqual({ n: "approval_required" });
    expect(only(r, "evidence_missing").message).toMatch(/no read step "rd_nope".*a person must approve this step/);
  });

  it("a note resting on a successful read is still approved by the gate policy", () => {
    const ok = readStep("rd1", "read_ticket", { ticketId: "74991" });
    expect(validatePlan(withReads([note([{ readStepId: "rd1" }])], [ok]), ctx()).gate).toEqual({ n: "auto" });
  });
});

describe("evidence unrelated to the step's target", () => {
  it("a refund of one invoice relying on a record of another account is evidence_unrelated, to acknowledge", () => {
    // in_74121 is Nordkapp's (the task's account); in_74119 is Halvorsen's
    const r = validatePlan(withReads([completeRefund("r", { evidence: [{ recordType: "invoice", recordId: "in_74119" }] })], []), ctx());
    expect(only(r, "evidence_unrelated")).toMatchObject({ severity: "warning", needsAcknowledgement: true, path: "steps.0.evidence.0", details: { recordKind: "invoice", recordId: "in_74119", targetKind: "invoice", targetId: "in_74121" } });
    expect(only(r, "evidence_unrelated").message).toBe("Step 1 (issue_refund) acts on invoice in_74121 but names invoice in_74119 as evidence, which is not about it; confirm the link before approving");
    expect(r.gate.r).toBe("approval_required");
  });

  it("a refund of another account's invoice relying on the task's account (read or record) is unrelated, and so is another ticket", () => {
    const read = readStep("rd1", "read_shipment", { shipmentId: "sh_5521" });
    const cross = validatePlan(withReads([completeRefund("r", { args: { ...validArgs.issue_refund, invoiceId: "in_74119", amount: { minor: 100, currency: "USD" } }, evidence: [{ readStepId: "rd1" }] })], [read]), ctx());
    expect(only(cross, "evidence_unrelated")).toMatchObject({ details: { readStepId: "rd1", recordKind: "shipment", recordId: "sh_5521", targetId: "in_74119" } });
    const otherTicket = validatePlan(withReads([{ ...step("n", "add_ticket_note", validArgs.add_ticket_note), evidence: [{ recordType: "ticket", recordId: "74992" }] }], []), ctx());
    expect(codes(otherTicket)).toContain("evidence_unrelated");
  });

  it("the target itself, another record of its account and the task's ticket are related", () => {
    const shipmentOfSameAccount = validatePlan(withReads([completeRefund("r", { evidence: [{ recordType: "invoice", recordId: "in_74121" }, { recordType: "shipment", recordId: "sh_5521" }, { recordType: "ticket", recordId: "74991" }, { recordType: "account", recordId: "acc_nordkapp" }] })], []), ctx());
    expect(codes(shipmentOfSameAccount)).not.toContain("evidence_unrelated");
  });
});

