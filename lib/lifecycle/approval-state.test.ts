import { describe, expect, it } from "vitest";
import { APPROVAL_EVENTS, APPROVAL_STATES, approvalFromStates, approvalToState, type ApprovalEvent } from "./approval-state";

const events = Object.keys(APPROVAL_EVENTS) as ApprovalEvent[];

describe("the approval state machine", () => {
  it("creates records only as active, and every other state is reached from active or claimed", () => {
    expect(events.filter((e) => (APPROVAL_EVENTS[e].from as readonly unknown[]).includes(null)).map(approvalToState)).toEqual(["active"]);
    const reached = new Set(events.map(approvalToState));
    expect([...APPROVAL_STATES].filter((s) => !reached.has(s))).toEqual([]);
  });

  it("consumes a consent only after it was claimed, and a used, superseded, invalidated or expired consent never moves again", () => {
    expect(approvalFromStates("consume")).toEqual(["claimed"]);
    const terminal = ["consumed", "superseded", "invalidated", "expired"] as const;
    for (const e of events) for (const s of terminal) expect(approvalFromStates(e)).not.toContain(s);
  });

  it("a claimed approval is no longer invalidated or expired by the run (the write may be under way)", () => {
    expect(approvalFromStates("invalidate")).toEqual(["active"]);
    expect(approvalFromStates("expire")).toEqual(["active"]);
  });
});
