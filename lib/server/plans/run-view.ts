import type { RunStepView, RunView } from "../../api/schemas";
import { storedDecisionReason } from "../../lifecycle/needs-decision";
import type { Prisma } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import { reasonsOf } from "../../plan/reasons";
import type { Step } from "../../plan/schema";
import { effectiveStatus, type RunStatus } from "../../lifecycle/run-state";
import { runOutcomeOf } from "../../lifecycle/run-outcome";
import type { GateDecision } from "../../validation/types";
import { storedReads, storedSteps, storedValidation, type StoredRequirement } from "./stored-plan";

/** The run and step views are the API's `Run` and `RunStep` (lib/api/schemas.ts), declared once. */
export type { RunStepView, RunView };

/** What every view of a run loads with it: its plan versions, approvals and executions. */
export const runInclude = { planVersions: true, approvals: true, executions: true } as const;
export type RunWithRelations = Prisma.RunGetPayload<{ include: typeof runInclude }>;

/** Builds the API view of a run at its current plan version; `now` (UTC) applies expiry. Pure over the loaded rows. */
export function toRunView(run: RunWithRelations, now = new Date()): RunView {
  const pv = run.planVersions.find((p) => p.version === run.planVersion);
  const { gate, requirements } = storedValidation(pv?.validation);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  const steps = storedSteps(pv?.steps);
  return {
    id: run.id,
    taskId: run.taskId,
    ticketId: run.ticketId,
    agentId: run.agentId,
    status,
    planVersion: run.planVersion,
    approvedVersion: run.approvedVersion,
    boundTaskRevision: run.boundTaskRevision,
    catalogVersion: run.catalogVersion,
    createdAt: run.createdAt.toISOString(),
    expiresAt: run.expiresAt.toISOString(),
    escalateAt: run.escalateAt.toISOString(),
    rejectionReason: run.rejectionReason,
    stopReason: run.stopReason ?? null,
    decisionReason: status === "needs_decision" ? storedDecisionReason(run.decisionReason) : null,
    supersededById: run.supersededById ?? null,
    outcome: runOutcomeOf({
      id: run.id,
      status,
      supersededById: run.supersededById ?? null,
      rejectionReason: run.rejectionReason,
      stopReason: run.stopReason,
      expiresAt: run.expiresAt,
      executions: run.executions,
      toolOf: (id) => {
        const approved = run.planVersions.find((p) => p.version === (run.approvedVersion ?? run.planVersion));
        return storedSteps(approved?.steps).find((s) => s.id === id)?.tool ?? steps.find((s) => s.id === id)?.tool ?? null;
      },
    }),
    steps: toStepViews(steps, run.planVersion, run, gate, { requirements }),
    reads: storedReads(pv?.reads),
  };
}

/**
 * The API view of each step of plan `version`: digest, gate, the latest approval of that step in
 * that version, and its execution. `opts.executionOfVersion` shows an execution only on the
 * version it ran under; `opts.resolvedStatus` reports a reconciled step by its resolution.
 * Pure over the loaded rows; shared by the run view and the audit trail.
 */
export function toStepViews(
  steps: Step[],
  version: number,
  rows: Pick<RunWithRelations, "approvals" | "executions">,
  gate: Record<string, GateDecision>,
  opts: { executionOfVersion?: boolean; resolvedStatus?: boolean; requirements?: Record<string, StoredRequirement> } = {},
): RunStepView[] {
  return steps.map((s, i) => {
    const approval = rows.approvals
      .filter((a) => a.stepId === s.id && a.planVersion === version)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
    const live = rows.approvals.filter((a) => a.stepId === s.id && a.planVersion === version && (a.state === "active" || a.state === "claimed" || a.state === "consumed"));
    const req = opts.requirements?.[s.id];
    const required = live.length ? Math.max(...live.map((a) => a.approvalsRequired ?? 1)) : Math.max(1, req?.approvalsRequired ?? 1);
    const exec = rows.executions.find((e) => e.stepId === s.id && (!opts.executionOfVersion || e.planVersion === version));
    return {
      id: s.id,
      position: i + 1,
      tool: s.tool,
      args: s.args,
      provenance: s.provenance ?? {},
      digest: digest(s),
      author: s.author ?? { kind: "model" },
      ...reasonsOf(s),
      requiredFields: req?.requiredFields ?? [],
      ...(typeof req?.maxRecordAgeMinutes === "number" ? { maxRecordAgeMinutes: req.maxRecordAgeMinutes } : {}),
      ...(req?.requireSignature ? { requireSignature: true } : {}),
      gate: Object.prototype.hasOwnProperty.call(gate, s.id) ? gate[s.id] : "approval_required",
      approval: approval ? { id: approval.id, state: approval.state, approverId: approval.approverId } : null,
      approvals: {
        required,
        given: live.length,
        approverIds: [...new Set(live.map((a) => a.approverId).filter((a): a is string => a !== null))],
        authorMayApprove: req?.authorMayApprove ?? true,
        policyVersion: live.find((a) => a.policyVersion !== null)?.policyVersion ?? req?.policyVersion ?? 0,
      },
      execution: exec
        ? {
            status: opts.resolvedStatus ? (exec.resolution ?? exec.status) : exec.status,
            claimedAt: exec.claimedAt.toISOString(),
            reportedAt: exec.reportedAt?.toISOString() ?? null,
            detail: exec.detail,
            resolution: exec.resolution,
            reconciledBy: exec.reconciledBy,
          }
        : null,
    };
  });
}
