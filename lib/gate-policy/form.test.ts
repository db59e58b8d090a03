import { describe, expect, it } from "vitest";
import { EMPTY_RULE_FORM, gatePolicyFormSchema, toRuleForm } from "./form";
import { gateRule } from "./rules";

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

  it("a saved rule round-trips through the form unchanged (required fields, horizon, outside-contract choice)", () => {
    const rule = gateRule({ tool: "issue_refund", decision: "two", requiredFields: ["title", "risk"], dateHorizonDays: 90, allowOutsideContract: "supervisor", note: "big refunds" });
    const back = gatePolicyFormSchema.parse({ baseVersion: 2, note: "n", rules: [toRuleForm(rule)] });
    expect(back.rules[0]).toEqual(rule);
  });
});
