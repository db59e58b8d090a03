import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { referenceDesk, referenceEditedPlan, referencePlan, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { daysFromNow } from "../time/dates";
import { catalogWith } from "../tools/versioned-catalog";
import { validatePlan } from "../validation/pipeline";
import { ctx, usd, validArgs } from "../../testing/validation-context";
import { applyStepEffect, describeChange, initialEffectState, previewEffects, type StepEffect } from "./preview";
import { stepEffectSchema } from "./schema";

const NOW = REFERENCE_NOW;
const desk = referenceDesk(NOW);
const lines = (e: StepEffect) => (e.status === "previewed" ? e.changes.map(describeChange) : [e.reason]);

describe("previewEffects: the reference case (issue #17.3)", () => {
  it("after the operator's edit: sh_5521 moves four days later and in_74119 goes from $2,120.00 to $631.00 open", () => {
    const effects = previewEffects(referenceEditedPlan(NOW).steps, desk);
    expect(effects.map((e) => [e.position, e.stepId, e.status])).toEqual([
      [1, "s1", "previewed"],
      [2, "s2", "previewed"],
      [3, "s3", "previewed"],
      [4, "s4", "previewed"],
    ]);
    const oldWindow = { from: daysFromNow(NOW, 2), to: daysFromNow(NOW, 2) };
    const newDay = daysFromNow(NOW, 7);
    expect(effects[1]).toMatchObject({ changes: [{ kind: "shipment_window", shipmentId: "sh_5521", before: oldWindow, after: { from: newDay, to: newDay } }] });
    expect(lines(effects[1])).toEqual(["sh_5521 window Fri 3 Apr 2026 → Wed 8 Apr 2026"]);
    expect(effects[3]).toMatchObject({ changes: [{ kind: "invoice_balance", invoiceId: "in_74119", before: usd(212000), after: usd(63100), otherAccount: "Halvorsen Freight" }] });
    // in_74119 is another customer's invoice: the line says whose
    expect(lines(effects[3])).toEqual(["in_74119 (Halvorsen Freight — another customer) open balance $2,120.00 → $631.00"]);
    // the ticket's own shipment carries no other account
    expect(effects[1]).not.toMatchObject({ changes: [{ otherAccount: expect.anything() }] });
  });

  it("says what the customer will have been told: nothing before the reply, the reply from then on", () => {
    const effects = previewEffects(referencePlan(NOW).steps, desk);
    const reply = referencePlan(NOW).steps[2].args.body as string;
    expect(effects.map((e) => (e.status === "previewed" ? e.customerTold.map((t) => t.text) : null))).toEqual([[], [], [reply]]);
    expect(lines(effects[0])).toEqual(["Internal note on ticket 74991 (the customer does not see it)"]);
  });

  it("every entry matches the schema it is stored and served under", () => {
    for (const e of previewEffects(referenceEditedPlan(NOW).steps, desk)) expect(stepEffectSchema.safeParse(e).success).toBe(true);
  });

  it("does not change the snapshot it reads", () => {
    const before = JSON.stringify(desk);
    previewEffects(referenceEditedPlan(NOW).steps, desk);
    expect(JSON.stringify(desk)).toBe(before);
  });
});

describe("previewEffects: each built-in tool", () => {
  const one = (tool: keyof typeof validArgs, args: unknown = validArgs[tool]) => previewEffects([{ id: "x", tool, args }], desk)[0];

  it("waive_fee lowers the fee and the open balance; a fee waived in full is gone", () => {
    expect(lines(one("waive_fee"))).toEqual(["in_74121 LATE_FEE fee $45.00 → waived", "in_74121 open balance $645.00 → $600.00"]);
  });
  it("apply_credit adds to the credit this plan puts on the account, step after step", () => {
    const e = previewEffects([{ id: "a", tool: "apply_credit", args: validArgs.apply_credit }, { id: "b", tool: "apply_credit", args: validArgs.apply_credit }], desk);
    expect(e.map(lines)).toEqual([["acc_nordkapp credit from this plan $0.00 → $10.00"], ["acc_nordkapp credit from this plan $10.00 → $20.00"]]);
  });
  it("escalate_ticket names the team, and the one it replaces", () => {
    const e = previewEffects([{ id: "a", tool: "escalate_ticket", args: validArgs.escalate_ticket }, { id: "b", tool: "escalate_ticket", args: { ...validArgs.escalate_ticket, team: "billing" } }], desk);
    expect(e.map(lines)).toEqual([["Ticket 74991 handed to claims"], ["Ticket 74991 handed to billing (was claims)"]]);
  });
  it("send_reply records the text as sent", () => {
    expect(one("send_reply")).toMatchObject({ status: "previewed", changes: [{ kind: "customer_message", ticketId: "74991", text: "Thanks, we are on it." }] });
  });
});

describe("previewEffects: fails soft, never throws", () => {
  it("an unknown target is a typed 'cannot preview' entry and later steps still preview", () => {
    const e = previewEffects(
      [
        { id: "a", tool: "issue_refund", args: { ...validArgs.issue_refund, invoiceId: "in_99999" } },
        { id: "b", tool: "reschedule_delivery", args: validArgs.reschedule_delivery },
      ],
      desk,
    );
    expect(e[0]).toMatchObject({ status: "cannot_preview", stepId: "a", reason: "No preview: the record this step writes to is not in the account data" });
    expect(e[1].status).toBe("previewed");
  });
  it("an imported tool has no known effect", () => {
    const catalog = catalogWith([{ name: "open_claim", description: "Opens a claim", inputSchema: { type: "object", properties: {} } } as never], 1);
    const e = previewEffects([{ id: "a", tool: "open_claim", args: {} }], desk, catalog);
    expect(e[0]).toMatchObject({ status: "unknown_effect", reason: "No preview: effect unknown (an imported tool)" });
  });
  it("an unknown tool or arguments the tool's schema refuses cannot be previewed", () => {
    expect(previewEffects([{ id: "a", tool: "wire_money", args: {} }], desk)[0]).toMatchObject({ status: "cannot_preview" });
    expect(previewEffects([{ id: "a", tool: "issue_refund", args: { invoiceId: "in_74121" } }], desk)[0]).toMatchObject({ status: "cannot_preview", reason: "No preview: the arguments are not valid" });
  });
  it("two refunds that together exceed the balance: the second cannot be previewed, the balance never goes below zero", () => {
    const r = { id: "a", tool: "issue_refund", args: { ...validArgs.issue_refund, amount: usd(40000) } };
    const e = previewEffects([r, { ...r, id: "b" }], desk);
    expect(lines(e[0])).toEqual(["in_74121 open balance $645.00 → $245.00"]);
    expect(e[1]).toMatchObject({ status: "cannot_preview" });
    expect(lines(e[1])[0]).toContain("more than the $245.00 left open on in_74121 after the earlier steps");
  });
  it("a cancelled shipment's window cannot be previewed as moved", () => {
    const cancelled = { ...desk, shipments: { ...desk.shipments, sh_5521: { ...desk.shipments.sh_5521, status: "cancelled" as const } } };
    expect(previewEffects([{ id: "a", tool: "reschedule_delivery", args: validArgs.reschedule_delivery }], cancelled)[0]).toMatchObject({ status: "cannot_preview", reason: "No preview: Shipment sh_5521 was cancelled; there is no delivery to move" });
  });
  it("a paid invoice, a delivered shipment: cannot be previewed", () => {
    expect(previewEffects([{ id: "a", tool: "issue_refund", args: { ...validArgs.issue_refund, invoiceId: "in_74120" } }], desk)[0].status).toBe("cannot_preview");
    expect(previewEffects([{ id: "a", tool: "reschedule_delivery", args: { ...validArgs.reschedule_delivery, shipmentId: "sh_5523" } }], desk)[0].status).toBe("cannot_preview");
  });
  it("never throws for arbitrary JSON steps", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string(), tool: fc.constantFrom("issue_refund", "waive_fee", "reschedule_delivery", "send_reply", "nope"), args: fc.jsonValue() }), { maxLength: 6 }), (steps) => {
        const e = previewEffects(steps, desk);
        expect(e).toHaveLength(steps.length);
      }),
    );
  });
});

