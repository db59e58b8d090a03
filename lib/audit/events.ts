import { z } from "zod";

/**
 * Every audit event type and the data it carries (docs/design.md §11), declared once as a
 * zod discriminated union: `appendAudit` (lib/server/audit-log/append-audit.ts, the only writer) is typed by it, and
 * readers (the run timeline, the denials page, the diff corpus) parse stored rows with it. Fields a
 * type always carries are required; objects stay open (older rows and additions keep parsing).
 * Times are ISO-8601 UTC strings; money is `{minor, currency}`. Client-safe.
 */

/** A validation issue as events store it (lib/validation/types.ts `ValidationIssue`, all its fields kept). */
type IssueLike = { code: string; severity: string; message: string };
const issueList = z.array(
  z.custom<IssueLike>((v) => typeof v === "object" && v !== null && typeof (v as IssueLike).code === "string" && typeof (v as IssueLike).message === "string", "a validation issue"),
);
const moneyOrNull = z.looseObject({ minor: z.number(), currency: z.string() }).nullable();

/** The data of each event type. */
export const AUDIT_EVENT_DATA = {
  submitted: z.looseObject({ taskId: z.string(), taskRevision: z.number().int(), steps: z.number().int() }),
  submission_refused: z.looseObject({ taskId: z.string(), issues: issueList }),
  validated: z.looseObject({ planVersion: z.number().int(), ok: z.boolean(), issues: issueList, gate: z.record(z.string(), z.string()) }),
  edited: z.looseObject({ fromVersion: z.number().int(), toVersion: z.number().int(), changeCount: z.number().int(), summary: z.array(z.string()), reapprovalRequired: z.array(z.string()) }),
  edit_refused: z.looseObject({ baseVersion: z.number().int(), issues: issueList }),
  edit_discarded: z.looseObject({ discardedVersion: z.number().int(), restoredFromVersion: z.number().int(), toVersion: z.number().int(), summary: z.array(z.string()) }),
  approved: z.looseObject({ stepId: z.string(), tool: z.string(), planVersion: z.number().int(), digest: z.string(), amount: moneyOrNull, acknowledged: z.array(z.looseObject({ code: z.string(), stepId: z.string() })) }),
  auto_approved: z.looseObject({ stepId: z.string() }),
  rejected: z.looseObject({ planVersion: z.number().int(), reason: z.string(), approvalsInvalidated: z.number().int() }),
  invalidated: z.looseObject({ planVersion: z.number().int(), stepIds: z.array(z.string()), reason: z.string() }),
  claimed: z.looseObject({ stepId: z.string(), tool: z.string(), planVersion: z.number().int(), digest: z.string(), taskRevision: z.number().int(), approvalId: z.string(), approverId: z.string().nullable(), firstClaim: z.boolean(), idempotencyKey: z.string().nullable() }),
  claim_refused: z.looseObject({ stepId: z.string(), code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()), idempotencyKey: z.string().nullable() }),
  fenced: z.looseObject({ stepId: z.string(), reason: z.string() }),
  outcome: z.looseObject({ stepId: z.string(), status: z.enum(["succeeded", "failed", "unknown"]), detail: z.string().nullable(), approvalConsumed: z.boolean(), runStatus: z.string(), needsReconciliation: z.boolean() }),
  reconciled: z.looseObject({ stepId: z.string(), resolution: z.enum(["succeeded", "failed"]), note: z.string(), previousStatus: z.string(), reason: z.enum(["no_report", "unknown_outcome", "flagged_report"]), approvalConsumed: z.boolean(), runStatus: z.string() }),
  stopped_condition: z.looseObject({ code: z.literal("stop_condition_met"), stepId: z.string(), stopCondition: z.string().nullable(), approvalsInvalidated: z.number().int() }),
  stopped_target_changed: z.looseObject({ code: z.literal("target_changed"), stepId: z.string(), record: z.string(), approvedVersion: z.number().int(), liveVersion: z.number().int(), approvalsInvalidated: z.number().int() }),
  stopped_stale: z.looseObject({ code: z.literal("stopped_stale_task"), boundRevision: z.number().int(), liveRevision: z.number().int(), blockedStepId: z.string(), approvalsInvalidated: z.number().int() }),
  superseded: z.looseObject({ supersededById: z.string(), taskId: z.string(), approvalsWithdrawn: z.number().int() }),
  task_revised: z.looseObject({ taskId: z.string(), boundRevision: z.number().int(), liveRevision: z.number().int(), comment: z.string().nullable(), bodyChanged: z.boolean() }),
  task_opened: z.looseObject({ taskId: z.string(), ticketId: z.string(), accountId: z.string(), partSources: z.array(z.string()), intent: z.string().nullable() }),
  expired: z.looseObject({ at: z.string(), approvalsExpired: z.number().int() }),
  approved_again: z.looseObject({ stepId: z.string(), tool: z.string(), planVersion: z.number().int(), digest: z.string(), reasonCode: z.string(), reason: z.string() }),
  needs_decision: z.looseObject({ code: z.string(), message: z.string(), stepId: z.string(), at: z.string(), escalateAt: z.string(), expiresAt: z.string(), approvalsInvalidated: z.number().int() }),
  escalated: z.looseObject({ at: z.string(), escalateAt: z.string(), expiresAt: z.string(), to: z.string() }),
  denied: z.looseObject({ action: z.string() }),
  refused: z.looseObject({ action: z.string(), code: z.string(), message: z.string() }),
  admin_change: z.looseObject({ what: z.string(), target: z.looseObject({ kind: z.string(), id: z.string() }), before: z.unknown(), after: z.unknown() }),
  // ownership: assignment, hand-offs, suggested steps (lib/audit/ownership-describe.ts)
  run_assigned: z.looseObject({ assigneeId: z.string().nullable(), previousAssigneeId: z.string().nullable(), byUserId: z.string(), how: z.enum(["take", "reassign", "release"]) }),
  approval_requested: z.looseObject({ runId: z.string(), requestId: z.string(), stepId: z.string().nullable(), toUserId: z.string().nullable(), toRole: z.string().nullable(), note: z.string(), byUserId: z.string() }),
  step_suggested: z.looseObject({ suggestionId: z.string(), planVersion: z.number().int(), tool: z.string(), byUserId: z.string() }),
  suggestion_accepted: z.looseObject({ suggestionId: z.string(), planVersion: z.number().int(), toVersion: z.number().int(), suggestedBy: z.string(), byUserId: z.string() }),
  suggestion_declined: z.looseObject({ suggestionId: z.string(), planVersion: z.number().int(), suggestedBy: z.string(), byUserId: z.string(), reason: z.string() }),
  // did the edit help? ticket events from the integration, supervisors' labels of outcomes (lib/outcomes)
  ticket_event: z.looseObject({ taskId: z.string(), eventId: z.string(), type: z.string(), at: z.string(), detail: z.string().nullable() }),
  outcome_labelled: z.looseObject({
    before: z.looseObject({ label: z.string(), reason: z.string() }).nullable(),
    after: z.looseObject({ label: z.string(), reason: z.string() }),
    suggestion: z.string().nullable(),
  }),
  // the MCP gateway (lib/server/gateway): a read forwarded to a desk's upstream, a write held as a step, Plandesk's own execution of it — never a credential
  gateway_call: z.looseObject({ callId: z.string(), kind: z.enum(["read", "write", "execute"]), tool: z.string(), upstream: z.string(), status: z.string(), taskId: z.string().nullable() }),
  // the records door: one per batch or single put/delete — counts only, never a record's data (lib/server/records)
  records_synced: z.looseObject({ desk: z.string(), via: z.enum(["batch", "put", "delete"]), lines: z.number().int(), applied: z.number().int(), ignored: z.number().int(), errors: z.number().int() }),
} as const;

