/**
 * Semantic diff between two versions of a plan (DESIGN.md §6 Edit, §7 Semantic diff;
 * API.md `diff`). Pure TypeScript: no framework imports, no I/O. Server-side (the digest
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
 * - Arguments are compared with the same semantics as the RFC 8785 digest (DESIGN.md §4):
 *   key order never matters; an object property whose value is `undefined` is absent;
 *   `undefined` inside an array is `null`. Hence a step is "changed" exactly when its
 *   digest changed.
 */
import { z } from "zod";
import canonicalize from "canonicalize";
import { authorSchema, provenanceSchema, stepSchema, type Plan, type Step } from "../plan/schema";
import type { AccountSnapshot } from "../desk/snapshot";
import { formatMoney, type Money } from "../money";
import { digest } from "../plan/digest";
import { decideReapproval, REAPPROVAL_REASON_LABEL, REAPPROVAL_REASONS, type ConsentContext } from "./reapproval";

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

/** One segment of a field path: an object key or an array index (0-based). */
export const pathSegmentSchema = z.union([z.string(), z.number().int().min(0)]);
export type PathSegment = z.infer<typeof pathSegmentSchema>;

/**
 * One changed leaf of a step's arguments.
 * - `path`: display path starting at `args`, dotted for identifier keys and bracketed for
 *   indices and other keys, e.g. `args.window.from`, `args.items[2].sku`, `args["odd key"]`.
 * - `segments`: the same path as data, e.g. `["args", "items", 2, "sku"]` (machine use).
 * - `kind`: `"changed"` (value replaced), `"added"` (key/index present only in `after`),
 *   `"removed"` (present only in `before`).
 * - `before` / `after`: the JSON values; the absent side is an omitted property.
 * A key added or removed with an object/array value is reported once, at the key, with
 * the whole value; a money value (`{minor, currency}` on both sides) is one field at its key
 * with both Money values (`args.amount`, never `args.amount.minor`); a value whose JSON type changes (e.g. object → string) is one
 * `"changed"` field at that path. Arrays are compared index by index, so extra trailing
 * elements are `"added"` / `"removed"` fields `args.items[3]`.
 */
export const fieldChangeSchema = z.object({
  path: z.string(),
  segments: z.array(pathSegmentSchema),
  kind: z.enum(["added", "removed", "changed"]),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});
export type FieldChange = z.infer<typeof fieldChangeSchema>;

/**
 * A step present in both versions (same id and same tool) whose arguments changed, hence
 * whose digest changed. `position` is its 1-based position in `after`. `digestBefore` /
 * `digestAfter` are the lowercase hex SHA-256 digests of `{tool, args}` (DESIGN.md §4):
 * approvals bound to `digestBefore` are the ones an edit invalidates (DESIGN.md §6).
 */
export const changedStepSchema = z.object({
  stepId: z.string(),
  tool: z.string(),
  position: z.number().int().min(1),
  digestBefore: z.string(),
  digestAfter: z.string(),
  fields: z.array(fieldChangeSchema),
});
export type ChangedStep = z.infer<typeof changedStepSchema>;

/**
 * A common step whose order relative to the other common steps changed; 1-based positions.
 * The moves are the minimal set (reapproval.ts `keptInOrder`): a swap of two steps with others
 * between them is two moves, a reversal of three is two, an adjacent swap is one.
 */
export const movedStepSchema = z.object({
  stepId: z.string(),
  tool: z.string(),
  from: z.number().int().min(1),
  to: z.number().int().min(1),
});
export type MovedStep = z.infer<typeof movedStepSchema>;

/**
 * A note on an added or changed step (DESIGN.md §7; one rule set, issue #10): the VALIDATOR's
 * issues on that step — the same code, severity and message the card and the API show (e.g.
 * `cross_account_target`, `unknown_id`, `window_on_holiday`, `money_in_flight`) — plus one
 * informational note computed from our own account data, never from the plan:
 * `amount_of_balance` (info) an amount shown against its invoice's open balance. `path` is the
 * argument it concerns relative to the step (e.g. `args.invoiceId`), when there is one.
 * Diffs stored before issue #10 may carry the older desk-computed codes; they still parse.
 */
