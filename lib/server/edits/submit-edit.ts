import type { EditResult } from "../../api/schemas";
import { nanoid } from "nanoid";
import { notExecutableIssues } from "../../validation/executable";
import type { SubmitEditBody } from "../../api/bodies";
import { describeReapproval, diffPlans } from "../../diff/plan-diff";
import { DomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { activeApprovals, approvalsForNewVersion } from "../approvals/carry-approvals";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { lockRun, moveRun } from "../lifecycle/run-lifecycle";
import { checkPlan, loadPlanContext } from "../plan-check/plan-context";
import { loadRun } from "../plans/load-run";
import { storePlanVersion } from "../plans/store-plan-version";
import { refuseIfStoppedForStaleTask } from "../plans/stopped-stale";
import { planFacts, storedReads, storedSteps, storedValidation, toStoredRequirements } from "../plans/stored-plan";
import { executableToolsOf } from "../tools/imported-tools";
import { requirementsOf } from "../../gate-policy/evaluate";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { foldEdit, writeEditPatterns } from "./edit-telemetry";
import { stampEditedSteps } from "./stamp-edited-steps";
import { toJsonColumn } from "../db/json-column";

/** An accepted edit's answer: the API's edit result (lib/api/schemas.ts), declared once. */
export type { EditResult };

/**
 * Submits an operator's edit of a run's plan (docs/design.md §6, docs/api.md `POST /api/runs/{runId}/edits`).
 * The edited plan is client input: it is validated from scratch by the one pipeline, including
 * authorship of every added or changed step, against live account data. On success a new
 * immutable plan version is stored with the pre-edit plan, post-edit plan and diff; approvals
 * of the diff's `reapprovalRequired` steps (lib/diff/reapproval.ts: added, changed, moved,
 * prerequisites changed, new unacknowledged warning) and of removed steps are invalidated;
 * the others carry over; the run goes back to review (lifecycle event `edit`).
 * Errors: 404 `not_found`; 409 `expired`, `run_not_pending`, `stale_task` {boundRevision,
 * liveRevision}, `stale_plan_version` {currentVersion, plan}; 403 `authorship_denied` {issues}
 * (audited `denied`); 422 `validation_failed` {issues} (audited `edit_refused`).
 * A refused edit stores nothing but its audit event.
 */
export async function submitEdit(viewer: Viewer, runId: string, body: SubmitEditBody, now = new Date()): Promise<EditResult> {
  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has expired; it can no longer be edited.", { expiresAt: run.expiresAt.toISOString() });
  refuseIfStoppedForStaleTask(run, "edited");
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; only a run waiting for review can be edited.`, { status });
  refuseIfStepsClaimed(run, status);
  const currentRow = run.planVersions.find((p) => p.version === run.planVersion);
  const base = { version: run.planVersion, steps: storedSteps(currentRow?.steps) };
  if (body.baseVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed while you were editing: it is now at version ${run.planVersion}, your edit was based on version ${body.baseVersion}.`, {
      currentVersion: run.planVersion,
      plan: base,
      ...(await savedByOf(currentRow)),
    });
  }
  // What the agent read stays with the plan: a person edits the writes, never what the agent saw.
  const reads = storedReads(currentRow?.reads);
  const candidate = { version: base.version + 1, steps: stampEditedSteps(body.steps, base, viewer.id, now), ...(reads.length ? { reads } : {}) };
  // The task as it stands (a revised task refuses), the live gate policy (a new plan version is
  // gated under it, and the run records its version), live account data.
  const ctx = await loadPlanContext(run, { steps: [...base.steps, ...candidate.steps], reads, now, policy: "live", action: "edited" });
  const { desk, agent, catalog, gateRules } = ctx;
  const result = checkPlan(candidate, ctx, runId, now, { editor: { userId: viewer.id, grants: viewer.grants }, basePlan: base });
  // An edit may not add a step the run's agent cannot execute (it would never run).
  if (result.plan) result.issues.push(...notExecutableIssues(result.plan.steps, base.steps, executableToolsOf(agent)));
  if (result.issues.some((i) => i.code === "tool_not_executable")) result.ok = false;
  const actor = { kind: "user" as const, id: viewer.id };
  const denied = result.issues.filter((i) => i.stage === "authorship" && i.severity === "error");
  if (denied.length > 0) {
    await appendAudit(prisma, { runId, type: "denied", actor, data: { action: "author", baseVersion: base.version, issues: denied } });
    throw new DomainError("authorship_denied", denied.map((i) => i.message).join(" "), { issues: result.issues });
  }
  if (!result.ok || !result.plan) {
    await appendAudit(prisma, { runId, type: "edit_refused", actor, data: { baseVersion: base.version, issues: result.issues } });
    throw new DomainError("validation_failed", "The edited plan did not pass validation; nothing was saved.", { issues: result.issues });
  }
  const next = result.plan;
  const planOnly = diffPlans(base, next, desk);
  if (planOnly.changeCount === 0) {
    return { planVersion: base, diff: planOnly, validation: storedValidation(currentRow?.validation), reapproval: describeReapproval(planOnly, base), unchanged: true };
  }
  const requirements = requirementsOf(next.steps, (name) => catalog.get(name), gateRules);
  const validation = { issues: result.issues, gate: result.gate, requirements: toStoredRequirements(requirements) };
  const telemetry = foldEdit(run.editTouched, planOnly);
  let diff = planOnly;
  // Row locks (docs/design.md "Transactions and locks"): the run's lock first, then every read.
  // Anomaly prevented: an edit crossing an approval of the version it replaces — the approval
  // committed after the edit read the run's approvals, so it was neither carried nor invalidated
  // and stayed active on a version nobody will execute, holding money on its invoice. Two edits
  // of one version: the version move is conditional, the loser is refused `stale_plan_version`.
  // Provoked by lib/server/db/row-lock-anomalies.test.ts on both databases.
  await inTransaction(async (tx) => {
    await lockRun(tx, runId);
    // One source (lib/diff/reapproval.ts): the diff stored and shown names exactly the steps whose
    // approvals the carry-over below invalidates, computed from the approvals read here.
    const prevApprovals = await activeApprovals(tx, runId, base.version);
    diff = diffPlans(base, next, desk, { issues: result.issues, approvals: prevApprovals, gate: result.gate });
    const moved = await moveRun(tx, runId, "edit", {
      where: { planVersion: base.version },
      data: {
        planVersion: next.version,
        approvedVersion: null,
        policyVersion: gateRules.policy.version || null,
        ...planFacts(next.steps, validation),
        editCount: { increment: 1 },
        editTouched: toJsonColumn(telemetry.runTouched),
        editFraction: telemetry.runFraction,
      },
      audit: {
        type: "edited",
        actor,
        data: { fromVersion: base.version, toVersion: next.version, changeCount: diff.changeCount, summary: diff.summary, reapprovalRequired: diff.reapprovalRequired },
      },
    });
    if (!moved) {
      const fresh = await loadRun(runId, {}, tx);
      // Lost to a claim, a rejection, an expiry…: the run no longer waits for review. That is the
      // refusal, even when its plan is still at the edit's own base version.
      const freshStatus = effectiveStatus(fresh.status as RunStatus, fresh.expiresAt, now);
      if (freshStatus === "expired") throw new DomainError("expired", "This run has expired; it can no longer be edited.", { expiresAt: fresh.expiresAt.toISOString() });
      if (!WAITING_STATES.includes(freshStatus)) {
        throw new DomainError("run_not_pending", `This run became ${freshStatus.replace("_", " ")} while you were editing; only a run waiting for review can be edited.`, { status: freshStatus });
      }
      const freshRow = fresh.planVersions.find((p) => p.version === fresh.planVersion);
      throw new DomainError("stale_plan_version", `Someone else changed this plan first: it is now at version ${fresh.planVersion}.`, {
        currentVersion: fresh.planVersion,
        plan: { version: fresh.planVersion, steps: storedSteps(freshRow?.steps) },
        ...(await savedByOf(freshRow, tx)),
      });
    }
    await storePlanVersion(tx, runId, next, validation, viewer.id, now);
    const editId = nanoid();
    await tx.planEdit.create({
      data: {
        id: editId,
        runId,
        fromVersion: base.version,
        toVersion: next.version,
        editorId: viewer.id,
        before: toJsonColumn(base),
        after: toJsonColumn(next),
        diff: toJsonColumn(diff),
        ...telemetry.edit,
        createdAt: now,
      },
    });
    await writeEditPatterns(tx, { id: editId, runId, desk: run.desk, createdAt: now }, diff);
    const { invalidated } = await approvalsForNewVersion(tx, run, { prev: base, next, prevApprovals, reapprovalRequired: diff.reapprovalRequired, gate: result.gate, requirements, desk, catalog });
    await appendAudit(tx, { runId, type: "validated", actor: { kind: "system" }, data: { planVersion: next.version, ok: true, ...validation } });
    if (invalidated.length > 0) {
      const why = new Map((diff.reapproval ?? []).map((r) => [r.stepId, r.reasons]));
      await appendAudit(tx, {
        runId,
        type: "invalidated",
        actor: { kind: "system" },
        data: { planVersion: base.version, stepIds: invalidated, reason: "the edit changed what was approved", reasons: Object.fromEntries(invalidated.map((id) => [id, why.get(id) ?? ["removed"]])) },
      });
    }
    return ok(null);
  }, prisma, { isolation: "row-locks" });
  return { planVersion: next, diff, validation, reapproval: describeReapproval(diff, next), unchanged: false };
}

