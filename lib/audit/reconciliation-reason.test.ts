import { describe, expect, it } from "vitest";
import { reconciliationReasonText } from "./reconciliation-reason";

describe("reconciliationReasonText", () => {
  it("says what was reported for a step reported after its run stopped, never 'No outcome reported'", () => {
    expect(reconciliationReasonText({ reason: "flagged_report", status: "failed", flag: "reported_after_stopped" })).toBe("Reported failed after the run stopped");
    expect(reconciliationReasonText({ reason: "flagged_report", status: "succeeded", flag: "reported_after_expired" })).toBe("Reported succeeded after the run expired");
    expect(reconciliationReasonText({ reason: "flagged_report", status: "succeeded", flag: "reported_after_lease_expired" })).toBe("Reported succeeded after the claim's lease lapsed");
    expect(reconciliationReasonText({ reason: "flagged_report", status: "failed", flag: "reported_after_approval_withdrawn" })).toBe("Reported failed after its approval was withdrawn");
    expect(reconciliationReasonText({ reason: "flagged_report", status: "failed", flag: "cannot_execute" })).toBe("Executor cannot run this step (nothing written)");
  });

  it("keeps the words for an unknown outcome and a claim never reported", () => {
    expect(reconciliationReasonText({ reason: "unknown_outcome", status: "unknown", flag: null })).toBe("Outcome unknown");
    expect(reconciliationReasonText({ reason: "no_report", status: "claimed", flag: null })).toBe("No outcome reported");
  });
});
