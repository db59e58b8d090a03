import { describe, expect, it } from "vitest";
import { validatePlan } from "./pipeline";
import { ctx, one, plan, step, validArgs } from "../../testing/validation-context";

describe("gate stage", () => {
  it("default gates: internal auto; reversible, customer-visible and irreversible need approval", () => {
    const steps = Object.entries(validArgs).map(([tool, args]) => step(tool, tool, args));
    const r = validatePlan(plan(...steps), ctx());
    expect(r.ok).toBe(true);
    expect(r.gate).toEqual({
      add_ticket_note: "auto",
      reschedule_delivery: "approval_required",
      send_reply: "approval_required",
      issue_refund: "approval_required",
      apply_credit: "approval_required",
      waive_fee: "approval_required",
      escalate_ticket: "auto",
      cancel_shipment: "approval_required",
    });
  });

  it("policy may tighten or loosen non-irreversible tools, never irreversible ones", () => {
    const policy = { add_ticket_note: "approval", reschedule_delivery: "auto", issue_refund: "auto", waive_fee: "auto" } as const;
    const steps = Object.entries(validArgs).map(([tool, args]) => step(tool, tool, args));
    const r = validatePlan(plan(...steps), ctx({ gatePolicy: policy }));
    expect(r.gate).toMatchObject({
      add_ticket_note: "approval_required",
      reschedule_delivery: "auto",
      issue_refund: "approval_required",
      waive_fee: "approval_required",
    });
  });

  it("a warning that needs acknowledgement forces approval, even for an internal tool", () => {
    expect(one("add_ticket_note", validArgs.add_ticket_note).gate.x).toBe("auto");
    expect(one("add_ticket_note", { ...validArgs.add_ticket_note, ticketId: "74993" }).gate.x).toBe("approval_required");
  });

  it("fails closed: unknown tools and steps whose shape failed need approval", () => {
    expect(one("teleport", {}).gate.x).toBe("approval_required");
    expect(one("add_ticket_note", { ticketId: "74991" }).gate.x).toBe("approval_required");
  });

  it("keys by step id, also ids named like Object's own properties; __proto__ is not a step id (issue #13)", () => {
    const r = validatePlan(plan(step("constructor", "add_ticket_note", validArgs.add_ticket_note), step("toString", "send_reply", validArgs.send_reply)), ctx());
    expect(Object.getPrototypeOf(r.gate)).toBe(Object.prototype);
    expect(r.gate).toEqual({ constructor: "auto", toString: "approval_required" });
    const proto = validatePlan(plan(step("__proto__", "add_ticket_note", validArgs.add_ticket_note)), ctx());
    expect(proto.ok).toBe(false);
    expect(proto.issues.map((i) => i.code)).toContain("invalid_format");
  });

  it("steps without a valid id get no entry", () => {
    expect(validatePlan(plan({ tool: "add_ticket_note", args: validArgs.add_ticket_note }), ctx()).gate).toEqual({});
  });
});
