import { describe, expect, it } from "vitest";
import { referenceDesk, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { validatePlan } from "../validation/pipeline";
import { codes, ctx, readStep, step, validArgs } from "../../testing/validation-context";
import { checkReads } from "./check-reads";
import { observedDigest } from "./digest";
import { getReadTool } from "./catalog";

const desk = referenceDesk(REFERENCE_NOW);
const note = step("n", "add_ticket_note", validArgs.add_ticket_note);

describe("read steps", () => {
  it("Plandesk re-reads the record and says when the world moved", () => {
    const saw = readStep("rd1", "read_invoice", { invoiceId: "in_74121" }, { observed: { openMinor: 212000, status: "open" } });
    const issues = checkReads([saw], desk);
    expect(issues.map((i) => i.code)).toEqual(["read_outdated"]);
    expect(issues[0]).toMatchObject({ severity: "warning", stepId: "rd1", path: "reads.0.observed.openMinor" });
    expect(issues[0].message).toBe("The agent saw an open balance of $2,120.00 on invoice in_74121; it is $645.00 now");
  });

  it("a digest of what it saw is compared with the record now", () => {
    const now = getReadTool("read_invoice")!.observe(desk, "in_74121")!;
    expect(checkReads([{ ...readStep("rd1", "read_invoice", { invoiceId: "in_74121" }), digest: observedDigest(now) }], desk)).toEqual([]);
    expect(codes(checkReads([{ ...readStep("rd1", "read_invoice", { invoiceId: "in_74121" }), digest: observedDigest({ ...now, openMinor: 1 }) }], desk))).toEqual(["read_outdated"]);
  });

  it("a read of another account's record or of no record is flagged; a failed read is not compared", () => {
    expect(codes(checkReads([readStep("rd1", "read_invoice", { invoiceId: "in_74119" })], desk))).toEqual(["read_other_account"]);
    expect(codes(checkReads([readStep("rd1", "read_shipment", { shipmentId: "sh_0" })], desk))).toEqual(["read_outdated"]);
    expect(checkReads([readStep("rd1", "read_invoice", { invoiceId: "in_74121" }, { status: "failed", observed: { openMinor: 1 } })], desk)).toEqual([]);
  });

  it("reads are shape-checked with their read tool's schema and share ids with the writes", () => {
    expect(codes(validatePlan({ version: 1, steps: [note], reads: [readStep("rd", "read_order", {})] }, ctx()))).toEqual(["unknown_read_tool"]);
    expect(codes(validatePlan({ version: 1, steps: [note], reads: [readStep("rd", "read_invoice", { invoice: "in_74121" })] }, ctx())).sort()).toEqual(["missing_field", "unknown_field"]);
    expect(codes(validatePlan({ version: 1, steps: [note], reads: [readStep("n", "read_invoice", { invoiceId: "in_74121" })] }, ctx()))).toEqual(["duplicate_step_id"]);
  });

  it("read steps are never digested, gated or approved: only writes are", () => {
    const r = validatePlan({ version: 1, steps: [note], reads: [readStep("rd", "read_ticket", { ticketId: "74991" })] }, ctx());
    expect(r.ok).toBe(true);
    expect(Object.keys(r.digests ?? {})).toEqual(["n"]);
    expect(Object.keys(r.gate)).toEqual(["n"]);
    expect(r.plan?.reads?.map((x) => x.id)).toEqual(["rd"]);
  });
});
