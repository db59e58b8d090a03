import { diffPlans, planDiffSchema, type PlanDiff } from "../../diff/plan-diff";
import { Prisma } from "../../generated/prisma/client";
import { readJsonColumn, toJsonColumn } from "../db/json-column";
import { refoldEdits } from "./edit-telemetry";
import { DomainError } from "../../errors/domain-error";
import type { Step } from "../../plan/schema";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { refuseIfStepsClaimed } from "./submit-edit";
import { activeApprovals, approvalsForNewVersion } from "../approvals/carry-approvals";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { moveRun } from "../lifecycle/run-lifecycle";
import { checkPlan, loadPlanContext } from "../plan-check/plan-context";
import { loadRun } from "../plans/load-run";
import { storePlanVersion } from "../plans/store-plan-version";
import { refuseIfStoppedForStaleTask } from "../plans/stopped-stale";
import { requirementsOf } from "../../gate-policy/evaluate";
import { planFacts, storedReads, storedSteps, toStoredRequirements } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";

/** A run keeps at most this many edits in its refolded telemetry (a plan has at most 20 steps; edits beyond are noise). */
const MAX_EDITS_REFOLDED = 500;

/**
 * "Discard my edits" (docs/design.md §7): restores the pre-edit plan of the edit that produced
 * `version`, as a new version (history is never rewritten). When later versions exist they must
 * all be edits by the same person (their edits of one session), and are discarded too. The
 * restored plan is validated again against live data (authorship is not re-checked: the restored
 * steps are the previous authors'). Only the editor of that edit, or a supervisor, may discard it.
 * The same checks as an edit (lib/server/plan-check/plan-context.ts): a run whose task was revised
 * since its plan was bound is refused, like an edit or an approval of it. The discarded edits are
 * marked `discardedAt` and leave every insights count and rule count.
 * Errors: 404 `not_found` (no such edit); 403 `forbidden`; 409 `stale_plan_version` when someone
 * else edited after `version`, `expired`, `run_not_pending`, `stale_task` {boundRevision,
 * liveRevision}; 422 `validation_failed`.
 */
export async function discardEdit(viewer: Viewer, runId: string, version: number, now = new Date()): Promise<{ planVersion: { version: number; steps: Step[] } }> {
  const run = await loadRun(runId, deskScope(viewer));
  const edit = await prisma.planEdit.findUnique({ where: { runId_toVersion: { runId, toVersion: version } } });
  if (!edit) throw new DomainError("not_found", `Version ${version} of this run was not made by an edit.`);
  if (edit.editorId !== viewer.id && viewer.role !== "supervisor") {
    throw new DomainError("forbidden", "Only the person who made this edit, or a supervisor, can discard it.");
  }
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has expired.", { expiresAt: run.expiresAt.toISOString() });
  refuseIfStoppedForStaleTask(run, "changed");
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}.`, { status });
  refuseIfStepsClaimed(run, status);
  if (run.planVersion < version) throw new DomainError("not_found", `Version ${version} does not exist yet.`);
  const latest = run.planVersion;
  const current = { version: latest, steps: storedSteps(run.planVersions.find((p) => p.version === latest)?.steps) };
  if (latest !== version) {
    // Discarding an earlier edit also discards the later ones, so they must all be this person's.
    const later = await prisma.planEdit.findMany({ where: { runId, toVersion: { gt: version, lte: latest } }, select: { editorId: true } });
    if (later.length !== latest - version || later.some((e) => e.editorId !== edit.editorId)) {
      throw new DomainError("stale_plan_version", `Someone else changed the plan after this edit (now version ${latest}); it cannot be discarded.`, {
        currentVersion: latest,
        plan: current,
      });
    }
  }
  // Edits never change the reads: the version restored carries the reads the plan has now.
  const beforeReads = storedReads(run.planVersions.find((p) => p.version === latest)?.reads);
  const before = { version: latest + 1, steps: storedSteps((edit.before as { steps?: unknown } | null)?.steps), ...(beforeReads.length ? { reads: beforeReads } : {}) };
  // Same checks as an edit: the task as it stands (a revised task refuses), the live gate policy
  // (the run records its version), live account data.
  const ctx = await loadPlanContext(run, { steps: [...current.steps, ...before.steps], reads: beforeReads, now, policy: "live", action: "changed" });
  const { desk, catalog, gateRules } = ctx;
  const result = checkPlan(before, ctx, runId, now);
  if (!result.ok || !result.plan) {
    throw new DomainError("validation_failed", "The pre-edit plan no longer passes validation (account data changed); edit it instead.", { issues: result.issues });
  }
  const restored = result.plan;
  const requirements = requirementsOf(restored.steps, (name) => catalog.get(name), gateRules);
  const validation = { issues: result.issues, gate: result.gate, requirements: toStoredRequirements(requirements) };
  await inTransaction(async (tx) => {
    // Same rule as an edit (lib/diff/reapproval.ts): the approvals read here decide what carries.
    const prevApprovals = await activeApprovals(tx, runId, latest);
    const diff = diffPlans(current, restored, desk, { issues: result.issues, approvals: prevApprovals, gate: result.gate });
    const moved = await moveRun(tx, runId, "edit", {
      where: { planVersion: latest },
      data: { planVersion: restored.version, approvedVersion: null, policyVersion: gateRules.policy.version || null, ...planFacts(restored.steps, validation) },
      audit: {
        type: "edit_discarded",
        actor: { kind: "user", id: viewer.id },
        data: { discardedVersion: version, restoredFromVersion: edit.fromVersion, toVersion: restored.version, summary: diff.summary },
      },
    });
    if (!moved) {
      const fresh = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { planVersion: true } });
      throw new DomainError("stale_plan_version", "Someone else changed this plan first.", { currentVersion: fresh.planVersion });
    }
    // The discarded edits leave every count: marked (never deleted: the corpus and audit keep
    // them), their pattern rows gone, and the run's edit telemetry refolded from the edits kept.
    const gone = await tx.planEdit.findMany({ where: { runId, toVersion: { gte: version, lte: latest }, discardedAt: null }, select: { id: true } });
    await tx.planEdit.updateMany({ where: { id: { in: gone.map((g) => g.id) } }, data: { discardedAt: now } });
    await tx.planEditPattern.deleteMany({ where: { editId: { in: gone.map((g) => g.id) } } });
    const kept = await tx.planEdit.findMany({ where: { runId, discardedAt: null }, orderBy: { toVersion: "asc" }, take: MAX_EDITS_REFOLDED, select: { diff: true } });
    const refolded = refoldEdits(kept.map((k) => readJsonColumn(planDiffSchema, k.diff, "plan diff") as PlanDiff));
    await tx.run.update({
      where: { id: runId },
      data: { editCount: refolded.editCount, editTouched: refolded.editTouched ? toJsonColumn(refolded.editTouched) : Prisma.DbNull, editFraction: refolded.editFraction },
    });
    await storePlanVersion(tx, runId, restored, validation, viewer.id, now);
    const { invalidated } = await approvalsForNewVersion(tx, run, { prev: current, next: restored, prevApprovals, reapprovalRequired: diff.reapprovalRequired, gate: result.gate, requirements, desk, catalog });
    if (invalidated.length > 0) {
      await appendAudit(tx, { runId, type: "invalidated", actor: { kind: "system" }, data: { planVersion: latest, stepIds: invalidated, reason: "edit discarded" } });
    }
    return ok(null);
  });
  return { planVersion: restored };
}
