import { describe, expect, it } from "vitest";
import type { AccountSnapshot, ShipmentStatus } from "../../desk/snapshot";
import { describeChange, previewEffects } from "../../effects/preview";
import { REFERENCE_NOW, referenceDesk } from "../../../testing/fixtures/reference-desk";
import { codes, ctx, one, only, plan, step, validArgs } from "../../../testing/validation-context";
import { validatePlan } from "../../validation/pipeline";
import { cancelShipment } from "./tool";

const base = referenceDesk(REFERENCE_NOW);
/** The reference desk with sh_5521 (Nordkapp's, the ticket's account) in `status`. */
const deskWith = (status: ShipmentStatus): AccountSnapshot => ({ ...base, shipments: { ...base.shipments, sh_5521: { ...base.shipments.sh_5521, status } } });
const cancel = (shipmentId = "sh_5521") => ({ shipmentId, reason: "The customer withdrew the order" });

describe("cancel_shipment: validator rules", () => {
  it("cancels a shipment of the ticket's account that is not yet dispatched", () => {
    const r = one("cancel_shipment", cancel());
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it("refuses a dispatched shipment (in transit or held on the way) with a typed issue on the shipment", () => {
    for (const status of ["in_transit", "held"] as const) {
      const r = one("cancel_shipment", cancel(), { desk: deskWith(status) });
      expect(r.ok).toBe(false);
      const issue = only(r, "shipment_dispatched");
      expect(issue).toMatchObject({ stage: "argument_bounds", severity: "error", path: "steps.0.args.shipmentId", details: { shipmentId: "sh_5521", status } });
      expect(issue.message).toContain("has been dispatched");
    }
  });

  it("refuses a delivered or already cancelled shipment", () => {
    expect(codes(one("cancel_shipment", cancel(), { desk: deskWith("delivered") }))).toContain("shipment_delivered");
    expect(codes(one("cancel_shipment", cancel(), { desk: deskWith("cancelled") }))).toContain("shipment_cancelled");
  });

  it("refuses an unknown shipment with a nearest-id hint, and another account's shipment", () => {
    expect(only(one("cancel_shipment", cancel("sh_5512")), "unknown_id").message).toContain("did you mean");
    const other = one("cancel_shipment", cancel("sh_5522"));
    expect(only(other, "shipment_other_account").message).toContain("belongs to another account");
    expect(codes(other)).toContain("shipment_dispatched"); // sh_5522 is in transit too
  });

  it("one schema for form and server: strict, with form-friendly messages", () => {
    expect(cancelShipment.argsSchema.safeParse(cancel()).success).toBe(true);
    expect(cancelShipment.argsSchema.safeParse({ ...cancel(), extra: 1 }).success).toBe(false);
    const missing = cancelShipment.argsSchema.safeParse({ shipmentId: "sh_5521", reason: "  " });
    expect(missing.success ? [] : missing.error.issues.map((i) => i.message)).toEqual(["Reason is required"]);
    expect(cancelShipment.fields.map((f) => [f.name, f.kind])).toEqual([["shipmentId", "shipment_id"], ["reason", "text"]]);
  });

  it("is irreversible and always needs a person's approval, whatever the plan", () => {
    expect([cancelShipment.effect, cancelShipment.gate, cancelShipment.grantClass]).toEqual(["irreversible", "approval", "plain"]);
    const r = validatePlan(plan(step("c", "cancel_shipment", cancel())), ctx({ gatePolicy: { cancel_shipment: "auto" } }));
    expect(r.gate.c).toBe("approval_required");
  });
});

describe("cancel_shipment: effects preview", () => {
  it("says 'sh_5521 cancelled', and a later reschedule of it cannot apply", () => {
    const e = previewEffects(
      [
        { id: "c", tool: "cancel_shipment", args: cancel() },
        { id: "m", tool: "reschedule_delivery", args: validArgs.reschedule_delivery },
      ],
      base,
    );
    expect(e[0]).toMatchObject({ status: "previewed", changes: [{ kind: "shipment_status", shipmentId: "sh_5521", before: "scheduled", after: "cancelled" }] });
    expect(e[0].status === "previewed" ? e[0].changes.map(describeChange) : []).toEqual(["sh_5521 cancelled"]);
    expect(e[1]).toMatchObject({ status: "cannot_preview", reason: "No preview: Shipment sh_5521 was cancelled; there is no delivery to move" });
  });

  it("a dispatched shipment cannot be previewed as cancelled", () => {
    expect(previewEffects([{ id: "c", tool: "cancel_shipment", args: cancel() }], deskWith("in_transit"))[0]).toMatchObject({ status: "cannot_preview" });
  });
});
