/**
 * The reasons a step needs approval again after an edit, and their words for people. No imports,
 * so client components can use them (lib/diff/reapproval.ts decides; it is server-side).
 */

/**
 * Why a step of the edited plan needs (re-)approval, in precedence order:
 * - `added`: its id is new, or the id now names another tool (a new step);
 * - `changed`: same id and tool, different digest (arguments changed);
 * - `moved`: its order relative to the other common steps changed (reapproval.ts `keptInOrder`);
 * - `prerequisites_changed`: its `dependsOn` list changed;
 * - `unacknowledged_warning`: it was approved, and the edited plan raises a warning needing
 *   acknowledgement on it that its approver did not acknowledge (only computed when the
 *   caller passes the approvals, see `ConsentContext`);
 * - `gate_changed`: only the gate policy approved it (an auto-gated step), and under the policy
 *   that gates the edited plan it needs a person (a stricter rule applies to every new
 *   plan version; a person's consent is never created by carrying the policy's).
 */
export type ReapprovalReason = (typeof REAPPROVAL_REASONS)[number];

/** Precedence of reasons; also the order of groups in `reapprovalRequired`. */
export const REAPPROVAL_REASONS = ["added", "changed", "moved", "prerequisites_changed", "unacknowledged_warning", "gate_changed"] as const;

/** People's words for a reason, as the re-approval line shows it ("step 2 (moved)"). */
export const REAPPROVAL_REASON_LABEL: Record<ReapprovalReason, string> = {
  added: "added",
  changed: "changed",
  moved: "moved",
  prerequisites_changed: "prerequisites changed",
  unacknowledged_warning: "new warning",
  gate_changed: "now needs a person's approval",
};
