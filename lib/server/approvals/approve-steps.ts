import { nanoid } from "nanoid";
import { inSpan } from "../trace/span";
import { storedDecisionReason } from "../../lifecycle/needs-decision";
import { refuseIfStoppedForStaleTask } from "../plans/stopped-stale";
import type { ApproveBody } from "../../api/bodies";
import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import { checkGrant } from "../../people/grants";
import { formatMoney, type Money } from "../../money/format-money";
import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { getTool } from "../../tools/builtin-tools";
import { autoGated, promisesAwaitingApproval } from "../../validation/promise-backing";
import type { ValidationIssue } from "../../validation/types";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { checkPlan, loadPlanContext } from "../plan-check/plan-context";
import { findSavedAnswer, requestHashOf, saveAnswer } from "../http/idempotency";
import { expireIfDue, lockRunReading, settleReview } from "../lifecycle/run-lifecycle";
import { loadRun } from "../plans/load-run";
import { toRunView, type RunWithRelations } from "../plans/run-view";
import { storedReads, storedSteps } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { approvalTargetColumns } from "./approval-columns";
import { toApprovalView, type ApproveResult } from "./approval-view";
import { toJsonColumn } from "../db/json-column";
import { previewEffects } from "../../effects/preview";
import { requirementsOf, type GateRequirement } from "../../gate-policy/evaluate";
import { authorsOf } from "../../gate-policy/authors";
import { suggestersOf } from "./suggesters";
import { giveApproval } from "../lifecycle/approval-lifecycle";
import { refuseStaleRecords } from "../account-data/stale-records";
import { concurrentRunsOf, type ConcurrentRun } from "../plans/concurrent-runs";
import { consumeSignature, verifyOfferedSignature } from "../signatures/verify-signature";

/** Idempotency scope of a person's approvals of one run. */
const scopeOf = (viewer: Viewer, runId: string) => `user:${viewer.id}:approve:${runId}`;

/**
 * Approves steps of the run's current plan version as `viewer` (docs/design.md §5, docs/api.md
 * `POST /api/runs/{runId}/approvals`). Each approval is a contract: run, step, tool, target,
 * reviewed plan version, bound task revision, approved arguments and digest, authority (grant
 * and limit), expiry, state `active`. Checked at decision time: expiry, plan version, task
 * revision, a fresh validation of the plan against live account data, the approve grant and its
 * ceiling per step and per run (a ceiling bounds what one person lets a run move per tool), and
 * acknowledgement of every warning that needs one on an approved step — including a reply whose
 * promise is backed by a step that stays unapproved after this decision.
 * Each approval stores the step's expected effect (`expectedEffect`, lib/effects/preview.ts, from
 * the same live account data) and its `approved` audit event carries it too.
 * Four eyes: the gate policy version the run was gated under says how many distinct
 * people must approve each step (one or two) and whether its author may be one of them; a step is
 * approved when that many different people approved its digest, each within their grant, and the
 * run is approved when every step is. Each approval records the policy version and rule.
 * Idempotent: the same `idempotencyKey` returns the saved result and creates nothing (also when
 * requests race: the saved answer is a unique row written with the approvals).
 * Errors: 404; 409 `expired`, `run_not_pending`, `stale_plan_version` {currentVersion, plan},
 * `stale_task` {boundRevision, liveRevision}, `idempotency_conflict`; 403 `approval_denied`
 * {stepId, tool, denial} (audited `denied`), `author_may_not_approve` {stepId, authors} (audited
 * `denied`); 409 `already_approved_by_you` {stepId} (a listed step this person already approved;
 * with `"all"` such steps, and steps the viewer authored under a rule that excludes authors, are
 * skipped); 422 `acknowledgement_required` {required},
 * A listed step that was already fully approved adds nothing and is named in `alreadyApproved`;
 * `added` counts the approvals this decision added (the route answers 200 instead of 201 when 0).
 * `validation_failed` {issues}; 400 `bad_request` for a step id not in the plan; 409
 * `stale_account_data` {stepId, record, syncedAt, ageMinutes, maxRecordAgeMinutes}: a target step's
 * record was synced longer ago than its governing rule's `maxRecordAgeMinutes` (or never) — nothing
 * is approved (lib/server/account-data/stale-records.ts); 409 `concurrent_run_unacknowledged` {runs:
 * [{id, status}]}: another run of the task is being executed (lib/lifecycle/run-state.ts
 * `isBeingExecuted`) and `acknowledgedConcurrentRuns` does not name it — nothing is approved.
 * That check is made inside the transaction, under the run's lock, so a run that started executing
 * after the page was loaded is seen; the acknowledged runs are recorded in each `approved` (and
 * `approved_again`) audit event as `concurrentRunsAcknowledged`. A decision that adds nothing needs
 * no acknowledgement.
 * Signed approvals: a target step whose governing rule says `requireSignature` is approved only
 * with `body.signature`, verified before anything is written (lib/server/signatures/verify-signature.ts:
 * 403 `signature_required`, 403 `signature_mismatch`, 409 `signature_replayed`); its nonce is consumed in
 * the approval's transaction, and the approval and its `approved` event store the assertion.
 * Traced as a `approve` span (lib/server/trace/span.ts).
 */
