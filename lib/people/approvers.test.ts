import { describe, expect, it } from "vitest";
import { decidersFor, orList, type Candidate } from "./approvers";
import type { Grant } from "./grants";

const usd = (minor: number) => ({ minor, currency: "USD" as const });
const refund = (limit: number | null): Grant => ({ tool: "issue_refund", canApprove: true, approveLimit: limit === null ? null : usd(limit), canAuthor: false, authorLimit: null });
const people: Candidate[] = [
  { id: "usr_operator", name: "Olivia Operator", role: "operator", grants: [refund(50_000)] },
  { id: "usr_senior", name: "Sam Senior", role: "operator", grants: [refund(200_000)] },
  { id: "usr_supervisor", name: "Sofia Supervisor", role: "supervisor", grants: [refund(1_000_000)] },
  { id: "usr_none", name: "Nia Nogrant", role: "operator", grants: [] },
];

describe("decidersFor (issue #16: who acts next names people)", () => {
  it("names the people whose approve limit covers a $1,060 refund and flags it beyond a $500 operator", () => {
    const [d] = decidersFor([{ stepId: "s2", position: 2, tool: "issue_refund", amount: usd(106_000) }], people, "usr_operator");
    expect(d.sentence).toBe("Sam Senior or Sofia Supervisor can approve step 2 (issue_refund $1,060.00)");
    expect(d.beyondViewer).toBe(true);
  });

  it("includes the viewer at exactly their ceiling, not one minor unit above", () => {
    const at = decidersFor([{ stepId: "s1", position: 1, tool: "issue_refund", amount: usd(50_000) }], people, "usr_operator")[0];
    expect(at.people.map((p) => p.id)).toEqual(["usr_operator", "usr_senior", "usr_supervisor"]);
    expect(at.beyondViewer).toBe(false);
    expect(at.sentence).toBe("You (Olivia Operator), Sam Senior or Sofia Supervisor can approve step 1 (issue_refund $500.00)");
    const above = decidersFor([{ stepId: "s1", position: 1, tool: "issue_refund", amount: usd(50_001) }], people, "usr_operator")[0];
    expect(above.people.map((p) => p.id)).toEqual(["usr_senior", "usr_supervisor"]);
  });

  it("says so when nobody can approve", () => {
    const [d] = decidersFor([{ stepId: "s1", position: 1, tool: "issue_refund", amount: usd(2_000_000) }], people);
    expect(d.people).toEqual([]);
    expect(d.sentence).toMatch(/^Nobody on this desk can approve step 1 \(issue_refund \$20,000.00\)/);
  });

  it("another currency than the ceiling's is over the limit", () => {
    const [d] = decidersFor([{ stepId: "s1", position: 1, tool: "issue_refund", amount: { minor: 100, currency: "EUR" } }], people);
    expect(d.people).toEqual([]);
  });

  it("orList joins names", () => {
    expect(orList(["A"])).toBe("A");
    expect(orList(["A", "B", "C"])).toBe("A, B or C");
  });
});
