/**
 * The edit summary a second reviewer reads at the top of the run page (docs/design.md §7
 * Semantic diff): every edit made since the agent's plan — who saved it, when, and what it did to
 * each step (added, removed, moved, arguments or reasons changed before → after). Pure: no
 * framework imports, no I/O. Computing it uses `diffPlans` (server-side, node:crypto); client code
 * imports only the types and the schema from here.
 */
import { z } from "zod";
import type { Step } from "../plan/schema";
import { fieldChangeSchema } from "./diff-schema";
import { diffPlans } from "./plan-diff";

/** What an edit did to one step; a step can be both moved and changed. */
export const EDIT_STEP_CHANGES = ["added", "removed", "moved", "changed"] as const;

/**
 * One step an edit touched. `position` is its 1-based position after the edit (null for a removed
 * step); `from` its position before the edit (null for an added step). `fields` are the changed
 * arguments and reasons of a changed step (the diff's field changes, money in minor units), empty
 * otherwise.
 */
export const editStepSummarySchema = z.object({
  stepId: z.string(),
  tool: z.string(),
  position: z.number().int().min(1).nullable(),
  from: z.number().int().min(1).nullable(),
  changes: z.array(z.enum(EDIT_STEP_CHANGES)).min(1),
  fields: z.array(fieldChangeSchema),
});
/** One step an edit touched (see `editStepSummarySchema`). */
export type EditStepSummary = z.infer<typeof editStepSummarySchema>;

/**
 * One person's edit: plan version `fromVersion` → `version`, saved by user `editorId` at `at`
 * (ISO-8601), its touched steps in the order of the edited plan, removed steps last. An edit that
 * changed nothing a step carries (no touched step) has an empty `steps`.
 */
export const editSummarySchema = z.object({
  version: z.number().int().min(1),
  fromVersion: z.number().int().min(1),
  editorId: z.string(),
  at: z.string(),
  steps: z.array(editStepSummarySchema),
});
/** One person's edit (see `editSummarySchema`). */
export type EditSummary = z.infer<typeof editSummarySchema>;

/** One stored plan version, as the summary needs it: `createdById` null is the agent's. */
export interface PlanVersionInput {
  version: number;
  createdById: string | null;
  createdAt: string;
  steps: Step[];
}

/**
 * Every edit since the agent's plan, oldest first: each version a person saved after the agent's
 * last version, diffed against the version before it (so a discard that restored an earlier plan
 * reads as the edit that undid the changes). Versions may come in any order; an empty list when
 * no person changed the plan, or when the agent's plan is the latest version.
 */
export function summariseEdits(versions: readonly PlanVersionInput[]): EditSummary[] {
  const sorted = [...versions].sort((a, b) => a.version - b.version);
  let agentIndex = -1;
  sorted.forEach((v, i) => {
    if (v.createdById === null) agentIndex = i;
  });
  if (agentIndex < 0) return [];
  const out: EditSummary[] = [];
  for (let i = agentIndex + 1; i < sorted.length; i++) {
    const before = sorted[i - 1];
    const after = sorted[i];
    const diff = diffPlans({ version: before.version, steps: before.steps }, { version: after.version, steps: after.steps });
    const beforePos = new Map(before.steps.map((s, n) => [s.id, n + 1]));
    const added = new Set(diff.added.map((s) => s.id));
    const changed = new Map(diff.changed.map((c) => [c.stepId, c]));
    const moved = new Map(diff.moved.map((m) => [m.stepId, m]));
    const steps: EditStepSummary[] = [];
    after.steps.forEach((s, n) => {
      const changes: EditStepSummary["changes"] = [];
      if (added.has(s.id)) changes.push("added");
      if (moved.has(s.id)) changes.push("moved");
      if (changed.has(s.id)) changes.push("changed");
      if (changes.length === 0) return;
      steps.push({
        stepId: s.id,
        tool: s.tool,
        position: n + 1,
        from: added.has(s.id) ? null : (beforePos.get(s.id) ?? null),
        changes,
        fields: changed.get(s.id)?.fields ?? [],
      });
    });
    for (const r of diff.removed) {
      steps.push({ stepId: r.id, tool: r.tool, position: null, from: beforePos.get(r.id) ?? null, changes: ["removed"], fields: [] });
    }
    out.push({ version: after.version, fromVersion: before.version, editorId: after.createdById ?? "", at: after.createdAt, steps });
  }
  return out;
}