export function approveSteps(...args: Parameters<typeof approveStepsUntraced>): ReturnType<typeof approveStepsUntraced> {
  return inSpan("approve", () => approveStepsUntraced(...args));
}

/** `approveSteps` without its `approve` trace span. */
async function approveStepsUntraced(viewer: Viewer, runId: string, body: ApproveBody, now = new Date()): Promise<ApproveResult> {
  const scope = scopeOf(viewer, runId);
  const ackedRuns = [...new Set(body.acknowledgedConcurrentRuns ?? [])].sort();
  // (the acknowledged runs join the hash only when given, so earlier saved answers keep their hash)
  const requestHash = requestHashOf({ planVersion: body.planVersion, stepIds: body.stepIds, acknowledgedWarnings: body.acknowledgedWarnings ?? [], ...(ackedRuns.length ? { acknowledgedConcurrentRuns: ackedRuns } : {}) });
  const saved = await findSavedAnswer<ApproveResult>(prisma, scope, body.idempotencyKey, requestHash);
  if (saved) return saved.body;

  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") {
    await expireIfDue(runId, now);
    throw new DomainError("expired", `This run expired at ${run.expiresAt.toISOString()}; it can no longer be approved.`, { expiresAt: run.expiresAt.toISOString() });
  }
  refuseIfStoppedForStaleTask(run, "approved");
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; there is nothing to approve.`, { status });
  const version = run.planVersions.find((p) => p.version === run.planVersion);
  const plan = { version: run.planVersion, steps: storedSteps(version?.steps) };
  if (body.planVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed: it is now at version ${run.planVersion}; you reviewed version ${body.planVersion}.`, {
      currentVersion: run.planVersion,
      plan,
    });
  }
  // The task as it stands (a revised task refuses) and live account data; the policy version the
  // run's plan was gated under governs its approvals (null: the built-in defaults).
  const reads = storedReads(version?.reads);
  const ctx = await loadPlanContext(run, { steps: plan.steps, reads, now, policy: "recorded", action: "approved" });
  const { desk, catalog, gateRules } = ctx;
  // A run that needs a new decision after some of its steps were claimed: what was written stays
  // written and is not judged again; the steps still to run are checked alone against live data.
  const claimedIds = new Set(run.executions.filter((e) => e.planVersion === plan.version).map((e) => e.stepId));
  const toJudge = claimedIds.size ? { ...plan, steps: plan.steps.filter((s) => !claimedIds.has(s.id)).map(({ dependsOn: _order, ...s }) => s) } : plan;
  const check = checkPlan(reads.length ? { ...toJudge, reads } : toJudge, ctx, runId, now);
  if (!check.ok) {
    throw new DomainError("validation_failed", "The plan no longer passes validation against current account data; edit or reject it.", { issues: check.issues });
  }
  const requirements = requirementsOf(plan.steps, (name) => catalog.get(name), gateRules);
  const active = run.approvals.filter((a) => a.planVersion === plan.version && a.state === "active");
  const progress = stepProgress(plan.steps, active, requirements);
  const approvedIds = new Set(plan.steps.filter((s) => progress.get(s.id)!.complete || claimedIds.has(s.id)).map((s) => s.id));
  const targets = await fourEyes(viewer, runId, chooseTargets(plan.steps, body.stepIds, approvedIds, plan.version), body.stepIds === "all", progress, requirements);
  // A run that needs a new decision (its next step could not be claimed): approving it again is
  // this person's decision on the blocked step, within their own authority, after the fresh
  // validation above — even where the step's earlier approvals still stand.
  const reason = status === "needs_decision" ? storedDecisionReason(run.decisionReason) : null;
  const blocked = reason ? plan.steps.find((s) => s.id === reason.stepId && !claimedIds.has(s.id)) : undefined;
  const decideAgain = blocked && !targets.some((t) => t.id === blocked.id) && (body.stepIds === "all" || body.stepIds.includes(blocked.id)) ? blocked : undefined;
  await checkAuthority(viewer, runId, plan.steps, decideAgain ? [...targets, decideAgain] : targets, active.filter((a) => a.approverId === viewer.id).map((a) => a.stepId));
  refuseStaleRecords(decideAgain ? [...targets, decideAgain] : targets, desk, (s) => requirements[s.id]?.maxRecordAgeMinutes ?? null, now, catalog);
  const acknowledged = body.acknowledgedWarnings ?? [];
  const completing = targets.filter((s) => progress.get(s.id)!.missing <= 1).map((s) => s.id);
  const decided = new Set([...approvedIds, ...completing, ...autoGated(check.gate)]);
  const awaiting = promisesAwaitingApproval(plan.steps.map((step) => ({ step, tool: catalog.get(step.tool) })), decided, now);
  requireAcknowledgements([...check.issues, ...awaiting], targets, acknowledged);
  requireSupervisorFor(check.issues, targets, viewer);
  // The effect each approver saw, from the same live data this decision was validated on.
  const expected = new Map(previewEffects(plan.steps, desk, catalog).map((e) => [e.stepId, e]));
  // Signed approvals: the steps whose rule requires the approver's signature are approved only with
  // an assertion over exactly this run, version, these digests and this person, verified now.
  const signedSteps = (decideAgain ? [...targets, decideAgain] : targets).filter((s) => requirements[s.id]?.requireSignature);
  const verified = signedSteps.length ? await verifyOfferedSignature(viewer, runId, plan.version, signedSteps, plan.steps, body.signature, now) : null;
  const signature = verified?.record ?? null;
  const signedIds = new Set(signedSteps.map((s) => s.id));

  // Row locks (docs/design.md "Transactions and locks"): the run's lock first, then every read.
  // Anomaly prevented: write skew on four eyes — two approvers (or one person's two tabs, or two
  // requests with one idempotency key) each reading the step one approval short and both adding
  // theirs into the same slot, or the run settled as approved from a reading that missed the
  // other's approval. Provoked by lib/server/db/row-lock-anomalies.test.ts on both databases.
  return inTransaction(async (tx) => {
    // The lock also reads the run's version, status and deadline (one statement on PostgreSQL).
    const current = await lockRunReading(tx, runId);
    if (!current) throw new Error(`run ${runId} is gone`); // runs are never deleted
    const again = await findSavedAnswer<ApproveResult>(tx, scope, body.idempotencyKey, requestHash);
    if (again) return ok(again.body);
    if (current.planVersion !== plan.version || !WAITING_STATES.includes(effectiveStatus(current.status as RunStatus, current.expiresAt, now))) {
      throw new DomainError("stale_plan_version", "The plan changed while you were approving.", { currentVersion: current.planVersion });
    }
    // Another plan for this task being executed, read now, under the run's lock: a run
    // that began executing after the page was loaded is seen here, and refuses until acknowledged.
    const concurrent = targets.length || decideAgain ? await concurrentRunsOf(tx, { id: runId, taskId: run.taskId, desk: run.desk, status: current.status }) : [];
    refuseUnacknowledgedConcurrentRuns(concurrent, ackedRuns);
    // The nonce is single use: of two approvals racing with one assertion, one wins (signature_replayed).
    if (verified) await consumeSignature(tx, verified, now);
    const concurrentAudit = concurrent.length ? { concurrentRunsAcknowledged: concurrent } : {};
    // Re-read inside the run's lock: another approver may have completed a step or taken its slot meanwhile.
    const rows = targets.length === 0 ? [] : await tx.approval.findMany({
      where: { runId, planVersion: plan.version, stepId: { in: targets.map((s) => s.id) } },
      select: { stepId: true, approverId: true, approverSlot: true, approvalsRequired: true, state: true },
    });
    let added = 0;
    for (const step of targets) {
      const mine = rows.filter((r) => r.stepId === step.id);
      const live = mine.filter((r) => r.state === "active");
      const req = requirements[step.id];
      const need = live.length ? Math.max(...live.map((r) => r.approvalsRequired)) : Math.max(1, req?.approvalsRequired ?? 1);
      if (live.length >= need) continue; // complete: nothing to add
      if (mine.some((r) => r.approverId === viewer.id)) {
        // Their earlier approval of this version was withdrawn (approval_revoked): one person, one approval of a step.
        if (!live.some((r) => r.approverId === viewer.id)) throw alreadyApproved(step.id);
        if (body.stepIds === "all") continue;
        throw alreadyApproved(step.id);
      }
      const slot = Math.max(0, ...mine.map((r) => r.approverSlot)) + 1;
      const tool = catalog.get(step.tool)!;
      const amount = tool.amount(step.args as never);
      const grant = viewer.grants.find((g) => g.tool === step.tool)!;
      const acks = acknowledged.filter((a) => a.stepId === step.id);
      const columns = approvalTargetColumns(step, desk, catalog);
      added++;
      await giveApproval(tx, {
        id: `apr_${nanoid(12)}`,
        runId,
        stepId: step.id,
        planVersion: plan.version,
        tool: step.tool,
        // Only the first approver's row carries the money, so money in flight counts a step once.
        ...(slot === 1 ? columns : { ...columns, amountMinor: null, amountCurrency: null }),
        args: step.args as Prisma.InputJsonValue,
        digest: digest(step),
        boundTaskRevision: run.boundTaskRevision,
        approverId: viewer.id,
        authority: toJsonColumn({ kind: "grant", userId: viewer.id, role: viewer.role, tool: step.tool, limit: grant.approveLimit, amount: amount ?? null, policyVersion: req?.policyVersion ?? 0, ruleId: req?.ruleId ?? null }),
        acknowledged: toJsonColumn(acks),
        ...(expected.has(step.id) ? { expectedEffect: toJsonColumn(expected.get(step.id)) } : {}),
        expiresAt: run.expiresAt,
        approverSlot: slot,
        approvalsRequired: need,
        policyVersion: req?.policyVersion || null,
        policyRuleId: req?.ruleId ?? null,
        ...(signature && signedIds.has(step.id) ? { signature: toJsonColumn(signature) } : {}),
      });
      await appendAudit(tx, {
        runId,
        type: "approved",
        actor: { kind: "user", id: viewer.id },
        data: {
          stepId: step.id,
          tool: step.tool,
          planVersion: plan.version,
          digest: digest(step),
          amount: amount ?? null,
          acknowledged: acks,
          expectedEffect: expected.get(step.id) ?? null,
          policyVersion: req?.policyVersion ?? 0,
          policyRuleId: req?.ruleId ?? null,
          approverSlot: slot,
          approvalsRequired: need,
          approvalsGiven: live.length + 1,
          approverIds: [...live.map((r) => r.approverId).filter((a): a is string => a !== null), viewer.id],
          ...(signature && signedIds.has(step.id) ? { signature } : {}),
          ...concurrentAudit,
        },
      });
    }
    // A hand-off to this person (or their role) is answered by their decision.
    await tx.approvalRequest.updateMany({ where: { runId, resolvedAt: null, OR: [{ toUserId: viewer.id }, { toRole: viewer.role }] }, data: { resolvedAt: now } });
    if (decideAgain) {
      await appendAudit(tx, {
        runId,
        type: "approved_again",
        actor: { kind: "user", id: viewer.id },
        data: { stepId: decideAgain.id, tool: decideAgain.tool, planVersion: plan.version, digest: digest(decideAgain), reasonCode: reason!.code, reason: reason!.message, ...concurrentAudit },
      });
    }
    await settleReview(tx, runId, plan.version, plan.steps.map((s) => s.id));
    // Plan versions are never changed or deleted once written, and the run is still at the version
    // read before this transaction (checked under its lock above; versions only grow), so that
    // reading's versions stand: only the run row, its approvals and executions are read again.
    const fresh = await tx.run.findUniqueOrThrow({ where: { id: runId }, include: { approvals: true, executions: true } });
    const after: RunWithRelations = { ...fresh, planVersions: run.planVersions };
    const listed = body.stepIds === "all" ? [] : [...new Set(body.stepIds)];
    const result: ApproveResult = {
      approvals: after.approvals.filter((a) => a.planVersion === plan.version && a.state === "active").sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map(toApprovalView),
      run: toRunView(after, now),
      alreadyApproved: listed.filter((id) => approvedIds.has(id)),
      added,
      ...(decideAgain ? { approvedAgain: [decideAgain.id] } : {}),
    };
    await saveAnswer(tx, scope, body.idempotencyKey, requestHash, { status: 201, body: result });
    return ok(result);
  }, prisma, { isolation: "row-locks" });
}

