/**
 * What the reconciliation list (`/reconciliation`) says about a step that waits for a supervisor
 * (docs/design.md §9: an outcome that is unknown, missing or reported too late is never a silent
 * completion). Pure and client-safe.
 */

/** The parts of a reconciliation item (lib/server/claims/execution-view.ts `ReconciliationItem`) the words come from. */
export interface ReconciliationReasonFacts {
  reason: "unknown_outcome" | "no_report" | "flagged_report";
  /** What the executor reported (`claimed` until it reports). */
  status: string;
  /** Why a recorded report still needs a person, e.g. `reported_after_stopped`. */
  flag: string | null;
}

/** Why a report came too late, from its flag: "after the run stopped", "after the claim's lease lapsed"… */
function lateBecause(flag: string): string | null {
  if (flag === "reported_after_lease_expired") return "after the claim's lease lapsed";
  if (flag === "reported_after_approval_withdrawn") return "after its approval was withdrawn";
  const m = /^reported_after_(.+)$/.exec(flag);
  if (!m) return null;
  const status = m[1];
  const words: Record<string, string> = {
    stopped: "after the run stopped",
    expired: "after the run expired",
    failed: "after the run failed",
    completed: "after the run completed",
    rejected: "after the run was rejected",
    superseded: "after the run was superseded",
    needs_decision: "while the run waited for a new decision",
  };
  return words[status] ?? `after the run became ${status.replace(/_/g, " ")}`;
}

/**
 * The list's words for one item: "Outcome unknown" (reported `unknown`), "No outcome reported"
 * (claimed and never reported), and for a flagged report what was reported and why it needs a
 * person — "Reported failed after the run stopped", "Reported succeeded after the claim's lease
 * lapsed", "Executor cannot run this step" (`cannot_execute`).
 */
export function reconciliationReasonText(item: ReconciliationReasonFacts): string {
  if (item.reason === "unknown_outcome") return "Outcome unknown";
  if (item.reason === "no_report" || !item.flag) return item.status === "claimed" ? "No outcome reported" : `Reported ${item.status}`;
  if (item.flag === "cannot_execute") return "Executor cannot run this step (nothing written)";
  const why = lateBecause(item.flag);
  const what = item.status === "claimed" ? "Claimed" : `Reported ${item.status}`;
  return why ? `${what} ${why}` : `${what} (${item.flag.replace(/_/g, " ")})`;
}
