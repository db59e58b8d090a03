/**
 * Sentences for the audit events of (ownership, hand-offs, suggested steps), read by
 * lib/audit/describe.ts. Pure and framework-free.
 */

/** Labels of the ownership event types, as shown in the timeline's type column. */
export const OWNERSHIP_EVENT_LABELS: Record<string, string> = {
  run_assigned: "Assigned",
  approval_requested: "Approval requested",
  step_suggested: "Step suggested",
  suggestion_accepted: "Suggestion accepted",
  suggestion_declined: "Suggestion declined",
};

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * A human sentence for an ownership event, or undefined when `type` is not one of them.
 * `ctx.users` names people by id; `ctx.stepLabel` names steps ("step 2 issue_refund").
 */
export function describeOwnershipEvent(
  type: string,
  data: Record<string, unknown>,
  ctx: { users: Record<string, string>; stepLabel: (stepId: string) => string | undefined },
): string | undefined {
  const who = (id: unknown) => {
    const s = str(id);
    return s ? (ctx.users[s] ?? s) : "nobody";
  };
  switch (type) {
    case "run_assigned": {
      if (data.how === "take") return `${who(data.assigneeId)} took the run${data.previousAssigneeId ? ` (was ${who(data.previousAssigneeId)})` : ""}.`;
      if (data.how === "release") return `${who(data.byUserId)} released the run; it is unassigned.`;
      return `${who(data.byUserId)} assigned the run to ${data.assigneeId ? who(data.assigneeId) : "nobody"}${data.previousAssigneeId ? ` (was ${who(data.previousAssigneeId)})` : ""}.`;
    }
    case "approval_requested": {
      const target = data.toUserId ? who(data.toUserId) : `any ${str(data.toRole) ?? "person"}`;
      const step = str(data.stepId) ? ` for ${ctx.stepLabel(str(data.stepId)!) ?? `step ${str(data.stepId)}`}` : "";
      return `${who(data.byUserId)} asked ${target} to decide${step}: “${str(data.note) ?? ""}”.`;
    }
    case "step_suggested":
      return `${who(data.byUserId)} suggested a ${str(data.tool) ?? "?"} step on plan version ${String(data.planVersion ?? "?")}.`;
    case "suggestion_accepted":
      return `${who(data.byUserId)} accepted ${who(data.suggestedBy)}'s suggested step as their own edit (plan version ${String(data.toVersion ?? "?")}).`;
    case "suggestion_declined":
      return `${who(data.byUserId)} declined ${who(data.suggestedBy)}'s suggested step: “${str(data.reason) ?? ""}”.`;
    default:
      return undefined;
  }
}