export const annotationSchema = z.object({
  stepId: z.string(),
  severity: z.enum(["info", "warning", "error"]),
  code: z.string(),
  path: z.string().optional(),
  message: z.string(),
});
export type Annotation = z.infer<typeof annotationSchema>;

/** Annotation codes: every validator issue code (lib/validation/codes.ts) and `amount_of_balance`. */
export type AnnotationCode = string;

/**
 * Provenance/author metadata of a common step that changed while its tool and arguments
 * did not (or did): the `after` values. Metadata never changes a digest, so these entries
 * are not changes, not touched and need no re-approval; they exist so the audit trail and
 * `applyDiff` can reproduce `after` exactly.
 */
export const metadataChangeSchema = z.object({
  stepId: z.string(),
  author: authorSchema,
  provenance: z.record(z.string(), provenanceSchema),
});
export type MetadataChange = z.infer<typeof metadataChangeSchema>;

/** One step that needs approval again and every reason (reapproval.ts `ReapprovalReason`). */
export const reapprovalEntrySchema = z.object({
  stepId: z.string(),
  position: z.number().int().min(1),
  reasons: z.array(z.enum(REAPPROVAL_REASONS)).min(1),
});
export type ReapprovalEntrySchema = z.infer<typeof reapprovalEntrySchema>;

/**
 * The semantic diff of two plan versions: API.md's `diff` plus extras.
 * - `added`: steps of `after` whose id is new, or whose id exists in `before` with another
 *   tool (a tool change is a new step, never a field change), in `after` order.
 * - `removed`: steps of `before` with no same-id-same-tool step in `after`, in `before` order.
 * - `changed`: common steps whose args changed (digest changed), in `after` order.
 * - `moved`: common steps whose order relative to the other common steps changed (the minimal
 *   set: those outside one longest common subsequence of the common ids, preferring to keep
 *   steps whose position did not change), in `after` order. Steps that merely shift because of
 *   an insertion or removal are not moved.
 * - `annotations`: from the desk snapshot, for added and changed steps, in `after` order.
 * - `touchedStepIds`: ids (in `after` order) of steps added, changed or moved — the edit-size
 *   measure (DESIGN.md §11). Removed steps are counted from `removed`.
 * - `reapprovalRequired`: the steps whose approval does not carry over — decided by
 *   `decideReapproval` (reapproval.ts), the same function the server uses to carry or
 *   invalidate approvals: added, then changed, then moved, then prerequisites changed, then
 *   (when approvals were passed) approved steps with a new unacknowledged warning; each group
 *   in `after` order, each step once.
 * - `reapproval`: the same steps with their position in `after` and every reason.
 * - `changeCount`: one per added, removed, changed and moved step (a step both changed and
 *   moved counts twice); `summary` has exactly one line per counted change, in `after` order
 *   ("step 4 issue_refund added", "step 2 reschedule_delivery: window.from 2026-04-02 →
 *   2026-04-06; …", "step 3 add_ticket_note moved from position 1 to 3"), then removals
 *   numbered by their position in `before` ("step 1 add_ticket_note removed"). Field paths in
 *   the summary drop `args.`; money reads "$1,489.00"; absent reads "(none)"; at most four
 *   fields per line, then "… and N more".
 * - `order`: the ids of `after.steps`, in order (lets `applyDiff` rebuild `after`).
 * - `metadataChanged`: provenance/author-only differences (not changes, see above).
 */
export const planDiffSchema = z.object({
  added: z.array(stepSchema),
  removed: z.array(stepSchema),
  changed: z.array(changedStepSchema),
  moved: z.array(movedStepSchema),
  annotations: z.array(annotationSchema),
  touchedStepIds: z.array(z.string()),
  reapprovalRequired: z.array(z.string()),
  reapproval: z.array(reapprovalEntrySchema).optional(),
  changeCount: z.number().int().min(0),
  summary: z.array(z.string()),
  order: z.array(z.string()),
  metadataChanged: z.array(metadataChangeSchema),
});
export type PlanDiff = z.infer<typeof planDiffSchema>;