/** The steps to approve: all not yet approved, or the listed ones (400 `bad_request` for an id not in the plan). */
function chooseTargets(steps: Step[], stepIds: ApproveBody["stepIds"], approvedIds: Set<string>, version: number): Step[] {
  if (stepIds === "all") return steps.filter((s) => !approvedIds.has(s.id));
  const byId = new Map(steps.map((s) => [s.id, s]));
  const ids = [...new Set(stepIds)];
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length) throw new DomainError("bad_request", `No step ${unknown.join(", ")} in plan version ${version}.`, { stepIds: unknown });
  return ids.map((id) => byId.get(id)!).filter((s) => !approvedIds.has(s.id));
}

/**
 * The approve grant of `viewer` for every target step, and its ceiling per step and for the
 * total this person lets the run move per tool (their earlier approvals `mineIds` included), so
 * splitting a payment into smaller steps does not get around a ceiling. Errors: 403
 * `approval_denied` {stepId, tool, denial}, audited `denied`.
 */
async function checkAuthority(viewer: Viewer, runId: string, steps: Step[], targets: Step[], mineIds: string[]): Promise<void> {
  const deny = async (step: Step, denial: NonNullable<ReturnType<typeof checkGrant>>, message: string, cumulative = false) => {
    await appendAudit(prisma, {
      runId,
      type: "denied",
      actor: { kind: "user", id: viewer.id },
      data: { action: "approve", stepId: step.id, tool: step.tool, missing: denial, ...(cumulative ? { cumulative: true } : {}) },
    });
    return new DomainError("approval_denied", message, { stepId: step.id, tool: step.tool, denial });
  };
  for (const step of targets) {
    const denial = checkGrant(viewer.grants, "approve", step.tool, getTool(step.tool)?.amount(step.args as never));
    if (denial) {
      throw await deny(
        step,
        denial,
        denial.code === "no_grant"
          ? `You have no grant to approve ${step.tool} steps.`
          : `Your approval limit for ${step.tool} is ${formatMoney(denial.limit)}; this step moves ${formatMoney(denial.amount)}.`,
      );
    }
  }
  const totals = new Map<string, Money>();
  for (const step of [...steps.filter((s) => mineIds.includes(s.id)), ...targets]) {
    const amount = getTool(step.tool)?.amount(step.args as never);
    if (!amount) continue;
    const prev = totals.get(step.tool);
    const total = prev && prev.currency === amount.currency ? { minor: prev.minor + amount.minor, currency: amount.currency } : (prev ?? amount);
    totals.set(step.tool, total);
    const denial = targets.includes(step) ? checkGrant(viewer.grants, "approve", step.tool, total) : null;
    if (denial?.code === "over_limit") {
      throw await deny(
        step,
        denial,
        `Your approval limit for ${step.tool} is ${formatMoney(denial.limit)} per run; with this step you would approve ${formatMoney(total)} in this run.`,
        true,
      );
    }
  }
}

