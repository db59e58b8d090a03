/** The shapes of a plan diff (docs/api.md `diff`), as zod schemas with their types, and its typed error. See ./plan-diff.ts. */
import { z } from "zod";
import { authorSchema, provenanceSchema, stepSchema } from "../plan/schema";
import { REAPPROVAL_REASONS } from "./reapproval";

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
 * A step present in both versions (same id and same tool) whose arguments changed (hence whose
 * digest changed) or whose reasons changed (title, rationale, evidence, risk, stop condition:
 * fields whose `segments` start with the reason's key, not `args`; the digest stays the same).
 * `position` is its 1-based position in `after`. `digestBefore` / `digestAfter` are the lowercase
 * hex SHA-256 digests of `{tool, args}` (docs/design.md §4): approvals bound to `digestBefore` are
 * the ones an edit invalidates (docs/design.md §6) — a reasons-only change keeps them.
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
 * A note on an added or changed step (docs/design.md §7; one rule set): the VALIDATOR's
 * issues on that step — the same code, severity and message the card and the API show (e.g.
 * `cross_account_target`, `unknown_id`, `window_on_holiday`, `money_in_flight`) — plus one
 * informational note computed from our own account data, never from the plan:
 * `amount_of_balance` (info) an amount shown against its invoice's open balance. `path` is the
 * argument it concerns relative to the step (e.g. `args.invoiceId`), when there is one.
 * Diffs stored before may carry the older desk-computed codes; they still parse.
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
 * The semantic diff of two plan versions: docs/api.md's `diff` plus extras.
 * - `added`: steps of `after` whose id is new, or whose id exists in `before` with another
 *   tool (a tool change is a new step, never a field change), in `after` order.
 * - `removed`: steps of `before` with no same-id-same-tool step in `after`, in `before` order.
 * - `changed`: common steps whose args changed (digest changed) or whose reasons changed, in `after` order.
 * - `moved`: common steps whose order relative to the other common steps changed (the minimal
 *   set: those outside one longest common subsequence of the common ids, preferring to keep
 *   steps whose position did not change), in `after` order. Steps that merely shift because of
 *   an insertion or removal are not moved.
 * - `annotations`: from the desk snapshot, for added and changed steps, in `after` order.
 * - `touchedStepIds`: ids (in `after` order) of steps added, changed or moved — the edit-size
 *   measure (docs/design.md §11). Removed steps are counted from `removed`.
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
 *   (the structure stage rejects such plans; docs/design.md §1.2);
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