/**
 * Error thrown by this module. `code`:
 * - `duplicate_step_id`: a plan holds the same step id twice, so alignment by id is undefined
 *   (the structure stage rejects such plans; DESIGN.md §1.2);
 * - `diff_does_not_apply`: `applyDiff` / `describeReapproval` got a diff that was not computed
 *   from this `before` / for this `after`.
 */
export class PlanDiffError extends Error {
  readonly code: "duplicate_step_id" | "diff_does_not_apply";
  readonly stepId?: string;
  constructor(code: PlanDiffError["code"], message: string, stepId?: string) {
    super(message);
    this.name = "PlanDiffError";
    this.code = code;
    this.stepId = stepId;
  }
}

// ---------------------------------------------------------------------------------------------
// diffPlans
// ---------------------------------------------------------------------------------------------

/**
 * Computes the semantic diff from `before` to `after` (DESIGN.md §7).
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
    if (digestBefore !== digestAfter) {
      const fields: FieldChange[] = [];
      walk(b.args, a.args, ["args"], fields);
      if (fields.length === 0) {
        // Defensive: digests differ in a way the walk cannot see (non-JSON values).
        fields.push(field(["args"], "changed", b.args, a.args));
      }
      changed.push({ stepId: a.id, tool: a.tool, position: i + 1, digestBefore, digestAfter, fields });
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
 * The re-approval sentence shown on the re-approval screen (DESIGN.md §7 reference case):
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
 * Edit size for supervisor telemetry (DESIGN.md §11): `touched` = touched (added, changed,
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
 * `changed[].fields` entry, applies `metadataChanged`, then orders by `diff.order`. The result
 * equals `after.steps` in tool, args (canonically), author and provenance. Inputs are not
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
    s!.args = applyFields(s!.args, c.fields, c.stepId);
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

// ---------------------------------------------------------------------------------------------
// Internals: leaf diff (semantics of RFC 8785 canonical JSON)
// ---------------------------------------------------------------------------------------------

/** Marker for "no value here" (absent key / index beyond the array's end). */
const ABSENT: unique symbol = Symbol("absent");
type Maybe = unknown | typeof ABSENT;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    typeof (v as { toJSON?: unknown }).toJSON !== "function"
  );
}

/** Property value as canonical JSON sees it: undefined / symbol / function = absent. */
function propValue(obj: Record<string, unknown>, key: string): Maybe {
  if (!Object.prototype.hasOwnProperty.call(obj, key)) return ABSENT;
  const v = obj[key];
  return v === undefined || typeof v === "symbol" || typeof v === "function" ? ABSENT : v;
}

/** Array element as canonical JSON sees it: undefined / symbol = null; beyond the end = absent. */
function elemValue(arr: unknown[], i: number): Maybe {
  if (i >= arr.length) return ABSENT;
  const v = arr[i];
  return v === undefined || typeof v === "symbol" ? null : v;
}

function canon(v: unknown): string | undefined {
  try {
    return canonicalize(v);
  } catch {
    return undefined;
  }
}

