import { describe, expect, it } from "vitest";
import { notExecutableIssues } from "./executable";

describe("an edit may not add a tool the run's agent cannot execute", () => {
  const base = [
    { id: "s1", tool: "add_ticket_note" },
    { id: "s2", tool: "issue_refund" },
  ];
  it("names a new step whose tool the agent cannot execute", () => {
    const issues = notExecutableIssues([...base, { id: "n1", tool: "escalate_ticket" }], base, ["add_ticket_note"]);
    expect(issues).toEqual([expect.objectContaining({ code: "tool_not_executable", stepId: "n1", severity: "error", path: "steps.2.tool" })]);
    expect(issues[0].message).toContain("escalate_ticket");
  });
  it("names a step whose tool the edit changed; leaves the agent's own steps and executable tools alone", () => {
    expect(notExecutableIssues([{ id: "s1", tool: "send_reply" }, base[1]], base, ["add_ticket_note"]).map((i) => i.stepId)).toEqual(["s1"]);
    expect(notExecutableIssues([...base, { id: "n1", tool: "add_ticket_note" }], base, ["add_ticket_note"])).toEqual([]);
  });
});
