import { describe, expect, it } from "vitest";
import { MAX_PLAN_STEPS } from "../plan/schema";
import { validatePlan } from "./pipeline";
import { codes, ctx, only, plan, step, validArgs } from "../../testing/validation-context";

const note = (id: string) => step(id, "add_ticket_note", validArgs.add_ticket_note);

describe("structure stage", () => {
  it("an empty plan is an error", () => {
    const r = validatePlan(plan(), ctx());
    expect(r.ok).toBe(false);
    expect(only(r, "empty_plan")).toMatchObject({ stage: "structure", severity: "error", path: "steps" });
  });

  it("duplicate step ids are errors on every repeat", () => {
    const r = validatePlan(plan(note("a"), note("b"), note("a"), note("a")), ctx());
    const dups = r.issues.filter((i) => i.code === "duplicate_step_id");
    expect(dups.map((i) => i.path)).toEqual(["steps.2.id", "steps.3.id"]);
    expect(dups[0].message).toBe('Steps 1 and 3 share the id "a"; every step needs its own id');
    expect(r.ok).toBe(false);
  });

  it("allows exactly MAX_PLAN_STEPS steps and refuses one more", () => {
    const steps = (n: number) => Array.from({ length: n }, (_, i) => note(`s${i}`));
    expect(validatePlan(plan(...steps(MAX_PLAN_STEPS)), ctx()).ok).toBe(true);
    const r = validatePlan(plan(...steps(MAX_PLAN_STEPS + 1)), ctx());
    expect(only(r, "too_many_steps").details).toEqual({ count: MAX_PLAN_STEPS + 1, max: MAX_PLAN_STEPS });
  });

  it("honours ctx.maxSteps", () => {
    expect(codes(validatePlan(plan(note("a"), note("b"), note("c")), ctx({ maxSteps: 2 })))).toEqual(["too_many_steps"]);
    expect(validatePlan(plan(note("a"), note("b")), ctx({ maxSteps: 2 })).ok).toBe(true);
  });

  it("runs even when steps fail shape", () => {
    const r = validatePlan(plan(step("a", "add_ticket_note", {}), step("a", "nope", {})), ctx());
    expect(codes(r)).toContain("duplicate_step_id");
  });
});
