import { describe, expect, it } from "vitest";
import { codes, day, one, only, usd, validArgs } from "../../testing/validation-context";
import { gateRule } from "../gate-policy/rules";
import { MAX_DATE_HORIZON_DAYS } from "../plan/policy";
import type { GateRulesContext } from "./types";

const refund = (over: Record<string, unknown>) => one("issue_refund", { ...validArgs.issue_refund, ...over });

describe("argument bounds: refunds", () => {
  it("allows exactly the open balance and refuses one minor unit more", () => {
    expect(refund({ invoiceId: "in_74119", amount: usd(212000) }).issues.filter((i) => i.severity === "error")).toEqual([]);
    const i = only(refund({ invoiceId: "in_74119", amount: usd(212001) }), "amount_exceeds_balance");
    expect(i).toMatchObject({ stage: "argument_bounds", severity: "error", path: "steps.0.args.amount.minor" });
    expect(i.message).toBe("Refund of $2,120.01 is more than the open balance of invoice in_74119 ($2,120.00)");
  });

  it("refuses zero and negative amounts; one minor unit is fine", () => {
    expect(only(refund({ amount: usd(0) }), "amount_not_positive").message).toBe("Refund must be more than zero (got $0.00)");
    expect(codes(refund({ amount: usd(-100) }))).toEqual(["amount_not_positive"]);
    expect(refund({ amount: usd(1) }).ok).toBe(true);
  });

  it("refuses paid and void invoices", () => {
    expect(only(refund({ invoiceId: "in_74120" }), "invoice_not_open").message).toBe(
      "Invoice in_74120 is paid; only an open invoice can take a refund",
    );
    expect(only(refund({ invoiceId: "in_74122" }), "invoice_not_open").details).toEqual({ invoiceId: "in_74122", status: "void" });
  });

  it("requires the invoice's currency", () => {
    const i = only(refund({ amount: { minor: 100, currency: "EUR" } }), "currency_mismatch");
    expect(i).toMatchObject({ path: "steps.0.args.amount.currency", message: "Refund is in EUR but invoice in_74121 is in USD" });
    expect(refund({ invoiceId: "in_74123", amount: { minor: 50000, currency: "EUR" } }).ok).toBe(true);
  });
});

describe("argument bounds: ids resolve exactly, with a lookalike-aware hint", () => {
  it("an id that exists nowhere is unknown, without a far-fetched hint", () => {
    const i = only(refund({ invoiceId: "in_99999" }), "unknown_id");
    expect(i).toMatchObject({ path: "steps.0.args.invoiceId", message: 'Invoice "in_99999" does not exist' });
    expect(i.details).toEqual({ kind: "invoice", id: "in_99999", lookalike: false });
  });

  it.each([
    ["Cyrillic і", "іn_74119"],
    ["Greek ι", "ιn_74119"],
    ["trailing space", "in_74119 "],
    ["upper case", "IN_74119"],
    ["fullwidth digit", "in_7411９"],
    ["zero-width space", "in_741\u200b19"],
  ])("a lookalike (%s) does not resolve and names the real id", (_, id) => {
    const i = only(refund({ invoiceId: id, amount: usd(100) }), "unknown_id");
    expect(i.message).toContain("did you mean in_74119?");
    expect(i.message).toContain("lookalike");
    expect(i.details).toMatchObject({ kind: "invoice", id, suggestion: "in_74119", lookalike: true });
  });

  it("a near typo gets a hint that is not called a lookalike", () => {
    const i = only(refund({ invoiceId: "in_74219" }), "unknown_id");
    expect(i.details).toMatchObject({ suggestion: "in_74119", lookalike: false });
    expect(i.message).toBe('Invoice "in_74219" does not exist — did you mean in_74119?');
  });

  it("Cyrillic о in an account id", () => {
    const i = only(one("apply_credit", { ...validArgs.apply_credit, accountId: "acc_nоrdkapp" }), "unknown_id");
    expect(i.details).toMatchObject({ kind: "account", suggestion: "acc_nordkapp", lookalike: true });
  });

  it("says when the id is another kind of record", () => {
    const i = only(refund({ invoiceId: "sh_5521" }), "unknown_id");
    expect(i.details).toMatchObject({ existsAs: "shipment" });
    expect(i.message).toContain('"sh_5521" is a shipment, not an invoice');
  });

  it("ticket numbers: '#74991' is not '74991'", () => {
    const i = only(one("add_ticket_note", { ...validArgs.add_ticket_note, ticketId: "#74991" }), "unknown_id");
    expect(i.message).toBe('Ticket "#74991" does not exist — did you mean 74991?');
  });

  it("prototype keys never resolve", () => {
    for (const id of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(codes(refund({ invoiceId: id }))).toEqual(["unknown_id"]);
      expect(codes(one("send_reply", { ...validArgs.send_reply, ticketId: id }))).toEqual(["unknown_id"]);
    }
  });
});