/**
 * A step outside the task's contract that the gate policy lets a supervisor decide (an issue with
 * `details.decisionBy: "supervisor"`) is approved by a supervisor or an admin only.
 * Errors: 403 `approval_denied` {stepIds}.
 */
function requireSupervisorFor(issues: ValidationIssue[], targets: Step[], viewer: { role: string }): void {
  if (viewer.role === "supervisor" || viewer.role === "admin") return;
  const targetIds = new Set(targets.map((s) => s.id));
  const stepIds = [...new Set(issues.filter((i) => i.stepId && targetIds.has(i.stepId) && i.details?.decisionBy === "supervisor").map((i) => i.stepId!))];
  if (stepIds.length) throw new DomainError("approval_denied", "A step outside the task's contract needs a supervisor's approval.", { stepIds });
}

/**
 * Every other run of the task being executed (`concurrent`) must be named in the approval's
 * `acknowledgedConcurrentRuns` (`acked`): else 409 `concurrent_run_unacknowledged` {runs: [{id,
 * status}]} naming the ones missing. Source: docs/design.md "The moment of the write" (two plans
 * for one task never both write unnoticed).
 */
function refuseUnacknowledgedConcurrentRuns(concurrent: ConcurrentRun[], acked: readonly string[]): void {
  const missing = concurrent.filter((r) => !acked.includes(r.id));
  if (missing.length === 0) return;
  const named = missing.map((r) => `run ${r.id} (${r.status.replace(/_/g, " ")})`).join(", ");
  throw new DomainError(
    "concurrent_run_unacknowledged",
    `Another plan for this task is being executed: ${named}. Approving this plan lets both write; acknowledge ${missing.length === 1 ? "it" : "them"} to approve (acknowledgedConcurrentRuns). Nothing was approved.`,
    { runs: missing },
  );
}

