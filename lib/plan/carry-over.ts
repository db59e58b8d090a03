import { stripMoneyInput } from "../money/money-input";
import { canonicalJson } from "./canonical-json";
import type { StepReasons } from "./schema";
import { STEP_REASON_KEYS } from "./step-reason-keys";

/*
 * "Start over from version N" after a stale-edit refusal: which of the values a person typed
 * into the edit form (based on an older plan version) still apply to the newer version someone
 * else saved first. Pure: no framework, no database.
 */

/**
 * A plan step as this module reads it: the form's steps and the stored steps both fit. Its
 * reasons (title, rationale, evidence, risk, stop condition) and `titleAuto` (the form's "title
 * still derived") are optional.
 */
export interface CarryStep extends StepReasons {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  titleAuto?: boolean;
}

/** One argument the person changed whose typed value is in the new form. */
export interface KeptChange {
  stepId: string;
  tool: string;
  arg: string;
  /** True when the newer version also changed this argument (the person's value replaces theirs). */
  overridesNewer: boolean;
}

/** A change of the person's that no longer applies to the newer version, said in the form instead of dropped. */
export type LostChange =
  /** The step was removed in the newer version; `args` are the person's changed arguments (name → typed value). */
  | { kind: "step_removed"; stepId: string; tool: string; args: Record<string, unknown> }
  /** The newer version's step has another tool, so the argument the person typed no longer applies. */
  | { kind: "arg_gone"; stepId: string; tool: string; arg: string; value: unknown }
  /** The person removed this step; the newer version still has it, so it stays until they remove it again. */
  | { kind: "removal_not_applied"; stepId: string; tool: string };

/** What {@link carryOverEdits} found: the steps to start the form with, and what was kept or not. */
export interface CarryOver {
  /** The newer version's steps with the person's typed values put back, then the steps they added. */
  steps: CarryStep[];
  kept: KeptChange[];
  /** Ids of steps the person added (not in the version they edited), kept at the end of the plan. */
  added: string[];
  lost: LostChange[];
}

/**
 * True when two argument values are the same stored value: a money field's typed text does not
 * count, and an argument absent from a step is the same as one left empty.
 */
function sameValue(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => {
    if (v === undefined || v === "") v = null;
    try {
      return canonicalJson(stripMoneyInput({ v }).v ?? null);
    } catch {
      return null; // e.g. NaN from a malformed amount: never equal to anything
    }
  };
  const na = norm(a);
  return na !== null && na === norm(b);
}

/**
 * Carries the person's edit of plan version `base` (their form's steps, `mine`) over to the
 * newer version `newer`. An argument counts as the person's change when its value in `mine`
 * differs from `base`'s for the same step id (and the same tool). Such a value is kept when the
 * newer version still has that step with that tool — also when the newer version changed the
 * same argument (the person's typed value wins and `overridesNewer` says so). Steps the person
 * added are appended. Changes to a step the newer version removed or gave another tool, and
 * removals of steps it still has, are listed in `lost`, never silently dropped.
 * Steps and arguments the person did not change come from `newer` as they are.
 */
export function carryOverEdits(base: readonly CarryStep[], mine: readonly CarryStep[], newer: readonly CarryStep[]): CarryOver {
  const baseById = new Map(base.map((s) => [s.id, s]));
  const newerById = new Map(newer.map((s) => [s.id, s]));
  const steps: CarryStep[] = newer.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args } }));
  const stepOut = new Map(steps.map((s) => [s.id, s]));
  const kept: KeptChange[] = [];
  const lost: LostChange[] = [];
  const added: string[] = [];

  for (const m of mine) {
    const b = baseById.get(m.id);
    if (!b) {
      // a step the person added: it conflicts with nothing
      if (!newerById.has(m.id)) {
        steps.push({ ...m, args: { ...m.args } });
        added.push(m.id);
      }
      continue;
    }
    const changed = b.tool === m.tool ? Object.keys(m.args).filter((k) => !sameValue(m.args[k], b.args[k])) : Object.keys(m.args);
    const n = newerById.get(m.id);
    // the reasons the person typed for a step the newer version still has with its tool go with it
    const out0 = stepOut.get(m.id);
    if (out0 && n && n.tool === m.tool) {
      for (const k of STEP_REASON_KEYS) if (!sameValue(m[k], b[k])) (out0 as unknown as Record<string, unknown>)[k] = m[k];
    }
    if (changed.length === 0) continue;
    if (!n) {
      lost.push({ kind: "step_removed", stepId: m.id, tool: m.tool, args: Object.fromEntries(changed.map((k) => [k, m.args[k]])) });
      continue;
    }
    const out = stepOut.get(m.id)!;
    for (const arg of changed) {
      if (n.tool !== m.tool) {
        lost.push({ kind: "arg_gone", stepId: m.id, tool: m.tool, arg, value: m.args[arg] });
        continue;
      }
      out.args[arg] = m.args[arg];
      kept.push({ stepId: m.id, tool: m.tool, arg, overridesNewer: !sameValue(n.args[arg], b.args[arg]) });
    }
  }
  const mineIds = new Set(mine.map((s) => s.id));
  for (const b of base) {
    const n = newerById.get(b.id);
    if (!mineIds.has(b.id) && n) lost.push({ kind: "removal_not_applied", stepId: b.id, tool: n.tool });
  }
  return { steps, kept, added, lost };
}