describe("argument bounds: credits", () => {
  it("account must exist and amount be positive", () => {
    expect(codes(one("apply_credit", { ...validArgs.apply_credit, accountId: "acc_nobody" }))).toEqual(["unknown_id"]);
    expect(codes(one("apply_credit", { ...validArgs.apply_credit, amount: usd(0) }))).toEqual(["amount_not_positive"]);
    expect(one("apply_credit", { ...validArgs.apply_credit, amount: usd(1) }).ok).toBe(true);
  });
});

describe("argument bounds: fee waivers", () => {
  const waive = (over: Record<string, unknown>) => one("waive_fee", { ...validArgs.waive_fee, ...over });
  it("allows up to the fee and refuses one minor unit more", () => {
    expect(waive({ amount: usd(4500) }).ok).toBe(true);
    const i = only(waive({ amount: usd(4501) }), "amount_exceeds_fee");
    expect(i.message).toBe("Waiver of $45.01 is more than the LATE_FEE fee on invoice in_74121 ($45.00)");
  });
  it("the fee code must exist on that invoice, exactly", () => {
    const i = only(waive({ feeCode: "late_fee" }), "unknown_fee_code");
    expect(i.message).toBe('Invoice in_74121 has no fee "late_fee" — did you mean LATE_FEE?');
    expect(only(waive({ invoiceId: "in_74119", amount: usd(100) }), "unknown_fee_code").message).toContain("(it has no fees)");
  });
  it("also applies the invoice checks", () => {
    expect(codes(waive({ amount: usd(0) }))).toEqual(["amount_not_positive"]);
    expect(codes(waive({ invoiceId: "in_74120" }))).toContain("invoice_not_open");
    expect(waive({ invoiceId: "in_74123", feeCode: "HANDLING_FEE", amount: { minor: 2500, currency: "EUR" } }).ok).toBe(true);
  });
});

describe("argument bounds: delivery windows", () => {
  const move = (from: string, to: string, shipmentId = "sh_5521") =>
    one("reschedule_delivery", { ...validArgs.reschedule_delivery, shipmentId, window: { from, to } });

  it("the window must start strictly after today's UTC date", () => {
    expect(move(day(1), day(1)).ok).toBe(true);
    const today = only(move(day(0), day(1)), "window_not_future");
    expect(today).toMatchObject({ path: "steps.0.args.window.from", message: "The window must start after today (2026-04-01, UTC); 2026-04-01 is today" });
    expect(only(move(day(-1), day(1)), "window_not_future").message).toContain("is in the past");
  });

  it("uses the UTC date of ctx.now at the day boundary", () => {
    const late = { now: new Date("2026-04-01T23:59:59.999Z") };
    expect(one("reschedule_delivery", { ...validArgs.reschedule_delivery, window: { from: "2026-04-02", to: "2026-04-02" } }, late).ok).toBe(true);
    const midnight = { now: new Date("2026-04-02T00:00:00Z") };
    expect(codes(one("reschedule_delivery", { ...validArgs.reschedule_delivery, window: { from: "2026-04-02", to: "2026-04-02" } }, midnight))).toEqual([
      "window_not_future",
    ]);
  });

  it("the window may end at most one year ahead (the reschedule horizon); 9999-12-31 is refused", () => {
    expect(move(day(1), day(366)).ok).toBe(true);
    const far = only(move(day(1), day(367)), "window_beyond_horizon");
    expect(far).toMatchObject({ path: "steps.0.args.window.to", severity: "error", message: "The window may end at most 366 days ahead (by 2027-04-02, UTC); 2027-04-03 is beyond that" });
    expect(codes(move(day(1), "9999-12-31"))).toContain("window_beyond_horizon");
  });

  it("the horizon is a gate-policy setting: the rule governing the step sets it (wider or narrower); other tools' rules do not", () => {
    const rules = (tool: string, dateHorizonDays: number): { gateRules: GateRulesContext } => ({
      gateRules: { policy: { version: 4, rules: [{ ...gateRule({ tool, decision: "one", dateHorizonDays }), id: "r0", position: 0 }] }, desk: "freight", accountId: "acc_nordkapp", accountTags: [] },
    });
    const at = (to: string, over: object) => one("reschedule_delivery", { ...validArgs.reschedule_delivery, window: { from: day(1), to } }, over);
    expect(at(day(500), rules("reschedule_delivery", 730)).ok).toBe(true);
    const narrow = only(at(day(31), rules("reschedule_delivery", 30)), "window_beyond_horizon");
    expect(narrow.message).toContain("at most 30 days ahead");
    expect(narrow.details).toMatchObject({ horizonDays: 30 });
    expect(at(day(30), rules("reschedule_delivery", 30)).ok).toBe(true);
    // A rule for another tool leaves the default.
    expect(only(at(day(400), rules("issue_refund", 730)), "window_beyond_horizon").details).toMatchObject({ horizonDays: 366 });
    // At dispatch the widest horizon applies (the horizon was judged at the decision).
    expect(at(day(500), { dateHorizonDays: MAX_DATE_HORIZON_DAYS }).ok).toBe(true);
  });

  it("from ≤ to: equal is fine, inverted is an error", () => {
    expect(move(day(3), day(3)).ok).toBe(true);
    expect(only(move(day(4), day(3)), "window_inverted").path).toBe("steps.0.args.window.to");
  });

  it("neither end may be a holiday at the destination (NO-OSL: 04-06, 04-11)", () => {
    const from = only(move("2026-04-06", "2026-04-07"), "window_on_holiday");
    expect(from).toMatchObject({ path: "steps.0.args.window.from", message: "2026-04-06 is a holiday at NO-OSL; no deliveries that day" });
    expect(only(move("2026-04-03", "2026-04-06"), "window_on_holiday").path).toBe("steps.0.args.window.to");
    expect(codes(move("2026-04-06", "2026-04-06"))).toEqual(["window_on_holiday"]);
    expect(move("2026-04-05", "2026-04-07").ok).toBe(true); // a holiday inside the window is fine
    expect(move("2026-04-04", "2026-04-04", "sh_5522").issues.filter((i) => i.severity === "error").map((i) => i.code)).toEqual([
      "window_on_holiday", // DE-HAM
    ]);
  });

  it("a delivered shipment cannot be rescheduled; an unknown one is unknown", () => {
    expect(codes(move(day(2), day(2), "sh_5523"))).toContain("shipment_delivered");
    expect(codes(move(day(2), day(2), "sh_9999"))).toEqual(["unknown_id"]);
    expect(codes(move(day(0), day(-1), "sh_9999"))).toEqual(["unknown_id", "window_inverted", "window_not_future"]);
  });
});