function leafEqual(b: unknown, a: unknown): boolean {
  if (b === a) return true;
  const cb = canon(b);
  return cb !== undefined && cb === canon(a);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Renders segments as a display path: `args.items[2].sku`, `args["odd key"]`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (IDENT.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function field(segments: PathSegment[], kind: FieldChange["kind"], before: Maybe, after: Maybe): FieldChange {
  const f: FieldChange = { path: formatPath(segments), segments: [...segments], kind };
  if (before !== ABSENT) f.before = clone(before);
  if (after !== ABSENT) f.after = clone(after);
  return f;
}

function walk(b: unknown, a: unknown, segs: PathSegment[], out: FieldChange[]): void {
  // Money is one value ({minor, currency}): a change is one field with both amounts, so people
  // read "$10.00 → $1,489.00", never "amount.minor 1000 → 148900" (issue 14).
  if (isMoneyLike(b) && isMoneyLike(a)) {
    if (!leafEqual(b, a)) out.push(field(segs, "changed", b, a));
    return;
  }
  if (isPlainObject(b) && isPlainObject(a)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.prototype.hasOwnProperty.call(a, k))];
    for (const k of keys) {
      const bv = propValue(b, k);
      const av = propValue(a, k);
      if (bv === ABSENT && av === ABSENT) continue;
      if (bv === ABSENT) out.push(field([...segs, k], "added", ABSENT, av));
      else if (av === ABSENT) out.push(field([...segs, k], "removed", bv, ABSENT));
      else walk(bv, av, [...segs, k], out);
    }
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    const len = Math.max(a.length, b.length);
    for (let i = 0; i < len; i++) {
      const bv = elemValue(b, i);
      const av = elemValue(a, i);
      if (bv === ABSENT) out.push(field([...segs, i], "added", ABSENT, av));
      else if (av === ABSENT) out.push(field([...segs, i], "removed", bv, ABSENT));
      else walk(bv, av, [...segs, i], out);
    }
    return;
  }
  if (!leafEqual(b, a)) out.push(field(segs, "changed", b, a));
}

/** Reads the value at `segs` (relative to a root) with canonical-JSON semantics. */
function getAt(root: unknown, segs: readonly PathSegment[]): Maybe {
  let cur: Maybe = root;
  for (const s of segs) {
    if (typeof s === "number") {
      if (!Array.isArray(cur)) return ABSENT;
      cur = elemValue(cur, s);
    } else {
      if (!isPlainObject(cur)) return ABSENT;
      cur = propValue(cur, s);
    }
    if (cur === ABSENT) return ABSENT;
  }
  return cur;
}

function applyFields(args: Record<string, unknown>, fields: FieldChange[], stepId: string): Record<string, unknown> {
  const fail = (msg: string): never => {
    throw new PlanDiffError("diff_does_not_apply", `step ${stepId}: ${msg}`, stepId);
  };
  const root: { args: unknown } = { args: clone(args) };
  // Verify every field against the untouched base first (field paths are disjoint).
  for (const f of fields) {
    if (f.segments[0] !== "args") fail(`field ${f.path} is not under args`);
    const cur = getAt(root, f.segments);
    const hasBefore = Object.prototype.hasOwnProperty.call(f, "before") && f.before !== undefined;
    const hasAfter = Object.prototype.hasOwnProperty.call(f, "after") && f.after !== undefined;
    if (f.kind === "added" ? hasBefore || !hasAfter : f.kind === "removed" ? !hasBefore || hasAfter : !hasBefore || !hasAfter) {
      fail(`field ${f.path} has kind ${f.kind} but inconsistent before/after`);
    }
    if (f.kind === "added" ? cur !== ABSENT : cur === ABSENT || !leafEqual(cur, f.before)) {
      fail(`field ${f.path} does not match the base plan`);
    }
  }
  for (const f of fields) {
    const parentSegs = f.segments.slice(0, -1);
    const last = f.segments[f.segments.length - 1];
    const parent = getAt(root, parentSegs);
    if (typeof last === "number") {
      if (!Array.isArray(parent)) return fail(`field ${f.path}: parent is not an array`);
      if (f.kind === "removed") {
        if (parent.length > last) parent.length = last; // removed indices are always trailing
      } else {
        parent[last] = clone(f.after);
      }
    } else {
      if (!isPlainObject(parent)) return fail(`field ${f.path}: parent is not an object`);
      if (f.kind === "removed") delete parent[last];
      else Object.defineProperty(parent, last, { value: clone(f.after), enumerable: true, writable: true, configurable: true });
    }
  }
  if (!isPlainObject(root.args)) return fail("args is not an object after applying the diff");
  return root.args;
}

function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

// ---------------------------------------------------------------------------------------------
// Internals: summary text
// ---------------------------------------------------------------------------------------------

