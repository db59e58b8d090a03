import { editSize, type PlanDiff } from "../../diff/plan-diff";

/** What a run row keeps of its edits: every step id any edit touched, and every step id seen. */
export interface EditTouched {
  touched: string[];
  seen: string[];
}

/**
 * Folds one more edit's diff into a run's edit telemetry (docs/design.md §11, lib/audit/insights.ts
 * definitions): the union of touched ids (added, changed, moved, removed) and of every id seen
 * (after-order and removed); `fraction` = touched / seen is the run's plan edit size, whose
 * rise above one half signals agent drift. Also this edit's own size. Pure.
 */
export function foldEdit(previous: unknown, diff: PlanDiff): { runTouched: EditTouched; runFraction: number; edit: { touchedCount: number; sizeFraction: number } } {
  const prev = (previous ?? {}) as Partial<EditTouched>;
  const touched = new Set(Array.isArray(prev.touched) ? prev.touched : []);
  const seen = new Set(Array.isArray(prev.seen) ? prev.seen : []);
  for (const id of diff.order) seen.add(id);
  for (const s of diff.removed) {
    seen.add(s.id);
    touched.add(s.id);
  }
  for (const id of diff.touchedStepIds) touched.add(id);
  const size = editSize(diff);
  return {
    runTouched: { touched: [...touched], seen: [...seen] },
    runFraction: seen.size === 0 ? 0 : touched.size / seen.size,
    edit: { touchedCount: size.touched, sizeFraction: size.fraction },
  };
}