describe("money several steps take from one invoice", () => {
  it("may reach the open balance together but not pass it by one minor unit", async () => {
    const { validatePlan } = await import("./pipeline");
    const { ctx, plan, step, validArgs } = await import("../../testing/validation-context");
    const usd = (minor: number) => ({ minor, currency: "USD" as const });
    const two = (a: number, b: number) =>
      validatePlan(plan(step("r1", "issue_refund", { ...validArgs.issue_refund, amount: usd(a) }), step("r2", "issue_refund", { ...validArgs.issue_refund, amount: usd(b) })), ctx());
    expect(two(32250, 32250).issues.filter((i) => i.code === "amounts_exceed_balance")).toEqual([]);
    const over = two(32250, 32251).issues.filter((i) => i.code === "amounts_exceed_balance");
    expect(over).toHaveLength(1);
    expect(over[0].stepId).toBe("r2");
    expect(over[0].message).toMatch(/\$645\.01/);
  });
});

describe("waivers of one fee", () => {
  it("may reach the fee together but not pass it by one minor unit; another fee is counted apart", async () => {
    const { validatePlan } = await import("./pipeline");
    const { ctx, plan, step, validArgs } = await import("../../testing/validation-context");
    const waiver = (id: string, minor: number) => step(id, "waive_fee", { ...validArgs.waive_fee, amount: { minor, currency: "USD" } });
    const found = (...steps: ReturnType<typeof waiver>[]) => validatePlan(plan(...steps), ctx()).issues.filter((i) => i.code === "waivers_exceed_fee");
    expect(found(waiver("w1", 2250), waiver("w2", 2250))).toEqual([]);
    const over = found(waiver("w1", 2250), waiver("w2", 2251));
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ stepId: "w2", severity: "error", path: "steps.1.args.amount" });
    expect(over[0].message).toBe("Together the steps of this plan waive $45.01 of the LATE_FEE fee on invoice in_74121, more than the fee ($45.00)");
    // A third waiver past the line is not reported again: one issue names the crossing step.
    expect(found(waiver("w1", 2250), waiver("w2", 2251), waiver("w3", 100)).map((i) => i.stepId)).toEqual(["w2"]);
  });
});
