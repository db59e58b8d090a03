/**
 * Semantic diff between two versions of a plan (docs/design.md §6 Edit, §7 Semantic diff;
 * docs/api.md `diff`). Pure TypeScript: no framework imports, no I/O. Server-side (the digest
 * uses `node:crypto`); client code should import only types from here.
 *
 * Conventions used throughout this module:
 * - Positions are 1-based ("step 2" is `steps[1]`).
 * - Money is integer minor units plus currency (`{minor, currency}`), formatted for people
 *   with `formatMoney` only in `summary` and `annotations` strings.
 * - A value that is absent on one side of a field change is an *omitted property*
 *   (`before` or `after` is not present on the object, so it is also absent in JSON); it is
 *   never `null`, because `null` is a legitimate JSON argument value. `kind` says which side
 *   is absent: `"added"` (no `before`), `"removed"` (no `after`), `"changed"` (both present).
 * - Arguments are compared with the same semantics as the RFC 8785 digest (docs/design.md §4):
 *   key order never matters; an object property whose value is `undefined` is absent;
 *   `undefined` inside an array is `null`. Hence a step is "changed" exactly when its
 *   digest changed.
 */
import { STEP_REASON_KEYS, type Plan, type Step } from "../plan/schema";
import { reasonsOf } from "../plan/reasons";
import type { AccountSnapshot } from "../desk/snapshot";
import { digest } from "../plan/digest";
import { decideReapproval, REAPPROVAL_REASON_LABEL, type ConsentContext } from "./reapproval";
import { PlanDiffError, type Annotation, type ChangedStep, type FieldChange, type MetadataChange, type MovedStep, type PlanDiff } from "./diff-schema";
import { applyFields, canon, clone, field, walk } from "./leaf-diff";
import { balanceNotes, describeChangedStep, stepRelativePath } from "./diff-text";

export * from "./diff-schema";
export { formatPath } from "./leaf-diff";

// ---------------------------------------------------------------------------------------------
// diffPlans
// ---------------------------------------------------------------------------------------------

/**
 * Computes the semantic diff from `before` to `after` (docs/design.md §7).
 *
 * Steps are aligned by id. Same id + same tool = common step; its args are compared leaf by
 * leaf at any depth (`changed[].fields`). Same id + different tool = `removed` (old step) and
 * `added` (new step). Provenance and author are metadata: they do not change the digest, so a
 * difference there alone is not a change (see `metadataChanged`). Annotations of the added
 * and changed steps are `consent.issues` (the validator's issues of `after`) on those steps, plus
 * the `amount_of_balance` note when `desk` is given.
 *
 * `consent` (optional): the active approvals of `before` and the issues of `after`, so that
 * `reapprovalRequired` also names approved steps that gained an unacknowledged warning — pass
 * what the server passes to carry approvals and the two agree exactly.
 *
 * Pure; returns fresh objects (no aliasing of the inputs).
 * @throws PlanDiffError `duplicate_step_id` if either plan repeats a step id.
 * @throws Error if args are not canonicalisable JSON (NaN, Infinity, cycles).
 */
