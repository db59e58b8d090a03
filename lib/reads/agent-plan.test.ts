import { describe, expect, it } from "vitest";
import { builtinCatalog } from "../tools/versioned-catalog";
import { splitAgentPlan } from "./agent-plan";

const refund = { id: "r", tool: "issue_refund", args: { invoiceId: "in_74121", amount: { minor: 1000, currency: "USD" }, reason: "x" } };

describe("an agent's plan as sent", () => {
  it("read steps sent among the steps move to reads; issue paths are given back as sent", () => {
    const read = { id: "rd", kind: "read", tool: "read_invoice", args: { invoiceId: "in_74121" }, status: "ok" };
    const p = splitAgentPlan([read, refund], undefined, builtinCatalog);
    expect(p.steps).toEqual([refund]);
    expect(p.reads).toEqual([read]);
    expect(p.pathsAsSent([{ stage: "shape", code: "x", severity: "error", message: "", path: "steps.0.args.amount" }, { stage: "shape", code: "x", severity: "error", message: "", path: "reads.0.tool" }]).map((i) => i.path)).toEqual([
      "steps.1.args.amount",
      "steps.0.tool",
    ]);
  });

  it("a step's reads become its evidence (read step ids or kind:id records); anything else is refused", () => {
    const read = { id: "rd", kind: "read", tool: "read_invoice", args: { invoiceId: "in_74121" }, status: "ok" };
    const p = splitAgentPlan([read, { ...refund, reads: ["rd", "invoice:in_74121"] }], undefined, builtinCatalog);
    expect(p.issues).toEqual([]);
    expect(p.steps[0]).toEqual({ ...refund, evidence: [{ readStepId: "rd" }, { recordType: "invoice", recordId: "in_74121" }] });
    expect(splitAgentPlan([{ ...refund, reads: ["src/app.ts"] }], undefined, builtinCatalog).issues.map((i) => [i.code, i.path])).toEqual([["invalid_value", "steps.0.reads.0"]]);
  });

  it("a step's writes must be its tool's declared write target, or the plan is refused (no silent expansion)", () => {
    expect(splitAgentPlan([{ ...refund, writes: ["invoice:in_74121"] }], undefined, builtinCatalog).issues).toEqual([]);
    expect(splitAgentPlan([{ ...refund, writes: ["in_74121"] }], undefined, builtinCatalog).steps[0]).toEqual(refund);
    const wider = splitAgentPlan([{ ...refund, writes: ["in_74121", "invoice:in_74119"] }], undefined, builtinCatalog);
    expect(wider.issues.map((i) => [i.code, i.path])).toEqual([["undeclared_write", "steps.0.writes.1"]]);
    expect(wider.issues[0].message).toContain("issue_refund writes invoice in_74121 (its declared target)");
  });
});
