/**
 * The approval state machine (pure; no I/O), the counterpart of the run's (lib/lifecycle/run-state.ts):
 * every state an approval record can be in, and every event that changes it, with its trigger.
 * The server's approval lifecycle (lib/server/lifecycle/approval-lifecycle.ts) applies an event
 * as ONE conditional update `WHERE state IN (from)`, so this table is the rule, and a state
 * change not produced by one of these events never happens.
 *
 * An approval is one person's (or the gate policy's) consent to one step's digest at one plan
 * version (docs/design.md, "Approval"). Source: docs/design.md, "Approval", "Edit", "Claim".
 */

/** Approval states, in life order. */
export const APPROVAL_STATES = ["active", "claimed", "consumed", "superseded", "invalidated", "expired"] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** One event of an approval's life: the states it may start from (`null`: it creates the record), where it leads, why. */
export interface ApprovalEventRule {
  from: readonly (ApprovalState | null)[];
  to: ApprovalState;
  trigger: string;
}

/** Every event of an approval's life. */
export const APPROVAL_EVENTS = {
  give: { from: [null], to: "active", trigger: "A person approved the step's digest within their grant, or the gate policy approved it alone, or an approval was carried to a new plan version." },
  carry: { from: ["active"], to: "superseded", trigger: "A new plan version left the step as it was: the consent moved to a new record bound to that version." },
  invalidate: {
    from: ["active"],
    to: "invalidated",
    trigger: "The step changed or was removed by an edit, or the run was rejected, stopped, or replaced by a newer plan: the consent no longer describes what would run.",
  },
  expire: { from: ["active"], to: "expired", trigger: "The run's deadline passed before the step was claimed." },
  claim: { from: ["active"], to: "claimed", trigger: "The executor claimed the step right before its write; every approval of its full set is taken in one statement." },
  consume: { from: ["claimed"], to: "consumed", trigger: "The executor reported the write succeeded or failed (or a supervisor reconciled it): the consent was used once." },
} as const satisfies Record<string, ApprovalEventRule>;

export type ApprovalEvent = keyof typeof APPROVAL_EVENTS;

/** The states `event` may start from (never `null`: creation is not a transition of an existing record). */
export function approvalFromStates(event: ApprovalEvent): ApprovalState[] {
  return (APPROVAL_EVENTS[event].from as readonly (ApprovalState | null)[]).filter((s): s is ApprovalState => s !== null);
}

/** The state `event` leads to. */
export function approvalToState(event: ApprovalEvent): ApprovalState {
  return APPROVAL_EVENTS[event].to;
}