export function diffPlans(before: Plan, after: Plan, desk?: AccountSnapshot, consent?: ConsentContext): PlanDiff {
  const beforeById = indexSteps(before.steps, "before");
  const afterById = indexSteps(after.steps, "after");

  const isCommon = (id: string) => {
    const b = beforeById.get(id);
    const a = afterById.get(id);
    return !!b && !!a && b.step.tool === a.step.tool;
  };

  const removed: Step[] = before.steps.filter((s) => !isCommon(s.id)).map(clone);
  const added: Step[] = [];
  const changed: ChangedStep[] = [];
  const metadataChanged: MetadataChange[] = [];

  after.steps.forEach((a, i) => {
    if (!isCommon(a.id)) {
      added.push(clone(a));
      return;
    }
    const b = beforeById.get(a.id)!.step;
    const digestBefore = digest(b);
    const digestAfter = digest(a);
    // A step's reasons are part of the plan a person reviews and the executor gets (the stop
    // condition travels with the claim), though not of the digest: a change there is a change.
    const reasonFields: FieldChange[] = [];
    walk(reasonsOf(b), reasonsOf(a), [], reasonFields);
    if (digestBefore !== digestAfter || reasonFields.length > 0) {
      const fields: FieldChange[] = [];
      walk(b.args, a.args, ["args"], fields);
      if (fields.length === 0 && digestBefore !== digestAfter) {
        // Defensive: digests differ in a way the walk cannot see (non-JSON values).
        fields.push(field(["args"], "changed", b.args, a.args));
      }
      changed.push({ stepId: a.id, tool: a.tool, position: i + 1, digestBefore, digestAfter, fields: [...fields, ...reasonFields] });
    }
    if (canon(b.author) !== canon(a.author) || canon(b.provenance ?? {}) !== canon(a.provenance ?? {})) {
      metadataChanged.push({ stepId: a.id, author: clone(a.author), provenance: clone(a.provenance ?? {}) });
    }
  });

  const decision = decideReapproval(before, after, consent);
  const moved: MovedStep[] = decision.moved;

  const addedSet = new Set(added.map((s) => s.id));
  const changedById = new Map(changed.map((c) => [c.stepId, c]));
  const movedById = new Map(moved.map((m) => [m.stepId, m]));

  const touchedStepIds = after.steps
    .map((s) => s.id)
    .filter((id) => addedSet.has(id) || changedById.has(id) || movedById.has(id));
  const reapprovalRequired = decision.required.map((r) => r.stepId);

  const summary: string[] = [];
  after.steps.forEach((a, i) => {
    const pos = i + 1;
    if (addedSet.has(a.id)) summary.push(`step ${pos} ${a.tool} added`);
    const c = changedById.get(a.id);
    if (c) summary.push(describeChangedStep(c, beforeById.get(a.id)!.step.args, a.args));
    const m = movedById.get(a.id);
    if (m) summary.push(`step ${m.to} ${m.tool} moved from position ${m.from} to ${m.to}`);
  });
  for (const r of removed) summary.push(`step ${beforeById.get(r.id)!.pos} ${r.tool} removed`);

  const annotations: Annotation[] = [];
  for (const a of after.steps) {
    if (!addedSet.has(a.id) && !changedById.has(a.id)) continue;
    for (const i of consent?.issues ?? []) {
      if (i.stepId !== a.id || i.message === undefined || i.severity === undefined) continue;
      annotations.push({ stepId: a.id, severity: i.severity, code: i.code, ...(stepRelativePath(i.path) ? { path: stepRelativePath(i.path) } : {}), message: i.message });
    }
    if (desk) annotations.push(...balanceNotes(a, desk));
  }

  return {
    added,
    removed,
    changed,
    moved,
    annotations,
    touchedStepIds,
    reapprovalRequired,
    reapproval: decision.required,
    changeCount: added.length + removed.length + changed.length + moved.length,
    summary,
    order: after.steps.map((s) => s.id),
    metadataChanged,
  };
}

// ---------------------------------------------------------------------------------------------
// describeReapproval, editSize
// ---------------------------------------------------------------------------------------------

/**
 * The re-approval sentence shown on the re-approval screen (docs/design.md §7 reference case):
 * `"re-approval required for step 4 (added), step 2 (changed)"` — one entry per step of
 * `diff.reapprovalRequired` in its order (added, changed, moved, prerequisites changed, new
 * warning), each with its 1-based position in `after` and its first reason.
 * Returns `"no re-approval required"` when `diff.reapprovalRequired` is empty.
 * @throws PlanDiffError `diff_does_not_apply` if a step to re-approve is not in `after`.
 */
export function describeReapproval(diff: PlanDiff, after: Plan): string {
  if (diff.reapprovalRequired.length === 0) return "no re-approval required";
  const positions = new Map(after.steps.map((s, i) => [s.id, i + 1]));
  const addedIds = new Set(diff.added.map((s) => s.id));
  const reasons = new Map((diff.reapproval ?? []).map((r) => [r.stepId, r.reasons[0]]));
  const parts = diff.reapprovalRequired.map((id) => {
    const pos = positions.get(id);
    if (pos === undefined) {
      throw new PlanDiffError("diff_does_not_apply", `step ${id} is not in the given plan`, id);
    }
    const reason = reasons.get(id) ?? (addedIds.has(id) ? "added" : "changed");
    return `step ${pos} (${REAPPROVAL_REASON_LABEL[reason]})`;
  });
  return `re-approval required for ${parts.join(", ")}`;
}