/**
 * Who saved a plan version and when (the conflict view names who saved first), as
 * additive details of `stale_plan_version`: `savedBy` {id, name} (null: the agent's own version)
 * and `savedAt` (ISO-8601 UTC).
 */
async function savedByOf(row: { createdById: string | null; createdAt: Date } | undefined, db: Pick<typeof prisma, "user"> = prisma): Promise<{ savedBy: { id: string; name: string } | null; savedAt: string | null }> {
  if (!row) return { savedBy: null, savedAt: null };
  const user = row.createdById ? await db.user.findUnique({ where: { id: row.createdById }, select: { id: true, name: true } }) : null;
  return { savedBy: user, savedAt: row.createdAt.toISOString() };
}

/**
 * A run that needs a new decision after some of its steps were claimed is not edited: what was
 * written stays written, so the person approves the remaining steps again or rejects the run.
 * Errors: 409 `run_not_pending` {status, claimedStepIds}.
 */
export function refuseIfStepsClaimed(run: { executions: readonly { stepId: string }[] }, status: string): void {
  if (run.executions.length === 0) return;
  throw new DomainError("run_not_pending", "Steps of this run were already claimed, and what was written stays written; approve the remaining steps again or reject the run instead of editing it.", {
    status,
    claimedStepIds: run.executions.map((e) => e.stepId),
  });
}