describe("previewEffects: properties", () => {
  const refundArb = fc.record({
    invoiceId: fc.constantFrom("in_74119", "in_74121", "in_74123"),
    minor: fc.integer({ min: 1, max: 250000 }),
  });
  const stepsArb = fc.array(refundArb, { minLength: 1, maxLength: 5 }).map((rs) =>
    rs.map((r, i) => ({
      id: `r${i}`,
      tool: "issue_refund",
      args: { invoiceId: r.invoiceId, amount: { minor: r.minor, currency: desk.invoices[r.invoiceId].openBalance.currency }, reason: "Goodwill" },
      rationale: "test",
    })),
  );

  it("when the validator accepts a plan of refunds, no previewed balance is below zero", () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        const v = validatePlan({ version: 1, steps }, ctx());
        fc.pre(v.ok);
        for (const e of previewEffects(steps, desk)) {
          if (e.status !== "previewed") continue;
          for (const c of e.changes) if (c.kind === "invoice_balance") expect(c.after.minor).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it("the fold equals applying the steps one by one, and each step starts where the previous ended", () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        let state = initialEffectState(desk);
        const oneByOne: StepEffect[] = [];
        steps.forEach((s, i) => {
          const r = applyStepEffect(state, s, i + 1, desk);
          state = r.state;
          oneByOne.push(r.effect);
        });
        const folded = previewEffects(steps, desk);
        expect(folded).toEqual(oneByOne);
        // the final balance of each invoice is the live balance minus what the previewed refunds took
        for (const id of Object.keys(desk.invoices)) {
          const taken = folded.flatMap((e) => (e.status === "previewed" ? e.changes : [])).filter((c) => c.kind === "invoice_balance" && c.invoiceId === id);
          const last = taken.at(-1);
          if (last && last.kind === "invoice_balance") {
            expect(last.after.minor).toBe(state.invoices[id].openBalance.minor);
            expect(state.invoices[id].openBalance.minor).toBe(desk.invoices[id].openBalance.minor - taken.reduce((a, c) => a + (c.kind === "invoice_balance" ? c.before.minor - c.after.minor : 0), 0));
          }
        }
      }),
    );
  });
});
