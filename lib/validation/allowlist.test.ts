import { describe, expect, it } from "vitest";
import { validatePlan } from "./pipeline";
import { codes, ctx, one, only, plan, step, validArgs } from "../../testing/validation-context";

describe("allowlist stage", () => {
  it("refuses a tool the agent may not call", () => {
    const r = one("issue_refund", validArgs.issue_refund, { agentAllowedTools: ["add_ticket_note", "send_reply"] });
    expect(r.ok).toBe(false);
    expect(only(r, "tool_not_allowed")).toMatchObject({
      stage: "allowlist",
      stepId: "x",
      path: "steps.0.tool",
      message: "issue_refund is not a tool this agent may call",
    });
  });

  it("accepts allowed tools and refuses everything with an empty allowlist", () => {
    expect(one("send_reply", validArgs.send_reply, { agentAllowedTools: ["send_reply"] }).ok).toBe(true);
    expect(codes(one("send_reply", validArgs.send_reply, { agentAllowedTools: [] }))).toEqual(["tool_not_allowed"]);
  });

  it("needs only the tool name: also reported for a step whose args failed shape", () => {
    const r = validatePlan(plan(step("a", "apply_credit", {})), ctx({ agentAllowedTools: [] }));
    expect(codes(r)).toContain("tool_not_allowed");
  });

  it("does not repeat the shape error for an unknown tool", () => {
    expect(codes(one("teleport", {}, { agentAllowedTools: [] }))).toEqual(["unknown_tool"]);
  });
});
