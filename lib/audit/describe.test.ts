import { describe, expect, it } from "vitest";
import { authorLabel, describeEvent, formatUtcSeconds } from "./describe";

const ctx = { users: { usr_senior: "Sam Senior" }, stepLabel: (id: string) => ({ st_resched: "step 2 reschedule_delivery", st_new: "step 4 issue_refund" })[id] };

describe("describeEvent", () => {
  it("names steps, people and versions", () => {
    expect(describeEvent("submitted", { steps: 3, taskRevision: 1 }, ctx)).toBe("The agent submitted a plan of 3 steps, bound to task revision 1.");
    expect(describeEvent("edited", { fromVersion: 1, toVersion: 2, changeCount: 2, summary: ["step 4 issue_refund added", "step 2 reschedule_delivery: window.from a → b"] }, ctx)).toBe(
      "Edited plan version 1 → 2: 2 changes (step 4 issue_refund added; step 2 reschedule_delivery: window.from a → b).",
    );
    expect(describeEvent("approved", { stepId: "st_new", planVersion: 2, acknowledged: [{ code: "cross_account_target", stepId: "st_new" }] }, ctx)).toBe(
      "Approved step 4 issue_refund of plan version 2, acknowledging 1 warning.",
    );
    expect(describeEvent("claimed", { stepId: "st_resched", planVersion: 2, taskRevision: 1, approverId: "usr_senior" }, ctx)).toBe(
      "The executor claimed step 2 reschedule_delivery (version 2, task revision 1), under the approval of Sam Senior.",
    );
    expect(describeEvent("claimed", { stepId: "st_x", planVersion: 2, taskRevision: 1, approverId: null }, ctx)).toMatch(/step st_x .*approval of policy/);
    expect(describeEvent("outcome", { stepId: "st_new", status: "succeeded", runStatus: "completed" }, ctx)).toBe("The executor reported step 4 issue_refund succeeded; run is completed.");
    expect(describeEvent("denied", { action: "read_audit", reason: "This needs one of the roles operator, supervisor; you are signed in as admin." }, ctx)).toBe(
      "Refused: read audit — This needs one of the roles operator, supervisor; you are signed in as admin.",
    );
  });

  it("never throws on odd data and falls back to the type", () => {
    expect(describeEvent("approved", {}, ctx)).toBe("Approved a step of plan version ?.");
    expect(describeEvent("something_new", { x: 1 }, ctx)).toBe("something_new");
  });
});

describe("authorLabel", () => {
  const users = { usr_senior: "Sam Senior" };
  const op = (previous?: unknown) => ({ kind: "operator" as const, userId: "usr_senior", at: "2026-04-01T09:00:00.000Z", ...(previous === undefined ? {} : { previous }) });
  it("tells the agent's steps, added steps and changed steps apart", () => {
    expect(authorLabel({ kind: "model" }, { a: { kind: "model" } }, users)).toBe("Proposed by the agent");
    expect(authorLabel({ kind: "user", userId: "usr_senior" }, { a: op(), b: op() }, users)).toBe("Added by Sam Senior");
    expect(authorLabel({ kind: "user", userId: "usr_senior" }, { a: op("old"), b: { kind: "model" } }, users)).toBe("Changed by Sam Senior");
    expect(authorLabel({ kind: "user", userId: "usr_gone" }, { a: op("old") }, users)).toBe("Changed by usr_gone");
  });
});

it("formats instants in UTC with seconds", () => {
  expect(formatUtcSeconds("2026-04-01T09:00:05.123Z")).toBe("1 Apr 2026, 09:00:05 UTC");
  expect(formatUtcSeconds("nonsense")).toBe("nonsense");
});

it("describes the MCP gateway's read, held write and execution", () => {
  const ctx = { users: {}, stepLabel: () => undefined };
  expect(describeEvent("gateway_call", { kind: "read", tool: "get_tracking", upstream: "carrier", status: "ok" }, ctx)).toBe("The agent read get_tracking on the MCP server carrier through Plandesk's MCP gateway (ok).");
  expect(describeEvent("gateway_call", { kind: "write", tool: "book_redelivery", upstream: "carrier", status: "pending" }, ctx)).toContain("holds it as this plan's step");
  expect(describeEvent("gateway_call", { kind: "execute", tool: "book_redelivery", upstream: "carrier", status: "unknown" }, ctx)).toBe("Plandesk executed book_redelivery on the MCP server carrier: unknown.");
});
