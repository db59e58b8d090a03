import { describe, expect, it } from "vitest";
import { compareEffects } from "./compare";
import { describeChange } from "./preview";
import type { StepEffect } from "./schema";

const cancelled: StepEffect = {
  status: "previewed",
  stepId: "s1",
  position: 1,
  tool: "cancel_shipment",
  changes: [{ kind: "shipment_status", shipmentId: "sh_5521", before: "scheduled", after: "cancelled" }],
  customerTold: [],
};

describe("a shipment's status change: preview and expected vs actual", () => {
  it("reads 'sh_5521 cancelled' in the preview, and other moves name both statuses", () => {
    expect(describeChange(cancelled.status === "previewed" ? cancelled.changes[0] : (null as never))).toBe("sh_5521 cancelled");
    expect(describeChange({ kind: "shipment_status", shipmentId: "sh_5521", before: "scheduled", after: "in_transit" })).toBe("sh_5521 scheduled → in transit");
  });

  it("agrees when the executor's record shows the status the approver saw, and says so when it does not", () => {
    const record = (status: string) => ({ summary: "Cancelled sh_5521.", record: { type: "shipment", id: "sh_5521", before: { status: "scheduled" }, after: { status } } });
    expect(compareEffects(cancelled, record("cancelled"))).toEqual([{ what: "sh_5521 status", expected: "cancelled", actual: "cancelled", matches: true }]);
    expect(compareEffects(cancelled, record("in_transit"))).toEqual([{ what: "sh_5521 status", expected: "cancelled", actual: "in transit", matches: false }]);
    expect(compareEffects(cancelled, { summary: "Nothing written.", record: null })).toEqual([{ what: "sh_5521 status", expected: "cancelled", actual: "Nothing written.", matches: null }]);
  });
});
