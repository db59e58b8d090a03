/**
 * One sentence per audit event, for the run timeline (docs/design.md §11). Pure and framework-free:
 * the page passes the names it knows. Unknown event types fall back to their type name.
 */

import type { Author, Provenance } from "../plan/schema";
import { describeOwnershipEvent, OWNERSHIP_EVENT_LABELS } from "./ownership-describe";

/**
 * Who wrote a step, in words: "Proposed by the agent", "Added by <name>" (a person added the
 * step: every argument is theirs and none has a previous value) or "Changed by <name>".
 */
export function authorLabel(author: Author, provenance: Record<string, Provenance> | undefined, users: Record<string, string>): string {
  if (author.kind === "model") return "Proposed by the agent";
  const name = users[author.userId] ?? author.userId;
  const entries = Object.values(provenance ?? {});
  const added = entries.length > 0 && entries.every((p) => p.kind === "operator" && p.previous === undefined);
  return `${added ? "Added" : "Changed"} by ${name}`;
}

/** What the describer needs to name things: user names and "step N tool" labels. */
export interface DescribeContext {
  users: Record<string, string>;
  /** "step 2 reschedule_delivery" for a step id, or undefined when the id is unknown. */
  stepLabel: (stepId: string) => string | undefined;
}

/** Labels of event types, as shown in the timeline's type column. */
export const EVENT_LABELS: Record<string, string> = {
  submitted: "Submitted",
  submission_refused: "Submission refused",
  validated: "Validated",
  edited: "Edited",
  edit_refused: "Edit refused",
  edit_discarded: "Edit discarded",
  approved: "Approved",
  auto_approved: "Auto-approved",
  rejected: "Rejected",
  invalidated: "Approvals invalidated",
  claimed: "Claimed",
  claim_refused: "Claim refused",
  outcome: "Outcome",
  reconciled: "Reconciled",
  stopped_stale: "Stopped (task changed)",
  stopped_target_changed: "Stopped (record changed)",
  task_revised: "Task revised",
  task_opened: "Task opened",
  expired: "Expired",
  needs_decision: "Needs a new decision",
  approved_again: "Approved again",
  escalated: "Escalated",
  denied: "Denied",
  admin_change: "Admin change",
  ticket_event: "Ticket event",
  outcome_labelled: "Outcome labelled",
  gateway_call: "MCP gateway",
  ...OWNERSHIP_EVENT_LABELS,
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A human sentence for one event of `type` with `data`. */
export function describeEvent(type: string, data: Record<string, unknown>, ctx: DescribeContext): string {
  const step = (id: unknown) => {
    const s = str(id);
    if (!s) return "a step";
    return ctx.stepLabel(s) ?? `step ${s}`;
  };
  const steps = (ids: unknown) => arr(ids).map(step).join(", ") || "no steps";
  const issues = arr(data.issues) as { severity?: string }[];
  const warnings = issues.filter((i) => i.severity === "warning").length;
  const errors = issues.filter((i) => i.severity === "error").length;
  switch (type) {
    case "submitted":
      return `The agent submitted a plan of ${plural(num(data.steps) ?? 0, "step")}, bound to task revision ${num(data.taskRevision) ?? "?"}.`;
    case "validated": {
      const gate = (data.gate && typeof data.gate === "object" ? Object.values(data.gate as Record<string, string>) : []) as string[];
      const auto = gate.filter((g) => g === "auto").length;
      return `Plan version ${num(data.planVersion) ?? "?"} passed validation with ${plural(warnings, "warning")}; ${plural(gate.length - auto, "step")} need${gate.length - auto === 1 ? "s" : ""} a person's approval, ${auto} auto-approved by policy.`;
    }
    case "edited": {
      const summary = arr(data.summary).filter((s): s is string => typeof s === "string");
      return `Edited plan version ${num(data.fromVersion) ?? "?"} → ${num(data.toVersion) ?? "?"}: ${plural(num(data.changeCount) ?? summary.length, "change")}${summary.length ? ` (${summary.join("; ")})` : ""}.`;
    }
    case "edit_refused":
      return `An edit of version ${num(data.baseVersion) ?? "?"} was refused: ${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}. Nothing was saved.`;
    case "edit_discarded":
      return `Edits from version ${num(data.discardedVersion) ?? "?"} on were discarded: the plan of version ${num(data.restoredFromVersion) ?? "?"} is back as version ${num(data.toVersion) ?? "?"}.`;
    case "approved": {
      const ack = arr(data.acknowledged).length;
      // Four eyes and policy: the governing gate policy version and the approvals so far.
      const policy = num(data.policyVersion);
      const need = num(data.approvalsRequired);
      const given = num(data.approvalsGiven);
      const progress = need !== undefined && need > 1 && given !== undefined ? ` (${given} of ${need} approvals)` : "";
      const governed = policy !== undefined ? ` under gate policy version ${policy === 0 ? "0 (built-in defaults)" : policy}` : "";
      return `Approved ${step(data.stepId)} of plan version ${num(data.planVersion) ?? "?"}${progress}${governed}${ack ? `, acknowledging ${plural(ack, "warning")}` : ""}.`;
    }
    case "auto_approved":
      return `${step(data.stepId)} was approved by policy.`;
    case "rejected":
      return `Rejected plan version ${num(data.planVersion) ?? "?"}: “${str(data.reason) ?? ""}”.`;
    case "invalidated":
      return `Approvals of ${steps(data.stepIds)} (version ${num(data.planVersion) ?? "?"}) were invalidated: ${str(data.reason) ?? "the step changed"}.`;
    case "claimed": {
      const approver = str(data.approverId);
      const approvers = arr(data.approverIds).filter((a): a is string => typeof a === "string");
      const names = (approvers.length ? approvers : approver ? [approver] : []).map((a) => ctx.users[a] ?? a);
      return `The executor claimed ${step(data.stepId)} (version ${num(data.planVersion) ?? "?"}, task revision ${num(data.taskRevision) ?? "?"}), under the approval of ${names.length ? names.join(" and ") : "policy"}.`;
    }
    case "claim_refused":
      return `A claim of ${step(data.stepId)} was refused: ${str(data.code) ?? "refused"}${str(data.message) ? ` — ${str(data.message)}` : ""}`;
    case "outcome":
      return `The executor reported ${step(data.stepId)} ${str(data.status) ?? "?"}${str(data.detail) ? ` (“${str(data.detail)}”)` : ""}; run is ${String(data.runStatus ?? "?").replace(/_/g, " ")}.`;
    case "reconciled":
      return `${step(data.stepId)} was reconciled as ${str(data.resolution) ?? "?"} (was ${str(data.previousStatus) ?? "?"}): “${str(data.note) ?? ""}”.`;
    case "stopped_stale":
      return `Stopped before ${step(data.blockedStepId)}: the task moved from revision ${num(data.boundRevision) ?? "?"} to ${num(data.liveRevision) ?? "?"}. Already executed: ${steps(data.executedStepIds)}.`;
    case "stopped_target_changed":
      return `Stopped before writing ${step(data.stepId)}: ${str(data.record) ?? "its record"} is at version ${num(data.liveVersion) ?? "?"} at its source, not the version ${num(data.approvedVersion) ?? "?"} the approval saw. Nothing of it was written.`;
    case "task_revised":
      return `The task changed to revision ${num(data.liveRevision) ?? "?"} (this run is bound to ${num(data.boundRevision) ?? "?"})${str(data.comment) ? `: “${str(data.comment)}”` : ""}.`;
    case "task_opened":
      return `The ticketing integration opened task ${str(data.taskId) ?? "?"} for ticket ${str(data.ticketId) ?? "?"}${str(data.intent) ? ` (intent ${str(data.intent)})` : ""}.`;
    case "expired":
      return expiryWords(data.while);
    case "needs_decision":
      return `The executor's claim of ${step(data.stepId)} was refused (${str(data.code) ?? "refused"}); the run waits for a person's new decision. ${str(data.message) ?? ""}`.trim();
    case "approved_again":
      return `Approved ${step(data.stepId)} of plan version ${num(data.planVersion) ?? "?"} again, after a fresh check against live data (it needed a new decision: ${str(data.reasonCode) ?? "?"}).`;
    case "escalated":
      return `Nobody had decided by the escalation time; the run was escalated to supervisors (expires ${str(data.expiresAt) ?? "?"}).`;
    case "denied": {
      const action = str(data.action)?.replace(/_/g, " ") ?? "an action";
      const reason = str(data.reason) ?? (arr(data.issues) as { message?: string }[]).map((i) => i.message).filter(Boolean).join(" ");
      return `Refused: ${action}${str(data.tool) ? ` (${str(data.tool)})` : ""}${reason ? ` — ${reason}` : " without the required authority."}`;
    }
    case "gateway_call": {
      const tool = str(data.tool) ?? "a tool";
      const on = str(data.upstream) ? ` on the MCP server ${str(data.upstream)}` : "";
      if (data.kind === "read") return `The agent read ${tool}${on} through Plandesk's MCP gateway (${str(data.status) ?? "?"}).`;
      if (data.kind === "write") return `The agent called ${tool}${on} through Plandesk's MCP gateway; Plandesk holds it as this plan's step until it is approved.`;
      return `Plandesk executed ${tool}${on}: ${str(data.status) ?? "?"}.`;
    }
    case "ticket_event":
      return `The ticketing integration reported the ticket ${String(data.type ?? "?").replace(/_/g, " ")} at ${str(data.at) ?? "?"}${str(data.detail) ? `: “${str(data.detail)}”` : ""}.`;
    case "outcome_labelled": {
      const after = (data.after ?? {}) as { label?: unknown; reason?: unknown };
      const before = (data.before ?? null) as { label?: unknown } | null;
      return `The edit was labelled ${str(after.label) ?? "?"}${before ? ` (was ${str(before.label) ?? "?"})` : ""}: “${str(after.reason) ?? ""}”${str(data.suggestion) ? ` — the signals suggested ${str(data.suggestion)}` : ""}.`;
    }
    default:
      return describeOwnershipEvent(type, data, ctx) ?? EVENT_LABELS[type] ?? type;
  }
}

/** "1 Apr 2026, 09:00:05 UTC" for an instant (seconds shown: events can be close together). */
export function formatUtcSeconds(isoInstant: string): string {
  const d = new Date(isoInstant);
  if (Number.isNaN(d.getTime())) return isoInstant;
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC`;
}

/**
 * What an expiry means, by the status the run expired in (`while` of the `expired` event): a run
 * waiting for review expired without a decision; an approved run was decided — it expired before
 * the executor claimed it; an executing one before its remaining steps were claimed; one that
 * needed a new decision before anyone made it. Events stored without `while` read as before.
 */
export function expiryWords(status: unknown): string {
  switch (status) {
    case "approved":
      return "The run was approved, but it expired before the executor claimed it; nothing was written.";
    case "executing":
      return "The run expired while executing, before the executor claimed its remaining steps; they can no longer run.";
    case "needs_decision":
      return "The run needed a new decision and nobody made it before the deadline; it expired and can no longer be approved.";
    default:
      return "The run expired without a decision; it can no longer be approved.";
  }
}
