import { describe, expect, it } from "vitest";
import { deskRuleCreateSchema, deskRuleParamsSchema, describeRule, type DeskRule, type DeskRuleParams } from "../desk-rules/rules";
import { validatePlan } from "./pipeline";
import { codes, ctx, day, plan, step, validArgs } from "../../testing/validation-context";

/*
 * Desk rules in the one validator (stage desk_rule): today is 2026-04-01 (UTC); NO-OSL (sh_5521's
 * destination) has holidays on 04-06 and 04-11.
 */

const rule = (p: DeskRuleParams, severity: "warning" | "error" = "warning", id = "dr_1"): DeskRule => ({ id, version: 2, severity, description: describeRule(p), rule: p });
const note = step("n", "add_ticket_note", validArgs.add_ticket_note);
const reply = step("r", "send_reply", { ticketId: "74991", body: "Your delivery is being rescheduled; we will confirm the new date." });
const move = (from: string, to = from) => step("m", "reschedule_delivery", { ...validArgs.reschedule_delivery, shipmentId: "sh_5521", window: { from, to } });
const withRules = (...rules: DeskRule[]) => ctx({ deskRules: { rules } });
const deskIssues = (r: ReturnType<typeof validatePlan>) => r.issues.filter((i) => i.stage === "desk_rule");

describe("step_requires_prior: a reply follows a ticket note", () => {
  const replyAfterNote = rule({ kind: "step_requires_prior", tool: "send_reply", priorTool: "add_ticket_note" });

  it("warns on a reply with no note before it, names the step, and does not block", () => {
    const r = validatePlan(plan(reply), withRules(replyAfterNote));
    expect(deskIssues(r)).toEqual([
      {
        stage: "desk_rule",
        code: "desk_rule_prior_missing",
        severity: "warning",
        stepId: "r",
        path: "steps.0",
        message: "Desk rule: send_reply needs an add_ticket_note step before it in the plan — step 1 (send_reply) has no add_ticket_note step before it.",
        details: { ruleId: "dr_1", version: 2, kind: "step_requires_prior", priorTool: "add_ticket_note" },
      },
    ]);
    expect(r.ok).toBe(true);
  });

  it("holds when the note comes first; a note after the reply does not count", () => {
    expect(deskIssues(validatePlan(plan(note, reply), withRules(replyAfterNote)))).toEqual([]);
    expect(codes(deskIssues(validatePlan(plan(reply, note), withRules(replyAfterNote))))).toEqual(["desk_rule_prior_missing"]);
  });

  it("an error rule refuses the plan", () => {
    const r = validatePlan(plan(reply), withRules({ ...replyAfterNote, severity: "error" }));
    expect(r.ok).toBe(false);
    expect(deskIssues(r)[0].severity).toBe("error");
  });

  it("a step validated alone (dispatch) sees the plan's earlier tools", () => {
    const alone = ctx({ deskRules: { rules: [replyAfterNote], earlierTools: { r: ["add_ticket_note"] } } });
    expect(deskIssues(validatePlan(plan(reply), alone))).toEqual([]);
    const without = ctx({ deskRules: { rules: [replyAfterNote], earlierTools: { r: [] } } });
    expect(codes(deskIssues(validatePlan(plan(reply), without)))).toEqual(["desk_rule_prior_missing"]);
  });
});

describe("no_date_in: never schedule into a destination holiday", () => {
  const holidays = rule({ kind: "no_date_in", tool: "reschedule_delivery", path: "window", dates: [], holidays: true });

  it("a window that includes a holiday of the destination is flagged with the day", () => {
    const r = validatePlan(plan(move(day(4), day(6))), withRules(holidays));
    const [i] = deskIssues(r);
    expect(i).toMatchObject({ code: "desk_rule_date_excluded", stepId: "m", path: "steps.0.args.window", details: { date: "2026-04-06" } });
    expect(i.message).toContain("2026-04-06, a holiday in NO-OSL");
  });

  it("a window clear of holidays and listed dates passes; a listed date is flagged", () => {
    expect(deskIssues(validatePlan(plan(move(day(3), day(4))), withRules(holidays)))).toEqual([]);
    const listed = rule({ kind: "no_date_in", tool: "reschedule_delivery", path: "window.from", dates: [day(3)], holidays: false });
    expect(deskIssues(validatePlan(plan(move(day(3), day(4))), withRules(listed)))[0]).toMatchObject({ code: "desk_rule_date_excluded", details: { date: day(3) } });
  });
});

describe("date_min_offset_days: window.from moved +2 days, said as a minimum", () => {
  const threeAhead = rule({ kind: "date_min_offset_days", tool: "reschedule_delivery", path: "window.from", days: 3 });

  it("a date fewer days ahead than the rule asks is flagged with the earliest allowed", () => {
    const [i] = deskIssues(validatePlan(plan(move(day(2), day(4))), withRules(threeAhead)));
    expect(i).toMatchObject({ code: "desk_rule_date_too_soon", path: "steps.0.args.window.from", details: { value: day(2), earliest: day(3) } });
    expect(deskIssues(validatePlan(plan(move(day(3), day(4))), withRules(threeAhead)))).toEqual([]);
  });

  it("other tools and guidance rules are never issues", () => {
    const guidance = rule({ kind: "guidance", tool: "reschedule_delivery" });
    expect(deskIssues(validatePlan(plan(note, move(day(2), day(4))), withRules(guidance)))).toEqual([]);
    const replyRule = rule({ kind: "date_min_offset_days", tool: "send_reply", path: "window.from", days: 9 });
    expect(deskIssues(validatePlan(plan(move(day(2), day(4))), withRules(replyRule)))).toEqual([]);
  });
});

describe("the rule vocabulary", () => {
  it("parses each kind and refuses what is not one", () => {
    expect(deskRuleParamsSchema.parse({ kind: "no_date_in", tool: "reschedule_delivery", path: "window", holidays: true })).toEqual({ kind: "no_date_in", tool: "reschedule_delivery", path: "window", dates: [], holidays: true });
    expect(deskRuleParamsSchema.safeParse({ kind: "no_date_in", tool: "reschedule_delivery", path: "window" }).success).toBe(false); // neither dates nor holidays
    expect(deskRuleParamsSchema.safeParse({ kind: "date_min_offset_days", tool: "reschedule_delivery", path: "window.from", days: -1 }).success).toBe(false);
    expect(deskRuleParamsSchema.safeParse({ kind: "no_date_in", tool: "reschedule_delivery", path: "window", dates: ["2026-02-30"] }).success).toBe(false);
    expect(deskRuleParamsSchema.safeParse({ kind: "run_sql", tool: "x" }).success).toBe(false);
    expect(deskRuleCreateSchema.safeParse({ desk: "freight", severity: "info", description: "abc", rule: { kind: "guidance", tool: "send_reply" }, note: "n" }).success).toBe(false);
  });

  it("says each rule in words", () => {
    expect(describeRule({ kind: "date_min_offset_days", tool: "reschedule_delivery", path: "window.from", days: 2 })).toBe("reschedule_delivery: window.from is at least 2 days after today (UTC)");
    expect(describeRule({ kind: "no_date_in", tool: "reschedule_delivery", path: "window", dates: [], holidays: true })).toBe("reschedule_delivery: window is never a holiday of the shipment's destination");
  });
});