function isMoneyLike(v: unknown): v is Money {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v).filter((k) => propValue(v, k) !== ABSENT);
  return (
    keys.length === 2 &&
    Number.isSafeInteger(v.minor) &&
    typeof v.currency === "string" &&
    /^[A-Z]{3}$/.test(v.currency)
  );
}

function money(m: Money): string {
  try {
    return formatMoney(m);
  } catch {
    return `${m.minor} ${m.currency} minor units`;
  }
}

const MAX_TEXT = 60;

/** Formats one argument value for a person: money as "$1,489.00", absent as "(none)". */
function formatValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (isMoneyLike(v)) return money(v);
  if (typeof v === "string") {
    if (/^[\w.:@#/+-]{1,40}$/.test(v)) return v;
    const s = v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT - 1)}…` : v;
    return JSON.stringify(s);
  }
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  const s = canon(v) ?? String(v);
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

const MAX_SUMMARY_FIELDS = 4;

/**
 * "step 2 reschedule_delivery: window.from 2026-04-02 → 2026-04-06; window.to …".
 * Paths drop the leading `args.`; money leaves (`amount.minor`, `amount.currency`) whose
 * parents are money on both sides collapse into one "amount $1,489.00 → $1,200.00" item.
 */
function describeChangedStep(c: ChangedStep, beforeArgs: unknown, afterArgs: unknown): string {
  const items: string[] = [];
  const seenMoney = new Set<string>();
  for (const f of c.fields) {
    const rel = f.segments.slice(1);
    const last = rel[rel.length - 1];
    if ((last === "minor" || last === "currency") && rel.length >= 1) {
      const parent = rel.slice(0, -1);
      const pb = getAt(beforeArgs, parent);
      const pa = getAt(afterArgs, parent);
      if (isMoneyLike(pb) && isMoneyLike(pa)) {
        const key = formatPath(parent);
        if (!seenMoney.has(key)) {
          seenMoney.add(key);
          items.push(`${key || "args"} ${money(pb)} → ${money(pa)}`);
        }
        continue;
      }
    }
    items.push(`${formatPath(rel) || "args"} ${formatValue(f.before)} → ${formatValue(f.after)}`);
  }
  const shown = items.slice(0, MAX_SUMMARY_FIELDS).join("; ");
  const more = items.length - MAX_SUMMARY_FIELDS;
  return `step ${c.position} ${c.tool}: ${shown}${more > 0 ? `; … and ${more} more` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Internals: annotations
// ---------------------------------------------------------------------------------------------

/** "steps.3.args.window.from" → "args.window.from"; a plan-level path → undefined. */
function stepRelativePath(path: string | undefined): string | undefined {
  const m = path ? /^steps\.\d+\.(.+)$/.exec(path) : null;
  return m ? m[1] : undefined;
}

/** Own-property lookup (ids like "constructor" must not resolve to prototype members). */
function own<T>(table: Record<string, T> | undefined, id: string): T | undefined {
  return table && Object.prototype.hasOwnProperty.call(table, id) ? table[id] : undefined;
}

/**
 * The informational note of an added or changed step with a money `amount` on an open invoice
 * in the same currency, within its balance: "amount $1,489.00 of open balance $2,120.00". Every
 * check of the same facts (unknown invoice, not open, other currency, over the balance or what
 * is available) is the validator's (lib/validation/argument-bounds.ts), shown as its issue.
 */
function balanceNotes(step: Step, desk: AccountSnapshot): Annotation[] {
  const args = step.args ?? {};
  const id = propValue(args, "invoiceId");
  const amount = propValue(args, "amount");
  if (typeof id !== "string" || !isMoneyLike(amount)) return [];
  const inv = own(desk.invoices, id);
  if (!inv || inv.status !== "open" || amount.currency !== inv.openBalance.currency || amount.minor > inv.openBalance.minor) return [];
  return [{ stepId: step.id, severity: "info", code: "amount_of_balance", path: "args.amount", message: `amount ${money(amount)} of open balance ${money(inv.openBalance)}` }];
}
