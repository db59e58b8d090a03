import { describe, expect, it } from "vitest";
import { codes, one, only, usd, validArgs } from "../../testing/validation-context";

describe("task contract stage", () => {
  it("warns, naming both accounts, when a write targets another account's invoice", () => {
    const r = one("issue_refund", { invoiceId: "in_74119", amount: usd(148900), reason: "Goodwill" });
    expect(r.ok).toBe(true); // a warning does not block…
    const i = only(r, "cross_account_target");
    expect(i).toEqual({
      stage: "task_contract",
      code: "cross_account_target",
      severity: "warning",
      stepId: "x",
      path: "steps.0.args.invoiceId",
      message: "invoice in_74119 belongs to Halvorsen Freight, not to Nordkapp Logistics (the account on ticket #74991)",
      needsAcknowledgement: true, // …but the approver must acknowledge it
      details: { targetKind: "invoice", targetId: "in_74119", targetAccountId: "acc_halvorsen", ticketAccountId: "acc_nordkapp" },
    });
    expect(r.gate.x).toBe("approval_required");
  });

  it("covers shipments, accounts and tickets too", () => {
    const ship = only(one("reschedule_delivery", { ...validArgs.reschedule_delivery, shipmentId: "sh_5522", window: { from: "2026-04-03", to: "2026-04-03" } }), "cross_account_target");
    expect(ship.message).toBe("shipment sh_5522 belongs to Halvorsen Freight, not to Nordkapp Logistics (the account on ticket #74991)");
    const acc = only(one("apply_credit", { ...validArgs.apply_credit, accountId: "acc_halvorsen" }), "cross_account_target");
    expect(acc.message).toBe("account acc_halvorsen is Halvorsen Freight, not Nordkapp Logistics (the account on ticket #74991)");
    expect(acc.path).toBe("steps.0.args.accountId");
  });

  it("a ticket step on another ticket is a warning that needs acknowledgement", () => {
    const r = one("add_ticket_note", { ...validArgs.add_ticket_note, ticketId: "74992" });
    expect(codes(r)).toEqual(["other_ticket_target", "cross_account_target"]);
    const i = only(r, "other_ticket_target");
    expect(i).toMatchObject({ severity: "warning", needsAcknowledgement: true, path: "steps.0.args.ticketId" });
    expect(i.message).toBe("This step acts on ticket #74992, not on ticket #74991 (the ticket of this task)");
    expect(r.gate.x).toBe("approval_required"); // an internal note, normally auto
  });

  it("stays quiet for the ticket's own records and for unresolved targets", () => {
    for (const [tool, args] of Object.entries(validArgs)) expect(one(tool, args).issues).toEqual([]);
    expect(codes(one("issue_refund", { ...validArgs.issue_refund, invoiceId: "in_nope" }))).toEqual(["unknown_id"]);
  });
});
