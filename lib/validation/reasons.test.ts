import { describe, expect, it } from "vitest";
import { digest } from "../plan/digest";
import { keepReasons, reasonsOf } from "../plan/reasons";
import { validatePlan } from "./pipeline";
import { bareStep, codes, ctx, only, plan, step, validArgs } from "../../testing/validation-context";

describe("step reasons: completeness and evidence", () => {
  it("a write step the agent did not explain gets missing_rationale; an internal one does not", () => {
    const r = validatePlan(plan(bareStep("n", "add_ticket_note", validArgs.add_ticket_note), bareStep("m", "reschedule_delivery", validArgs.reschedule_delivery)), ctx());
    expect(r.ok).toBe(true);
    expect(codes(r)).toEqual(["missing_rationale"]);
    expect(only(r, "missing_rationale")).toMatchObject({
      stage: "task_contract",
      severity: "warning",
      stepId: "m",
      path: "steps.1.rationale",
      message: "Step 2 (reschedule_delivery) writes (reversible) but the agent gave no rationale for it",
    });
    expect(only(r, "missing_rationale").needsAcknowledgement).toBeUndefined();
  });

  it("a blank rationale counts as missing; a step a person authored is not asked for one", () => {
    const blank = { ...bareStep("m", "send_reply", validArgs.send_reply), rationale: "   " };
    expect(codes(validatePlan(plan(blank), ctx()))).toEqual(["missing_rationale"]);
    const byPerson = { ...bareStep("m", "send_reply", validArgs.send_reply), author: { kind: "user", userId: "u1" } };
    expect(codes(validatePlan(plan(byPerson), ctx()))).toEqual([]);
  });

  it("evidence naming records that exist passes; a missing or uncheckable record is unverified_evidence", () => {
    const ok = { ...step("m", "reschedule_delivery", validArgs.reschedule_delivery), evidence: [{ recordType: "shipment", recordId: "sh_5521" }, { recordType: "ticket", recordId: "74991" }] };
    expect(validatePlan(plan(ok), ctx()).issues).toEqual([]);
    const bad = {
      ...step("m", "reschedule_delivery", validArgs.reschedule_delivery),
      evidence: [{ recordType: "shipment", recordId: "sh_5512" }, { recordType: "email", recordId: "msg-1" }],
    };
    const r = validatePlan(plan(bad), ctx());
    expect(r.ok).toBe(true);
    expect(r.issues.map((i) => [i.code, i.severity, i.path])).toEqual([
      ["unverified_evidence", "warning", "steps.0.evidence.0"],
      ["unverified_evidence", "warning", "steps.0.evidence.1"],
    ]);
    expect(r.issues[0].message).toMatch(/^Evidence shipment "sh_5512" does not exist in account data — did you mean sh_55\d\d\?$/);
    expect(r.issues[1].message).toBe('Evidence email "msg-1" cannot be verified: Plandesk checks only invoice, shipment, ticket, account records');
  });

  it("reasons are kept in the parsed plan but are not part of the digest", () => {
    const a = { ...step("m", "reschedule_delivery", validArgs.reschedule_delivery), title: "Rebook", risk: "Carrier full", stopCondition: "Delivered meanwhile" };
    const r = validatePlan(plan(a), ctx());
    expect(r.plan?.steps[0]).toMatchObject({ title: "Rebook", rationale: a.rationale, risk: "Carrier full", stopCondition: "Delivered meanwhile" });
    const other = validatePlan(plan({ ...a, rationale: "Something else", title: "Other" }), ctx());
    expect(other.digests?.m).toBe(r.digests?.m);
    expect(r.digests?.m).toBe(digest({ tool: "reschedule_delivery", args: validArgs.reschedule_delivery }));
  });

  it("reasons of the wrong shape are shape errors, never dropped", () => {
    const r = validatePlan(plan({ ...step("m", "send_reply", validArgs.send_reply), evidence: [{ recordType: "ticket" }], risk: 3 }), ctx());
    expect(r.ok).toBe(false);
    expect(r.issues.map((i) => i.path)).toEqual(expect.arrayContaining(["steps.0.evidence.0.recordId", "steps.0.risk"]));
  });

  it("keepReasons: an edit keeps the base step's reasons unless the submission carries the key", () => {
    const base = { title: "T", rationale: "R", evidence: [{ recordType: "ticket", recordId: "74991" }] };
    expect(keepReasons({ id: "s", tool: "x", args: {} }, base)).toEqual({ id: "s", tool: "x", args: {}, ...base });
    expect(keepReasons({ id: "s", rationale: "operator's words" }, base)).toEqual({ id: "s", rationale: "operator's words", title: "T", evidence: base.evidence });
    expect(reasonsOf({ title: "T", rationale: undefined })).toEqual({ title: "T" });
  });
});