/**
 * Edit size for supervisor telemetry (docs/design.md §11): `touched` = touched (added, changed,
 * moved) + removed steps; `total` = steps in `after` + removed steps (every step identity
 * that appears in either version); `fraction` = touched / total, 0 for two empty plans.
 * A `fraction` above 0.5 is the "more than half touched" drift signal.
 */
export function editSize(diff: PlanDiff): { touched: number; total: number; fraction: number } {
  const touched = diff.touchedStepIds.length + diff.removed.length;
  const total = diff.order.length + diff.removed.length;
  return { touched, total, fraction: total === 0 ? 0 : touched / total };
}

// ---------------------------------------------------------------------------------------------
// applyDiff
// ---------------------------------------------------------------------------------------------

/**
 * Rebuilds `after.steps` from `before` and a diff computed by `diffPlans(before, after)`
 * (also after a JSON round trip of the diff). Removes `removed`, inserts `added`, applies every
 * `changed[].fields` entry (args, and reasons: fields not under `args`), applies `metadataChanged`,
 * then orders by `diff.order`. The result equals `after.steps` in tool, args (canonically), reasons,
 * author and provenance. Inputs are not
 * mutated. Used by property tests and to double-check a stored diff.
 * @throws PlanDiffError `diff_does_not_apply` if the diff does not fit `before` (a removed or
 *   changed step is missing, a field's `before` value differs, `order` is inconsistent).
 * @throws PlanDiffError `duplicate_step_id` if `before` repeats a step id.
 */
export function applyDiff(before: Plan, diff: PlanDiff): Step[] {
  const byId = indexSteps(before.steps, "before");
  const fail = (msg: string, id?: string): never => {
    throw new PlanDiffError("diff_does_not_apply", msg, id);
  };
  const result = new Map<string, Step>();
  const removedIds = new Set<string>();
  for (const r of diff.removed) {
    const s = byId.get(r.id);
    if (!s || s.step.tool !== r.tool) fail(`removed step ${r.id} (${r.tool}) is not in the base plan`, r.id);
    removedIds.add(r.id);
  }
  for (const s of before.steps) if (!removedIds.has(s.id)) result.set(s.id, clone(s));
  for (const a of diff.added) {
    if (result.has(a.id)) fail(`added step ${a.id} already exists in the base plan`, a.id);
    result.set(a.id, clone(a));
  }
  for (const c of diff.changed) {
    const s = result.get(c.stepId);
    if (!s || s.tool !== c.tool || diff.added.some((a) => a.id === c.stepId)) {
      fail(`changed step ${c.stepId} (${c.tool}) is not a common step of the base plan`, c.stepId);
    }
    s!.args = applyFields(s!.args, c.fields.filter((f) => f.segments[0] === "args"), c.stepId);
    const reasonFields = c.fields.filter((f) => f.segments[0] !== "args");
    if (reasonFields.length > 0) {
      // The reasons are applied like args: the same checks, on an object of the step's reasons.
      const reasons = applyFields(reasonsOf(s!) as Record<string, unknown>, reasonFields.map((f) => ({ ...f, segments: ["args", ...f.segments] })), c.stepId);
      for (const k of STEP_REASON_KEYS) delete (s as Record<string, unknown>)[k];
      Object.assign(s!, reasons);
    }
  }
  for (const m of diff.metadataChanged ?? []) {
    const s = result.get(m.stepId);
    if (!s) fail(`metadata change for unknown step ${m.stepId}`, m.stepId);
    s!.author = clone(m.author);
    s!.provenance = clone(m.provenance);
  }
  if (new Set(diff.order).size !== diff.order.length || diff.order.length !== result.size) {
    fail("diff.order does not list exactly the steps of the edited plan");
  }
  return diff.order.map((id) => result.get(id) ?? fail(`step ${id} in diff.order is unknown`, id));
}

// ---------------------------------------------------------------------------------------------
// Internals: alignment
// ---------------------------------------------------------------------------------------------

function indexSteps(steps: Step[], side: string): Map<string, { step: Step; pos: number }> {
  const m = new Map<string, { step: Step; pos: number }>();
  steps.forEach((step, i) => {
    if (m.has(step.id)) {
      throw new PlanDiffError("duplicate_step_id", `step id ${step.id} appears twice in the ${side} plan`, step.id);
    }
    m.set(step.id, { step, pos: i + 1 });
  });
  return m;
}
