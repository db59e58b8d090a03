import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { referenceEditedPlan, referencePlan, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { getTool } from "../tools/builtin-tools";
import { previewEffects } from "../effects/preview";
import { referenceDesk } from "../../testing/fixtures/reference-desk";
import { computeOutcome, deliveryLines, feeLines, moneyDifference, totalsByCurrency, type OutcomeInput, type OutcomeStep, type TicketEventInput } from "./outcome";

const usd = (minor: number) => ({ minor, currency: "USD" as const });
const NOW = REFERENCE_NOW;
const day = (n: number, hours = 0) => new Date(NOW.getTime() + n * 86_400_000 + hours * 3_600_000);
const refund = (id: string, minor: number, currency: "USD" | "NOK" = "USD"): OutcomeStep => ({ id, tool: "issue_refund", args: { invoiceId: "in_1", amount: { minor, currency }, reason: "r" } });
const input = (over: Partial<OutcomeInput>): OutcomeInput => ({ writtenSteps: [], proposedSteps: null, compensationCap: null, executedAt: NOW, events: [], reopenWindowDays: 7, ...over });

describe("computeOutcome: the reference case", () => {
  const written = referenceEditedPlan(NOW).steps;
  const proposed = referencePlan(NOW).steps;

  it("the edit moved $1,489.00 more than the agent proposed; a reopen 2 days later counts against it and suggests worse", () => {
    const rec = computeOutcome(input({ writtenSteps: written, proposedSteps: proposed, events: [{ type: "reopened", at: day(2, 3), detail: "Customer says the refund went to the wrong company" }] }));
    expect(rec.moneyOut).toEqual([usd(148900)]);
    expect(rec.moneyLines).toEqual([{ stepId: "s4", tool: "issue_refund", kind: "refund", amount: usd(148900) }]);
    expect(rec.proposedMoneyOut).toEqual([]);
    expect(rec.moneyDifference).toEqual([usd(148900)]);
    expect(rec.moneyDifferenceMinor).toBe(148900);
    expect(rec.signals).toEqual(expect.arrayContaining(["reopened", "over_compensation"]));
    expect(rec.suggestion.label).toBe("worse");
    expect(rec.summary).toBe("The edit moved $1,489.00 more than the agent proposed; it moved the delivery of sh_5521 4 days later than the agent proposed; the ticket was reopened 2 days later.");
    expect(rec.deliveryDifference).toEqual([{ shipmentId: "sh_5521", proposed: { from: "2026-04-04", to: "2026-04-04" }, executed: { from: "2026-04-08", to: "2026-04-08" }, daysLater: 4 }]);
    expect(rec.afterwards).toEqual([{ type: "reopened", at: day(2, 3).toISOString(), detail: "Customer says the refund went to the wrong company", daysAfter: 2, countsAgainst: true }]);
  });

  it("an unedited run: its own money, no counterfactual, no over-compensation", () => {
    const rec = computeOutcome(input({ writtenSteps: proposed }));
    expect(rec).toMatchObject({ edited: false, moneyOut: [], proposedMoneyOut: null, moneyDifference: null, moneyDifferenceMinor: 0, suggestion: { label: null } });
    expect(rec.summary).toBe("The run moved no money.");
  });
});

describe("computeOutcome: definitions", () => {
  it("money out sums refunds, credits and waived fees per currency in minor units, largest first; other tools move none", () => {
    const steps: OutcomeStep[] = [
      refund("a", 1000),
      { id: "b", tool: "apply_credit", args: { accountId: "acc_1", amount: usd(2500), memo: "goodwill" } },
      { id: "c", tool: "waive_fee", args: { invoiceId: "in_1", feeCode: "detention", amount: { minor: 50000, currency: "NOK" } } },
      { id: "d", tool: "add_ticket_note", args: { ticketId: "1", note: "n" } },
      { id: "e", tool: "print_label", args: { x: 1 } },
    ];
    const rec = computeOutcome(input({ writtenSteps: steps }));
    expect(rec.moneyOut).toEqual([{ minor: 50000, currency: "NOK" }, usd(3500)]);
    expect(rec.moneyLines.map((l) => l.kind)).toEqual(["refund", "credit", "waived_fee"]);
    expect(rec.unknownEffects).toEqual(["print_label"]);
  });

  it("the cap is the task's ask: within it no over-compensation; beyond it both signals, with the excess", () => {
    const within = computeOutcome(input({ writtenSteps: [refund("a", 20000)], proposedSteps: [refund("a", 10000)], compensationCap: usd(25000) }));
    expect(within.signals).not.toContain("over_compensation");
    expect(within.beyondCap).toEqual([]);
    const over = computeOutcome(input({ writtenSteps: [refund("a", 30000)], proposedSteps: [refund("a", 10000)], compensationCap: usd(25000) }));
    expect(over.signals).toEqual(expect.arrayContaining(["over_compensation", "beyond_cap"]));
    expect(over.beyondCap).toEqual([usd(5000)]);
    expect(over.suggestion.label).toBe("worse");
  });

  it("a reopen after the window is listed but does not count; resolved with less money suggests better, the same money same", () => {
    const late = computeOutcome(input({ writtenSteps: [refund("a", 500)], proposedSteps: [refund("a", 1000)], events: [{ type: "resolved", at: day(1) }, { type: "reopened", at: day(9) }] }));
    expect(late.signals).not.toContain("reopened");
    expect(late.afterwards.map((e) => [e.type, e.countsAgainst])).toEqual([["resolved", false], ["reopened", false]]);
    expect(late.signals).not.toContain("resolved"); // reopened after it was resolved
    const better = computeOutcome(input({ writtenSteps: [refund("a", 500)], proposedSteps: [refund("a", 1000)], events: [{ type: "resolved", at: day(1) }] }));
    expect(better.suggestion.label).toBe("better");
    expect(better.summary).toBe("The edit moved $5.00 less than the agent proposed; the ticket was resolved 1 day later.");
    const same = computeOutcome(input({ writtenSteps: [refund("a", 1000)], proposedSteps: [refund("b", 1000)], events: [{ type: "resolved", at: day(0, 2) }] }));
    expect(same.suggestion.label).toBe("same");
    expect(same.summary).toBe("The edit moved the same money as the agent proposed ($10.00); the ticket was resolved the same day.");
  });

  it("a chargeback counts against the run; events before it executed are left out", () => {
    const rec = computeOutcome(input({ writtenSteps: [refund("a", 100)], events: [{ type: "reopened", at: day(-1) }, { type: "chargeback", at: day(3) }] }));
    expect(rec.afterwards.map((e) => e.type)).toEqual(["chargeback"]);
    expect(rec.signals).toEqual(["chargeback"]);
    expect(rec.suggestion.label).toBe("worse");
  });

  it("commitments: a written reply that promises money or a date; a reply that promises nothing is none", () => {
    const rec = computeOutcome(
      input({
        writtenSteps: [
          { id: "r1", tool: "send_reply", args: { ticketId: "74991", body: "We will refund $1,489.00 to your invoice. Thanks for your patience." } },
          { id: "r2", tool: "send_reply", args: { ticketId: "74991", body: "Thanks, we have noted your message." } },
        ],
      }),
    );
    expect(rec.commitments).toEqual([{ stepId: "r1", ticketId: "74991", kind: "money", clause: expect.stringContaining("refund $1,489.00"), amounts: [usd(148900)] }]);
    expect(rec.signals).toContain("commitment_sent");
  });
});

describe("computeOutcome: deliveries and fees beside the agent's plan", () => {
  const resched = (id: string, shipmentId: string, from: string, to = from): OutcomeStep => ({ id, tool: "reschedule_delivery", args: { shipmentId, window: { from, to }, reason: "r" } });
  const waive = (id: string, minor: number, feeCode = "LATE_FEE", invoiceId = "in_74121"): OutcomeStep => ({ id, tool: "waive_fee", args: { invoiceId, feeCode, amount: usd(minor) } });

  it("the edit moved the delivery 2 days later than the agent proposed; a shipment only one plan moved says which", () => {
    const rec = computeOutcome(input({ writtenSteps: [resched("a", "sh_1", "2026-12-08"), resched("b", "sh_2", "2026-12-09")], proposedSteps: [resched("a", "sh_1", "2026-12-06"), resched("c", "sh_3", "2026-12-07")] }));
    expect(rec.deliveries.map((d) => [d.shipmentId, d.window.from])).toEqual([["sh_1", "2026-12-08"], ["sh_2", "2026-12-09"]]);
    expect(rec.deliveryDifference).toEqual([
      { shipmentId: "sh_1", proposed: { from: "2026-12-06", to: "2026-12-06" }, executed: { from: "2026-12-08", to: "2026-12-08" }, daysLater: 2 },
      { shipmentId: "sh_2", proposed: null, executed: { from: "2026-12-09", to: "2026-12-09" }, daysLater: null },
      { shipmentId: "sh_3", proposed: { from: "2026-12-07", to: "2026-12-07" }, executed: null, daysLater: null },
    ]);
    expect(rec.summary).toBe(
      "Neither the edit nor the agent's plan moved money; it moved the delivery of sh_1 2 days later than the agent proposed; it moved the delivery of sh_2, which the agent's plan left where it was; it left the delivery of sh_3 where it was; the agent proposed moving it.",
    );
    const earlier = computeOutcome(input({ writtenSteps: [resched("a", "sh_1", "2026-12-05", "2026-12-06")], proposedSteps: [resched("a", "sh_1", "2026-12-06")] }));
    expect(earlier.deliveryDifference?.[0].daysLater).toBe(-1);
    expect(earlier.summary).toContain("it moved the delivery of sh_1 1 day earlier than the agent proposed");
    // The same window: no difference. A shipment moved twice counts with its last window.
    const same = computeOutcome(input({ writtenSteps: [resched("a", "sh_1", "2026-12-04"), resched("b", "sh_1", "2026-12-06")], proposedSteps: [resched("a", "sh_1", "2026-12-06")] }));
    expect(same.deliveryDifference).toEqual([]);
    expect(computeOutcome(input({ writtenSteps: [resched("a", "sh_1", "2026-12-06")] })).deliveryDifference).toBeNull();
  });

  it("waived fees per invoice and fee beside the agent's plan: more, less, one the agent did not waive", () => {
    const rec = computeOutcome(input({ writtenSteps: [waive("a", 4500), waive("b", 24000, "STORAGE", "in_74701")], proposedSteps: [waive("a", 2000)] }));
    expect(rec.feesWaived.map((f) => [f.invoiceId, f.feeCode, f.amount.minor])).toEqual([["in_74121", "LATE_FEE", 4500], ["in_74701", "STORAGE", 24000]]);
    expect(rec.feeDifference).toEqual([
      { invoiceId: "in_74121", feeCode: "LATE_FEE", proposed: usd(2000), executed: usd(4500), difference: usd(2500) },
      { invoiceId: "in_74701", feeCode: "STORAGE", proposed: null, executed: usd(24000), difference: usd(24000) },
    ]);
    expect(rec.summary).toBe(
      "The edit moved $265.00 more than the agent proposed; it waived $25.00 more of the LATE_FEE fee on in_74121 than the agent proposed; it waived $240.00 of the STORAGE fee on in_74701, which the agent's plan did not waive.",
    );
    const less = computeOutcome(input({ writtenSteps: [], proposedSteps: [waive("a", 2000)] }));
    expect(less.feeDifference).toEqual([{ invoiceId: "in_74121", feeCode: "LATE_FEE", proposed: usd(2000), executed: null, difference: usd(-2000) }]);
  });

  it("the delivery and fee facts are what each tool's effect model previews (shipment_window after, invoice_fee before − after)", () => {
    const desk = referenceDesk(NOW);
    for (const name of ["reschedule_delivery", "waive_fee"]) {
      const tool = getTool(name)!;
      const step: OutcomeStep = { id: "x", tool: name, args: tool.seed.example((n: number) => new Date(NOW.getTime() + n * 86_400_000).toISOString().slice(0, 10)) };
      const [e] = previewEffects([step], desk);
      expect(e.status).toBe("previewed");
      const changes = e.status === "previewed" ? e.changes : [];
      if (name === "reschedule_delivery") {
        const c = changes.find((x) => x.kind === "shipment_window");
        expect(deliveryLines([step]).map((d) => ({ shipmentId: d.shipmentId, window: d.window }))).toEqual([{ shipmentId: c?.kind === "shipment_window" && c.shipmentId, window: c?.kind === "shipment_window" && c.after }]);
      } else {
        const c = changes.find((x) => x.kind === "invoice_fee");
        const waived = c?.kind === "invoice_fee" ? c.before.minor - c.after.minor : NaN;
        expect(feeLines([step]).map((f) => [f.invoiceId, f.feeCode, f.amount.minor])).toEqual([[c?.kind === "invoice_fee" && c.invoiceId, c?.kind === "invoice_fee" && c.feeCode, waived]]);
      }
    }
  });
});

describe("computeOutcome: properties", () => {
  const amount = fc.integer({ min: 1, max: 10_000_000 });
  const currency = fc.constantFrom("USD" as const, "NOK" as const);
  const steps = fc.array(fc.tuple(amount, currency), { maxLength: 6 }).map((xs) => xs.map(([m, c], i) => refund(`s${i}`, m, c)));
  const events = fc.array(
    fc.record({ type: fc.constantFrom("reopened" as const, "customer_replied" as const, "resolved" as const, "chargeback" as const), at: fc.integer({ min: -5 * 24, max: 30 * 24 }).map((h) => day(0, h)) }),
    { maxLength: 5 },
  ) as fc.Arbitrary<TicketEventInput[]>;

  it("money out per currency equals the sum of the written amounts; difference is executed − proposed; the suggestion is worse iff a signal counts against", () => {
    fc.assert(
      fc.property(steps, fc.option(steps, { nil: null }), events, fc.integer({ min: 0, max: 30 }), (written, proposed, evs, windowDays) => {
        const rec = computeOutcome(input({ writtenSteps: written, proposedSteps: proposed, events: evs, reopenWindowDays: windowDays }));
        for (const c of ["USD", "NOK"] as const) {
          const sum = written.filter((s) => (s.args as { amount: { currency: string } }).amount.currency === c).reduce((a, s) => a + (s.args as { amount: { minor: number } }).amount.minor, 0);
          expect(rec.moneyOut.find((m) => m.currency === c)?.minor ?? 0).toBe(sum);
        }
        if (proposed) {
          const p = totalsByCurrency(proposed.map((s) => (s.args as { amount: { minor: number; currency: "USD" } }).amount));
          expect(rec.moneyDifference).toEqual(moneyDifference(rec.moneyOut, p));
          expect(rec.moneyDifferenceMinor).toBe(Math.max(0, ...rec.moneyDifference!.map((d) => Math.abs(d.minor))));
        }
        const reopenedInWindow = evs.some((e) => e.type === "reopened" && +new Date(e.at) >= +NOW && +new Date(e.at) - +NOW <= windowDays * 86_400_000);
        expect(rec.signals.includes("reopened")).toBe(reopenedInWindow);
        const against = rec.signals.some((s) => ["reopened", "chargeback", "over_compensation", "beyond_cap"].includes(s));
        expect(rec.suggestion.label === "worse").toBe(against);
        if (!proposed) expect(rec.signals).not.toContain("over_compensation");
      }),
    );
  });
});
