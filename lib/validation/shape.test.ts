import { describe, expect, it } from "vitest";
import { checkShape } from "./shape";
import { validatePlan } from "./pipeline";
import { codes, ctx, one, only, plan, step, usd, validArgs } from "../../testing/validation-context";

describe("shape stage", () => {
  it.each([null, [], "plan", 42, true, undefined])("refuses a plan that is not an object (%j)", (input) => {
    const r = validatePlan(input, ctx());
    expect(r.ok).toBe(false);
    expect(codes(r)).toEqual(["invalid_plan"]);
    expect(r.gate).toEqual({});
    expect(r.plan).toBeUndefined();
  });

  it("checks the envelope: version, steps, unknown top-level fields", () => {
    expect(codes(validatePlan({ steps: [] }, ctx()))).toContain("missing_field");
    expect(only(validatePlan({ version: 0, steps: [step("a", "add_ticket_note", validArgs.add_ticket_note)] }, ctx()), "too_small").path).toBe("version");
    expect(only(validatePlan({ version: "1", steps: [step("a", "add_ticket_note", validArgs.add_ticket_note)] }, ctx()), "invalid_type").path).toBe("version");
    const r = validatePlan({ version: 1, steps: [step("a", "add_ticket_note", validArgs.add_ticket_note)], taskRevision: 3 }, ctx());
    expect(only(r, "unknown_field")).toMatchObject({ path: "taskRevision", severity: "error" });
    expect(only(validatePlan({ version: 1 }, ctx()), "missing_field").message).toBe("Steps are required");
    expect(only(validatePlan({ version: 1, steps: {} }, ctx()), "invalid_type").path).toBe("steps");
  });

  it("checks each step's envelope", () => {
    expect(only(validatePlan(plan("oops"), ctx()), "invalid_step").path).toBe("steps.0");
    expect(only(validatePlan(plan({ tool: "add_ticket_note", args: validArgs.add_ticket_note }), ctx()), "missing_field").path).toBe("steps.0.id");
    expect(only(validatePlan(plan(step("has space", "add_ticket_note", validArgs.add_ticket_note)), ctx()), "invalid_format").path).toBe("steps.0.id");
    expect(only(validatePlan(plan({ id: "a", tool: "add_ticket_note" }), ctx()), "missing_field").message).toBe("Arguments are required");
    const extra = validatePlan(plan({ ...step("a", "add_ticket_note", validArgs.add_ticket_note), approved: true }), ctx());
    expect(only(extra, "unknown_field")).toMatchObject({ path: "steps.0.approved", stepId: "a" });
    const prov = validatePlan(plan({ ...step("a", "add_ticket_note", validArgs.add_ticket_note), provenance: { note: { kind: "magic" } } }), ctx());
    expect(only(prov, "invalid_value").path).toBe("steps.0.provenance.note.kind");
  });

  it("reports an unknown tool with the nearest name", () => {
    const i = only(validatePlan(plan(step("a", "issue_refnd", {})), ctx()), "unknown_tool");
    expect(i).toMatchObject({ stage: "shape", stepId: "a", path: "steps.0.tool", details: { suggestion: "issue_refund" } });
    expect(i.message).toBe('Unknown tool "issue_refnd" — did you mean issue_refund?');
    expect(only(validatePlan(plan(step("a", "constructor", {})), ctx()), "unknown_tool").details).toEqual({ tool: "constructor" });
  });

  it("rejects unknown fields at any depth of args, never dropping them", () => {
    const r1 = one("issue_refund", { ...validArgs.issue_refund, note: "x" });
    expect(only(r1, "unknown_field").path).toBe("steps.0.args.note");
    const r2 = one("issue_refund", { ...validArgs.issue_refund, amount: { ...usd(100), cents: 5 } });
    expect(only(r2, "unknown_field").path).toBe("steps.0.args.amount.cents");
    const r3 = one("reschedule_delivery", { ...validArgs.reschedule_delivery, window: { ...validArgs.reschedule_delivery.window, tz: "UTC" } });
    expect(only(r3, "unknown_field").path).toBe("steps.0.args.window.tz");
  });

  describe("money: a cleared field is missing, never 0", () => {
    const refund = (amount: unknown) => one("issue_refund", { ...validArgs.issue_refund, amount });
    it.each([
      ["no minor", { currency: "USD" }],
      ["minor null", { minor: null, currency: "USD" }],
      ["minor empty string", { minor: "", currency: "USD" }],
    ])("%s → missing_field", (_, amount) => {
      const i = only(refund(amount), "missing_field");
      expect(i).toMatchObject({ path: "steps.0.args.amount.minor", message: "Amount is required" });
    });
    it("no amount at all → missing_field", () => {
      const { amount: _, ...rest } = validArgs.issue_refund;
      expect(only(one("issue_refund", rest), "missing_field")).toMatchObject({ path: "steps.0.args.amount", message: "Amount is required" });
    });
    it("numbers sent as strings (even beyond 2^53) are type errors", () => {
      for (const minor of ["100", "9007199254740993"]) {
        const i = only(refund({ minor, currency: "USD" }), "invalid_type");
        expect(i.path).toBe("steps.0.args.amount.minor");
        expect(i.message).toContain("must be a number");
      }
    });
    it("minor must be a safe integer", () => {
      expect(only(refund({ minor: 2 ** 53, currency: "USD" }), "not_safe_integer").path).toBe("steps.0.args.amount.minor");
      expect(only(refund({ minor: -(2 ** 53), currency: "USD" }), "not_safe_integer").path).toBe("steps.0.args.amount.minor");
      // one problem, one message: an unsafe integer is not also "too big"
      expect(refund({ minor: 2 ** 53, currency: "USD" }).issues.filter((i) => i.stage === "shape").map((i) => i.code)).toEqual(["not_safe_integer"]);
      // the most one money value may hold is 10^11 minor units (lib/money/money.ts MAX_MONEY_MINOR)
      expect(only(refund({ minor: 2 ** 53 - 1, currency: "USD" }), "too_big").message).toBe("Amount is more than the most any step may move (1,000,000,000.00)");
      expect(refund({ minor: 100_000_000_000, currency: "USD" }).issues.filter((i) => i.stage === "shape")).toEqual([]);
      expect(only(refund({ minor: 14.5, currency: "USD" }), "not_integer").message).toBe("Amount must be whole minor units");
    });
    it("currency is an enum, case-sensitive", () => {
      expect(only(refund({ minor: 100, currency: "usd" }), "invalid_value").path).toBe("steps.0.args.amount.currency");
      expect(only(refund({ minor: 100 }), "missing_field").path).toBe("steps.0.args.amount.currency");
    });
  });

  it("dates must be real ISO dates", () => {
    const r = (window: unknown) => one("reschedule_delivery", { ...validArgs.reschedule_delivery, window });
    expect(only(r({ from: "2026-02-30", to: "2026-04-10" }), "invalid_date").path).toBe("steps.0.args.window.from");
    expect(only(r({ from: "2026-04-10", to: "2026-4-12" }), "invalid_date").path).toBe("steps.0.args.window.to");
    expect(only(r({ from: "2026-04-10", to: 20260412 }), "invalid_type").path).toBe("steps.0.args.window.to");
    expect(only(r(undefined), "missing_field").message).toBe("Delivery window is required");
  });

  it("blank text is missing; wrong types are errors", () => {
    expect(only(one("add_ticket_note", { ticketId: "74991", note: "   " }), "missing_field").message).toBe("Note is required");
    expect(only(one("add_ticket_note", { ticketId: "74991", note: 7 }), "invalid_type").message).toBe("Note must be text, not the number 7");
    expect(only(one("add_ticket_note", { ticketId: 74991, note: "x" }), "invalid_type").path).toBe("steps.0.args.ticketId");
    expect(only(one("add_ticket_note", { ticketId: "", note: "x" }), "missing_field").path).toBe("steps.0.args.ticketId");
    expect(only(one("escalate_ticket", { ...validArgs.escalate_ticket, team: "legal" }), "invalid_value").path).toBe("steps.0.args.team");
    expect(only(one("escalate_ticket", { ...validArgs.escalate_ticket, team: "" }), "missing_field").message).toBe("Team is required");
    expect(only(one("add_ticket_note", { ticketId: "74991", note: "x".repeat(4001) }), "too_big").path).toBe("steps.0.args.note");
  });

  it("rejects values that are not canonical JSON", () => {
    expect(only(one("add_ticket_note", { ticketId: "74991", note: "bad \ud800 surrogate" }), "invalid_json_value").path).toBe("steps.0");
  });

  it("reports all problems of all steps at once", () => {
    const r = validatePlan(
      plan(
        step("a", "issue_refund", { invoiceId: "in_74121", amount: { currency: "USD" }, reason: "" }),
        step("b", "send_reply", { ticketId: "74991" }),
        step("c", "nope", {}),
      ),
      ctx(),
    );
    expect(r.issues.map((i) => [i.stepId, i.code, i.path])).toEqual([
      ["a", "missing_field", "steps.0.args.amount.minor"],
      ["a", "missing_field", "steps.0.args.reason"],
      ["b", "missing_field", "steps.1.args.body"],
      ["c", "unknown_tool", "steps.2.tool"],
    ]);
  });

  it("returns the parsed plan only when the whole shape passed", () => {
    expect(checkShape(plan(step("a", "add_ticket_note", validArgs.add_ticket_note))).plan).toEqual({
      version: 1,
      steps: [{ id: "a", tool: "add_ticket_note", args: validArgs.add_ticket_note, provenance: {}, author: { kind: "model" }, rationale: "Needed for the test (add_ticket_note)" }],
    });
    const bad = checkShape(plan(step("a", "add_ticket_note", validArgs.add_ticket_note), step("b", "add_ticket_note", {})));
    expect(bad.plan).toBeUndefined();
    expect(bad.steps?.map((s) => s.shapeOk)).toEqual([true, false]);
  });

  it("later stages skip steps whose shape failed", () => {
    // unknown invoice AND a missing reason: only the shape error is reported for this step
    const r = one("issue_refund", { invoiceId: "in_nope", amount: usd(100), reason: "" });
    expect(codes(r)).toEqual(["missing_field"]);
  });
});

describe("provenance keys", () => {
  it("must name arguments of the step; a '__proto__' or unknown key is refused, never dropped", async () => {
    const { validatePlan } = await import("./pipeline");
    const { ctx, plan, step, validArgs } = await import("../../testing/validation-context");
    const base = step("n", "add_ticket_note", validArgs.add_ticket_note) as Record<string, unknown>;
    const withProv = (prov: Record<string, unknown>) => validatePlan(plan({ ...base, provenance: prov }), ctx());
    expect(withProv({ note: { kind: "model" } }).ok).toBe(true);
    const unknown = withProv({ amount: { kind: "model" } });
    expect(unknown.ok).toBe(false);
    expect(unknown.issues.map((i) => i.code)).toContain("unknown_field");
    const proto: Record<string, unknown> = {};
    Object.defineProperty(proto, "__proto__", { value: { kind: "model" }, enumerable: true, writable: true, configurable: true });
    expect(withProv(proto).ok).toBe(false);
  });
});
