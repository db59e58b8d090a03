import { describe, expect, it } from "vitest";
import { deskRuleCreateSchema } from "./rules";
import { editRefParam, prefillFromEdit, readEditRef } from "./prefill";

const ref = (over: Record<string, unknown>) => readEditRef(JSON.stringify({ key: "k", kind: "field", tool: "reschedule_delivery", pattern: "p", desks: ["freight"], minDaysAhead: null, ...over }))!;

describe("a rule prefilled from a recurring edit", () => {
  it("window.from moved +2 days → at least the fewest days ahead people set", () => {
    const p = prefillFromEdit(ref({ key: "shift|reschedule_delivery|window.from|2", kind: "date_shift", path: "window.from", pattern: "window.from moved +2 days", minDaysAhead: 5 }));
    expect(p.rule).toEqual({ kind: "date_min_offset_days", tool: "reschedule_delivery", path: "window.from", days: 5 });
    expect(p).toMatchObject({ desk: "freight", severity: "warning", source: { key: "shift|reschedule_delivery|window.from|2", kind: "date_shift" } });
    // what the form sends is what the API takes
    expect(deskRuleCreateSchema.safeParse({ desk: p.desk, severity: p.severity, description: p.description, rule: p.rule, source: p.source, note: "from insights" }).success).toBe(true);
  });

  it("a date changed away from the same day → never that day; an added note before a reply → the reply needs it", () => {
    expect(prefillFromEdit(ref({ kind: "field_change", path: "window.from", before: "2026-12-24" })).rule).toEqual({ kind: "no_date_in", tool: "reschedule_delivery", path: "window.from", dates: ["2026-12-24"], holidays: false });
    expect(prefillFromEdit(ref({ kind: "step_added", tool: "add_ticket_note", followedBy: "send_reply", pattern: "step added" })).rule).toEqual({ kind: "step_requires_prior", tool: "send_reply", priorTool: "add_ticket_note" });
    expect(prefillFromEdit(ref({ kind: "step_removed", tool: "issue_refund", pattern: "step removed" })).rule).toEqual({ kind: "guidance", tool: "issue_refund" });
  });

  it("the query parameter round-trips; anything else is no edit", () => {
    const back = readEditRef(editRefParam({ key: "added|issue_refund", kind: "step_added", tool: "issue_refund", pattern: "step added", desks: ["freight"], minDaysAhead: null, followedBy: null, runs: 3 }));
    expect(back).toMatchObject({ key: "added|issue_refund", kind: "step_added", runs: 3 });
    expect(readEditRef("{nope")).toBeNull();
    expect(readEditRef(JSON.stringify({ kind: "bogus" }))).toBeNull();
    expect(readEditRef(undefined)).toBeNull();
  });
});