/** Every warning needing acknowledgement on a target step must be acknowledged (422 `acknowledgement_required`). */
function requireAcknowledgements(issues: ValidationIssue[], targets: Step[], acknowledged: { code: string; stepId: string }[]): void {
  const targetIds = new Set(targets.map((s) => s.id));
  const required = issues
    .filter((i) => i.needsAcknowledgement && i.stepId && targetIds.has(i.stepId))
    .filter((i) => !acknowledged.some((a) => a.code === i.code && a.stepId === i.stepId));
  if (required.length) {
    throw new DomainError("acknowledgement_required", required.map((i) => i.message).join(" "), {
      required: required.map((i) => ({ code: i.code, stepId: i.stepId, message: i.message })),
    });
  }
}

/** Per step: the distinct active approvers, how many the step needs, how many are missing. */
type StepProgress = { approverIds: string[]; need: number; missing: number; complete: boolean };

/**
 * Progress of every step of the plan from its active approvals and requirements: a
 * step's need is what its existing approvals recorded (a decision already made is never changed
 * by a later rule), else what the governing rule asks (at least one).
 */
function stepProgress(
  steps: Step[],
  active: { stepId: string; approverId: string | null; approvalsRequired: number }[],
  requirements: Record<string, GateRequirement>,
): Map<string, StepProgress> {
  const out = new Map<string, StepProgress>();
  for (const s of steps) {
    const rows = active.filter((a) => a.stepId === s.id);
    const need = rows.length ? Math.max(...rows.map((r) => r.approvalsRequired)) : Math.max(1, requirements[s.id]?.approvalsRequired ?? 1);
    const approverIds = rows.map((r) => r.approverId).filter((a): a is string => a !== null);
    out.set(s.id, { approverIds, need, missing: Math.max(0, need - rows.length), complete: rows.length >= need });
  }
  return out;
}

