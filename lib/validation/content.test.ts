import { describe, expect, it } from "vitest";
import { validatePlan } from "./pipeline";
import { codes, ctx, only, plan, step, usd, validArgs } from "../../testing/validation-context";

const reply = (body: string) => step("r", "send_reply", { ticketId: "74991", body });
const refund = (minor: number) => step("m", "issue_refund", { invoiceId: "in_74121", amount: usd(minor), reason: "Damage" });
const move = (from: string, to: string) => step("d", "reschedule_delivery", { ...validArgs.reschedule_delivery, window: { from, to } });

describe("content stage: commitment scan of customer replies", () => {
  it("warns about a money promise no step backs", () => {
    const r = validatePlan(plan(reply("Sorry! We will refund the delivery charge.")), ctx());
    expect(r.ok).toBe(true);
    const i = only(r, "unbacked_commitment");
    expect(i).toMatchObject({ stage: "content", severity: "warning", needsAcknowledgement: true, stepId: "r", path: "steps.0.args.body" });
    expect(i.message).toBe(
      'The reply promises money ("We will refund the delivery charge.") but no step in this plan moves money (refund, credit or fee waiver)',
    );
    expect(i.details).toMatchObject({ kind: "money", keyword: "refund" });
    expect(r.gate.r).toBe("approval_required");
  });

  it("a refund step of the promised amount backs it; another amount does not", () => {
    expect(validatePlan(plan(refund(14890), reply("We will refund $148.90 today.")), ctx()).issues).toEqual([]);
    const r = validatePlan(plan(refund(10000), reply("We will refund $148.90 today.")), ctx());
    expect(only(r, "unbacked_commitment").message).toBe(
      'The reply promises $148.90 ("We will refund $148.90 today.") but no refund, credit or fee-waiver step in this plan is for that amount (the plan moves $100.00)',
    );
  });

  it("any money step backs a promise without an amount", () => {
    const credit = step("c", "apply_credit", validArgs.apply_credit);
    expect(validatePlan(plan(credit, reply("We have credited your account for the trouble.")), ctx()).issues).toEqual([]);
  });

  it("a date promise must fall inside a reschedule window", () => {
    expect(validatePlan(plan(move("2026-04-03", "2026-04-05"), reply("Your delivery will arrive on April 4.")), ctx()).issues).toEqual([]);
    expect(validatePlan(plan(move("2026-04-03", "2026-04-05"), reply("Your delivery will arrive on April 5.")), ctx()).issues).toEqual([]);
    const r = validatePlan(plan(move("2026-04-03", "2026-04-05"), reply("Your delivery will arrive on April 7.")), ctx());
    const i = only(r, "unbacked_commitment");
    expect(i.message).toBe(
      'The reply promises delivery on 2026-04-07 ("Your delivery will arrive on April 7.") but no reschedule_delivery step in this plan has a window containing that day (the plan\'s windows: 2026-04-03 to 2026-04-05)',
    );
    expect(i.details).toMatchObject({ kind: "date", date: "2026-04-07" });
    const none = validatePlan(plan(reply("We will deliver on 2026-04-09.")), ctx());
    expect(codes(none)).toEqual(["unbacked_commitment"]);
  });

  it("reports each promise once and both kinds together", () => {
    const r = validatePlan(plan(reply("We will refund you. The refund will follow. Your shipment arrives April 9 — refund included.")), ctx());
    expect(r.issues.map((i) => i.details?.kind)).toEqual(["money", "date"]);
  });

  it("a backing step whose shape failed backs nothing", () => {
    const broken = step("m", "issue_refund", { invoiceId: "in_74121", amount: { currency: "USD" }, reason: "x" });
    const r = validatePlan(plan(broken, reply("We will refund you.")), ctx());
    expect(codes(r)).toEqual(["missing_field", "unbacked_commitment"]);
  });

  it("plain replies pass", () => {
    expect(validatePlan(plan(reply("Thanks for reaching out, we are looking into it.")), ctx()).issues).toEqual([]);
  });
});

describe("content stage sees what a reviewer reads (issue 14, case 3)", () => {
  it.each([
    ["a soft hyphen inside 'refund'", "we will re\u00ADfund you $150.00 for the missed delivery"],
    ["a negation that does not negate the promise", "we will refund you $150.00 with no questions asked"],
    ["a Cyrillic е in 'refund'", "we will rеfund you $150.00 for the missed delivery"],
    ["a zero-width space in the amount", "we will refund you $15\u200B0.00 for the missed delivery"],
  ])("%s still needs acknowledgement", (_, body) => {
    const r = validatePlan(plan(reply(body)), ctx());
    expect(only(r, "unbacked_commitment")).toMatchObject({ needsAcknowledgement: true, stepId: "r", details: { kind: "money", amounts: [{ minor: 15000, currency: "USD" }] } });
    expect(r.gate.r).toBe("approval_required");
  });

  it("'we will not refund' is not a promise", () => {
    expect(codes(validatePlan(plan(reply("we will not refund you for the missed delivery")), ctx()))).not.toContain("unbacked_commitment");
  });
});