/** Event types of the append-only audit log. */
export type AuditType = keyof typeof AUDIT_EVENT_DATA;
export const AUDIT_TYPES = Object.keys(AUDIT_EVENT_DATA) as AuditType[];

/** The data an event of type `T` carries, as its writer gives it. */
export type AuditData<T extends AuditType> = z.input<(typeof AUDIT_EVENT_DATA)[T]>;

/** A stored event as `{type, data}`, discriminated by type. */
export const auditEventSchema = z.discriminatedUnion(
  "type",
  AUDIT_TYPES.map((type) => z.object({ type: z.literal(type), data: AUDIT_EVENT_DATA[type] })) as unknown as [
    z.ZodObject<{ type: z.ZodLiteral<AuditType>; data: z.ZodType }>,
    ...z.ZodObject<{ type: z.ZodLiteral<AuditType>; data: z.ZodType }>[],
  ],
);

/**
 * Parses a stored event's data by its type. Returns `{ok: true, data}` or `{ok: false, error}`
 * for an unknown type or data that breaks its declaration (a reader shows such a row raw).
 */
export function parseAuditData(type: string, data: unknown): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  if (!Object.prototype.hasOwnProperty.call(AUDIT_EVENT_DATA, type)) return { ok: false, error: `unknown event type "${type}"` };
  const parsed = AUDIT_EVENT_DATA[type as AuditType].safeParse(data);
  return parsed.success ? { ok: true, data: parsed.data as Record<string, unknown> } : { ok: false, error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
}
