import { describe, expect, it } from "vitest";
import { EMPTY_RULE_FORM, gatePolicyFormSchema, toRuleForm } from "./form";
import { gateRule, gateRuleInputSchema } from "./rules";

const draft = (rule: Partial<typeof EMPTY_RULE_FORM> & Record<string, unknown>) => gatePolicyFormSchema.safeParse({ baseVersion: 1, note: "why", rules: [{ ...EMPTY_RULE_FORM, ...rule }] });

describe("the gate-policy editor's form", () => {
  it("required step fields come from checkboxes: the checked values in display order, none checked → none", () => {
    const some = draft({ tool: "issue_refund", requiredFields: ["stopCondition", "title", "evidence"] });
    expect(some.success && some.data.rules[0].requiredFields).toEqual(["title", "evidence", "stopCondition"]);
    // react-hook-form gives false for a checkbox group with nothing checked.
    const none = draft({ tool: "issue_refund", requiredFields: false });
    expect(none.success && none.data.rules[0].requiredFields).toEqual([]);
  });

  it("the date horizon is typed in days: blank is the default, a whole number from 1 to 3,660 is kept, anything else is a correctable error on that field", () => {
    const blank = draft({ horizonDays: "" });
    expect(blank.success && blank.data.rules[0].dateHorizonDays).toBeNull();
    const thirty = draft({ horizonDays: "30" });
    expect(thirty.success && thirty.data.rules[0].dateHorizonDays).toBe(30);
    for (const bad of ["0", "1.5", "3661", "soon"]) {
      const r = draft({ horizonDays: bad });
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]).toMatchObject({ path: ["rules", 0, "horizonDays"], message: "Write a whole number of days from 1 to 3660, e.g. 366." });
    }
  });

  it("the max record age is typed in minutes: blank is no bound, a whole number from 1 to 525,600 is kept, anything else is a correctable error on that field", () => {
    const blank = draft({ maxRecordAgeMinutes: "" });
    expect(blank.success && blank.data.rules[0].maxRecordAgeMinutes).toBeNull();
    const hour = draft({ tool: "issue_refund", maxRecordAgeMinutes: " 60 " });
    expect(hour.success && hour.data.rules[0].maxRecordAgeMinutes).toBe(60);
    expect(draft({ maxRecordAgeMinutes: "525600" }).success).toBe(true);
    for (const bad of ["0", "-5", "2.5", "525601", "an hour"]) {
      const r = draft({ maxRecordAgeMinutes: bad });
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]).toMatchObject({ path: ["rules", 0, "maxRecordAgeMinutes"], message: "Write a whole number of minutes from 1 to 525600, e.g. 60 (blank: no bound)." });
    }
  });

  it("the API's rule schema bounds the max record age the same way (1 to 525,600 minutes, null: no bound)", () => {
    const parse = (maxRecordAgeMinutes: unknown) => gateRuleInputSchema.safeParse({ decision: "one", authorMayApprove: true, maxRecordAgeMinutes });
    expect(parse(60).data?.maxRecordAgeMinutes).toBe(60);
    expect(parse(null).data?.maxRecordAgeMinutes).toBeNull();
    expect(parse(undefined).data?.maxRecordAgeMinutes).toBeNull();
    for (const bad of [0, 525601, 1.5, "60"]) expect(parse(bad).success, String(bad)).toBe(false);
  });

  it("a saved rule round-trips through the form unchanged (required fields, horizon, record age, outside-contract choice)", () => {
    const rule = gateRule({ tool: "issue_refund", decision: "two", requiredFields: ["title", "risk"], dateHorizonDays: 90, maxRecordAgeMinutes: 60, allowOutsideContract: "supervisor", note: "big refunds" });
    const back = gatePolicyFormSchema.parse({ baseVersion: 2, note: "n", rules: [toRuleForm(rule)] });
    expect(back.rules[0]).toEqual(rule);
  });
});
