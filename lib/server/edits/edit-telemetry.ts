import { nanoid } from "nanoid";
import { editSize, type PlanDiff } from "../../diff/plan-diff";
import { editPatterns, patternHash, type InsightDiff } from "../../audit/insights";
import type { Tx } from "../db/transaction";
import { Prisma } from "../../generated/prisma/client";
import { insertRows } from "../db/insert-rows";

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

/**
 * A run's edit telemetry refolded from the edits it keeps (oldest first), e.g. after a discard
 * left some out: `{editCount, editTouched, editFraction}` as the run row stores them (no edit
 * left: 0, null, null). Pure.
 */
export function refoldEdits(diffs: readonly PlanDiff[]): { editCount: number; editTouched: EditTouched | null; editFraction: number | null } {
  if (diffs.length === 0) return { editCount: 0, editTouched: null, editFraction: null };
  let touched: EditTouched | null = null;
  let fraction = 0;
  for (const d of diffs) {
    const f = foldEdit(touched, d);
    touched = f.runTouched;
    fraction = f.runFraction;
  }
  return { editCount: diffs.length, editTouched: touched, editFraction: fraction };
}

/**
 * Writes one `plan_edit_pattern` row per pattern the edit shows, in the edit's transaction, so
 * "how often does this edit still happen since the rule" is an indexed count (docs/design.md
 * "Did the edit help?"). Bounded by the diff's size (at most a few rows per changed field).
 */
export async function writeEditPatterns(tx: Tx, edit: { id: string; runId: string; desk: string; createdAt: Date }, diff: InsightDiff): Promise<void> {
  const keys = [...editPatterns(diff, edit.createdAt).keys()];
  if (keys.length === 0) return;
  const rows = keys.map((k) => ({ id: `pep_${nanoid(14)}`, editId: edit.id, runId: edit.runId, desk: edit.desk, keyHash: patternHash(k), createdAt: edit.createdAt }));
  await insertRows(tx, "plan_edit_pattern", Object.values(Prisma.PlanEditPatternScalarFieldEnum), rows);
}