/** 409 `already_approved_by_you`: the same person cannot be two of a step's approvers. */
function alreadyApproved(stepId: string): DomainError {
  return new DomainError("already_approved_by_you", `You already approved step ${stepId}; it needs another person's approval.`, { stepId });
}

/**
 * Four eyes on the chosen targets: a listed step this person already approved is 409
 * `already_approved_by_you`; a listed step they authored under a rule with `authorMayApprove:
 * false` is 403 `author_may_not_approve` (audited `denied`). With `all`, such steps are skipped.
 */
async function fourEyes(viewer: Viewer, runId: string, targets: Step[], all: boolean, progress: Map<string, StepProgress>, requirements: Record<string, GateRequirement>): Promise<Step[]> {
  const kept: Step[] = [];
  const suggesters = await suggestersOf(runId, targets);
  for (const step of targets) {
    if (progress.get(step.id)?.approverIds.includes(viewer.id)) {
      if (all) continue;
      throw alreadyApproved(step.id);
    }
    const req = requirements[step.id];
    const authors = [...new Set([...authorsOf(step), ...(suggesters.get(step.id) ?? [])])].sort();
    if (req && !req.authorMayApprove && authors.includes(viewer.id)) {
      if (all) continue;
      await appendAudit(prisma, {
        runId,
        type: "denied",
        actor: { kind: "user", id: viewer.id },
        data: { action: "approve", stepId: step.id, tool: step.tool, missing: { code: "author_may_not_approve" }, policyVersion: req.policyVersion, policyRuleId: req.ruleId },
      });
      throw new DomainError("author_may_not_approve", `You authored step ${step.id}; under gate policy version ${req.policyVersion} its approvers must be other people.`, { stepId: step.id, authors });
    }
    kept.push(step);
  }
  return kept;
}
