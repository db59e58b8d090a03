import { describe, expect, it } from "vitest";
import { toolCatalog } from "../tools/builtin-tools";
import { DEMO_GRANTS, referenceDesk, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { checkMoneyField } from "./money-field-check";

const desk = referenceDesk(REFERENCE_NOW);
const usd = (minor: number) => ({ minor, currency: "USD" as const });
const refund = (minor: number) => ({ invoiceId: "in_74119", amount: usd(minor), reason: "Goodwill for the missed delivery" });
const check = (minor: number, grants = DEMO_GRANTS.senior, changed?: boolean) =>
  checkMoneyField({ tool: toolCatalog.issue_refund, field: "amount", args: refund(minor), desk, grants, now: REFERENCE_NOW, changed });

describe("inline checks of a money field (issue #14)", () => {
  it("says nothing for a refund within the open balance and the viewer's limits", () => {
    expect(check(148900)).toEqual([]);
  });

  it("refuses above the invoice's open balance, with the validator's own code and message", () => {
    const unlimited = DEMO_GRANTS.senior.map((g) => (g.tool === "issue_refund" ? { ...g, approveLimit: null, authorLimit: null } : g));
    const notes = check(212001, unlimited);
    expect(notes).toEqual([expect.objectContaining({ severity: "error", code: "amount_exceeds_balance" })]);
    expect(notes[0].message).toContain("$2,120.00");
  });

  it("refuses above the viewer's authoring limit only for an amount the viewer changed", () => {
    const grants = DEMO_GRANTS.operator.map((g) => (g.tool === "issue_refund" ? { ...g, canAuthor: true, authorLimit: usd(50000) } : g));
    expect(check(60000, grants).map((n) => [n.severity, n.code])).toEqual([["error", "over_author_limit"]]);
    expect(check(60000, grants, false).map((n) => [n.severity, n.code])).toEqual([["info", "over_approve_limit"]]);
  });

  it("tells the viewer when someone with a higher limit must approve", () => {
    const grants = DEMO_GRANTS.senior.map((g) => (g.tool === "issue_refund" ? { ...g, approveLimit: usd(100000) } : g));
    const notes = check(148900, grants);
    expect(notes).toEqual([expect.objectContaining({ severity: "info", code: "over_approve_limit" })]);
    expect(notes[0].message).toContain("$1,000.00");
  });

  it("checks only the viewer's limits while another argument is still missing", () => {
    const notes = checkMoneyField({ tool: toolCatalog.issue_refund, field: "amount", args: { invoiceId: "", amount: usd(999999999) }, desk, grants: DEMO_GRANTS.senior });
    expect(notes.map((n) => n.code)).toEqual(["over_author_limit"]);
  });
});

describe("the most one money value may hold is enforced by the server schema too", () => {
  it("refuses a refund above 10^11 minor units with a typed shape error, not a crash", () => {
    const r = toolCatalog.issue_refund.argsSchema.safeParse(refund(100_000_000_001));
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("most any step may move");
    expect(toolCatalog.issue_refund.argsSchema.safeParse(refund(100_000_000_000)).success).toBe(true);
  });
});
