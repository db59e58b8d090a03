import { nanoid } from "nanoid";
import { inSpanSync, traceGate } from "../trace/span";
import type { SubmitRunBody } from "../../api/bodies";
import { utcDateOf } from "../../time/dates";
import { DomainError } from "../../errors/domain-error";
import { runDeadlines } from "../../plan/policy";
import { taskContractContext } from "../tasks/task-contract";
import { validatePlan } from "../../validation/pipeline";
import type { ValidationIssue } from "../../validation/types";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import type { AccountSnapshot } from "../../desk/snapshot";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { bindKey, findSavedAnswer, requestHashOf, saveAnswerOverBinding } from "../http/idempotency";
import { fromStates, isTerminal } from "../../lifecycle/run-state";
import { createRun, moveRunsReturning } from "../lifecycle/run-lifecycle";
import { agentDesk, type AgentCaller } from "../auth/viewer";
import { currentCatalog } from "../tools/imported-tools";
import { inTransaction, ok, type DbOrTx, type Tx } from "../db/transaction";
import { loadRun } from "../plans/load-run";
import { createPolicyApprovals } from "../approvals/policy-approvals";
import { storePlanVersion } from "../plans/store-plan-version";
import { gateRulesFor } from "../gate-policy/load-gate-policy";
import { deskRulesFor } from "../desk-rules/load-desk-rules";
import { policyDeadlines, requirementsOf } from "../../gate-policy/evaluate";
import { withPolicyDeadlines } from "../../plan/policy";
import { toRunView, type RunView, type RunWithRelations } from "../plans/run-view";
import { planFacts, toStoredRequirements } from "../plans/stored-plan";
import { splitAgentPlan } from "../../reads/agent-plan";
import { stepWithoutStrictNulls } from "../../plan/strict-nulls";
import { moveApprovalsCountingByRun } from "../lifecycle/approval-lifecycle";

/**
 * An agent may not record that a person set a value (docs/design.md §3: provenance is never
 * relabelled): `operator` provenance in a submission is an error issue of the shape stage.
 */
function agentProvenanceIssues(steps: unknown[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  steps.forEach((s, index) => {
    const prov = (s as { provenance?: unknown } | null)?.provenance;
    if (!prov || typeof prov !== "object") return;
    for (const [key, p] of Object.entries(prov as Record<string, unknown>)) {
      if ((p as { kind?: unknown } | null)?.kind === "operator") {
        issues.push({
          stage: "shape",
          code: "invalid_provenance",
          severity: "error",
          stepId: typeof (s as { id?: unknown }).id === "string" ? (s as { id: string }).id : undefined,
          path: `steps.${index}.provenance.${key}`,
          message: `An agent cannot record that a person set "${key}"; operator provenance is written by Plandesk when a person edits`,
        });
      }
    }
  });
  return issues;
}

/** Gives every step object without an `id` a fresh one, and stamps agent authorship. */
function prepareAgentSteps(raw: unknown[]): unknown[] {
  return raw.map((s) => {
    if (typeof s !== "object" || s === null || Array.isArray(s)) return s;
    const step = { ...(s as Record<string, unknown>) };
    if (step.id === undefined) step.id = `st_${nanoid(10)}`;
    step.author = { kind: "model" }; // an agent cannot claim a person's authorship
    return step;
  });
}

/** Ids of the task's waiting runs a new run (not an addition) supersedes — as `supersedeWaitingRuns` selects them, all of them. */
async function runsToSupersede(taskId: string, agentId: string, now: Date): Promise<Set<string>> {
  const rows = await prisma.run.findMany({ where: { taskId, agentId, status: { in: fromStates("supersede") }, expiresAt: { gt: now } }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

/**
 * Money held by runs this submission supersedes is not in flight for it: their approvals are
 * withdrawn in the same transaction that stores the new run (one task one live plan).
 * Mutates `desk.inFlight`.
 */
function withoutHoldsOfRunsToSupersede(desk: AccountSnapshot, superseded: Set<string>): void {
  if (!desk.inFlight || superseded.size === 0) return;
  for (const [invoiceId, holds] of Object.entries(desk.inFlight)) desk.inFlight[invoiceId] = holds.filter((h) => !superseded.has(h.runId));
}

/**
 * One task, one live plan: every run of `taskId` by `agentId` still waiting for a decision or for
 * its first claim (pending_review or approved, not expired at `now`) is superseded by `newRunId`
 * (lifecycle `supersede`), its active approvals withdrawn, audited `superseded`. Runs already
 * executing are left alone (their writes are under way). Set-based, without a ceiling: one UPDATE
 * of the runs, one of their approvals, then one audit event per superseded run. Returns the
 * superseded run ids, newest first.
 */
async function supersedeWaitingRuns(tx: Tx, taskId: string, agentId: string, newRunId: string, actor: Actor, now: Date): Promise<string[]> {
  const moved = await moveRunsReturning(tx, "supersede", { taskId, agentId, expiresAt: { gt: now } }, { supersededById: newRunId });
  if (moved.length === 0) return [];
  const withdrawn = await moveApprovalsCountingByRun(tx, "invalidate", { run: { supersededById: newRunId } });
  for (const r of moved) {
    await appendAudit(tx, { runId: r.id, type: "superseded", actor, data: { supersededById: newRunId, taskId, approvalsWithdrawn: withdrawn.get(r.id) ?? 0 } });
  }
  return moved.map((r) => r.id);
}

/**
 * One task, one live plan, per agent: a submission (not an addition) on a task where ANOTHER
 * agent has a live run — waiting for a decision or its first claim and not past its deadline, or
 * executing — is refused 409 `task_has_live_run` {runId, agentId, status}, naming the newest such
 * run. An agent supersedes only its own runs.
 */
async function refuseIfOtherAgentsLiveRun(db: DbOrTx, taskId: string, agentId: string, now: Date): Promise<void> {
  const live = await db.run.findFirst({
    where: {
      taskId,
      agentId: { not: agentId },
      OR: [{ status: { in: fromStates("supersede") }, expiresAt: { gt: now } }, { status: "executing" }],
    },
    select: { id: true, agentId: true, status: true },
    orderBy: { createdAt: "desc" },
  });
  if (live) {
    throw new DomainError(
      "task_has_live_run",
      `Task ${taskId} already has a live plan of another agent (run ${live.id}, ${live.status}); wait for it to end, or submit with addition: true.`,
      { runId: live.id, agentId: live.agentId, status: live.status },
    );
  }
}

/**
 * A repeated submission whose run has ended (a session proposing again after its run finished)
 * is not answered with the old run as if it were pending: 409 `already_completed` {runId, status,
 * outcome} tells the agent what became of it; a new key (or a new session) starts a new run.
 */
function refuseIfEnded(run: RunView): RunView {
  if (!isTerminal(run.status)) return run;
  throw new DomainError("already_completed", `This submission's run ${run.id} already ended (${run.status}); nothing was submitted again. ${run.outcome?.message ?? ""}`.trim(), {
    runId: run.id,
    status: run.status,
    outcome: run.outcome,
  });
}

/** Idempotency scope of an agent's submissions. */
const scopeOf = (agent: Pick<AgentCaller, "id">) => `agent:${agent.id}:submit`;

/**
 * The run a submission of agent `agentId` with idempotency key `key` made, or null when none was
 * made with that key (never submitted, or only refused: a binding without an answer). One read by
 * the primary key of the idempotency record (scope, key); the request it was made for is not compared.
 */
export async function submittedRunIdOf(agentId: string, key: string): Promise<string | null> {
  const rec = await prisma.idempotencyRecord.findUnique({ where: { scope_key: { scope: scopeOf({ id: agentId }), key } }, select: { status: true, body: true } });
  const runId = rec && rec.status === 201 ? (rec.body as { runId?: unknown } | null)?.runId : null;
  return typeof runId === "string" ? runId : null;
}

/**
 * Submits an agent's plan for `taskId` (docs/api.md `POST /api/v1/tasks/{taskId}/runs`).
 * Validates through the one pipeline (docs/design.md §1) against the account data the plan names;
 * on success stores, in one transaction, the run (pending_review, or approved when every step is
 * auto-gated), plan version 1, policy approvals for auto steps and the audit events — and, unless
 * `body.addition`, supersedes the task's other waiting runs (one task, one live plan).
 * Idempotent per (agent, `idempotencyKey`): a repeat of the same request returns the run as it
 * is now with `replayed: true` — or, once that run has ended, 409 `already_completed`; the same key with another task or body is 409 `idempotency_conflict`.
 * A refusal saves no answer (it may change: live data, the catalog, the task) but binds the key to
 * the request, so the same request is decided afresh and another one with the key is 409 `idempotency_conflict`.
 * Errors: 404 `not_found`; 409 `stale_task` {boundRevision, liveRevision}; 409 `task_has_live_run`
 * {runId, agentId, status}; 409 `already_completed` {runId, status, outcome}; 422 `validation_failed`
 * {issues} (audited `submission_refused`).
 */
export async function submitRun(
  agent: AgentCaller,
  taskId: string,
  body: SubmitRunBody,
  idempotencyKey: string | null,
  now = new Date(),
): Promise<{ run: RunView; replayed: boolean }> {
  try {
    return await submitRunOnce(agent, taskId, body, idempotencyKey, now);
  } catch (e) {
    // A refused submission binds its key to its request (docs/api-extensions.md "Idempotency of a
    // refused submission"): the same body again is decided afresh, another body is idempotency_conflict.
    if (idempotencyKey && e instanceof DomainError && BINDING_REFUSALS.has(e.code)) {
      await bindKey(prisma, scopeOf(agent), idempotencyKey, requestHashOf({ taskId, body }));
    }
    throw e;
  }
}

/** The refusals of a submission that bind its key to its request (not a conflict, not a replay, not the database's). */
const BINDING_REFUSALS: ReadonlySet<string> = new Set(["validation_failed", "stale_task", "task_has_live_run", "not_found"]);

/** `submitRun` without the binding of a refused submission's key. */
async function submitRunOnce(
  agent: AgentCaller,
  taskId: string,
  body: SubmitRunBody,
  idempotencyKey: string | null,
  now: Date,
): Promise<{ run: RunView; replayed: boolean }> {
  const requestHash = requestHashOf({ taskId, body });
  if (idempotencyKey) {
    const saved = await findSavedAnswer<{ runId: string }>(prisma, scopeOf(agent), idempotencyKey, requestHash);
    if (saved) return { run: refuseIfEnded(toRunView(await loadRun(saved.body.runId), now)), replayed: true };
  }
  // An agent works its own desk's tasks only: another desk's task is simply not found.
  const task = await prisma.task.findFirst({ where: { id: taskId, desk: agentDesk(agent) }, include: { ticket: { select: { id: true, accountId: true } } } });
  if (!task) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  if (body.taskRevision !== task.revision) {
    throw new DomainError("stale_task", `The task is at revision ${task.revision}; this plan was made for revision ${body.taskRevision}.`, {
      boundRevision: body.taskRevision,
      liveRevision: task.revision,
    });
  }
  const catalog = await currentCatalog(); // the run records this catalog version and is validated against it for life
  // Strict-mode nulls: an optional field sent as null is absent (a step's own fields, and its arguments' optional ones).
  const steps = body.steps.map((s) => stepWithoutStrictNulls(s, (tool) => catalog.get(tool)?.argsSchema));
  // Read steps (kind "read" in steps, or the body's reads) apart from the writes; a step's reads/writes folded (lib/reads/agent-plan.ts).
  const parts = splitAgentPlan(steps, body.reads ?? undefined, catalog);
  const candidate = { version: 1, steps: prepareAgentSteps(parts.steps), ...(parts.reads ? { reads: parts.reads } : {}) };
  const desk = await loadAccountSnapshot({ ticketId: task.ticketId, desk: task.desk, steps: candidate.steps, reads: parts.reads, now, catalog });
  if (!body.addition) {
    await refuseIfOtherAgentsLiveRun(prisma, taskId, agent.id, now);
    withoutHoldsOfRunsToSupersede(desk, await runsToSupersede(taskId, agent.id, now));
  }
  // The live gate policy governs the new run; the run records its version.
  const gateRules = await gateRulesFor(prisma, { desk: task.desk, accountId: task.ticket.accountId });
  const taskCtx = await taskContractContext(prisma, task, task.desk);
  const deskRules = { rules: await deskRulesFor(prisma, task.desk) };
  const result = inSpanSync("validate", () => validatePlan(candidate, { desk, now, agentAllowedTools: agent.allowedTools, taskText: task.body, catalog, gateRules, task: taskCtx, deskRules, observeGate: traceGate }));
  result.issues.push(...agentProvenanceIssues(parts.steps));
  const actor: Actor = { kind: "agent", id: agent.id };
  if (result.issues.some((i) => i.severity === "error") || parts.issues.length > 0 || !result.plan) {
    // Paths as the agent sent them (a read step sent among the steps moved to `reads`).
    const issues = [...parts.pathsAsSent(result.issues), ...parts.issues];
    await appendAudit(prisma, { type: "submission_refused", actor, data: { taskId, issues } });
    throw new DomainError("validation_failed", "The plan did not pass validation.", { issues });
  }
  const plan = result.plan;
  const requirements = requirementsOf(plan.steps, (name) => catalog.get(name), gateRules);
  const validation = { issues: result.issues, gate: result.gate, requirements: toStoredRequirements(requirements) };
  const hasIrreversible = plan.steps.some((s) => catalog.get(s.tool)?.effect === "irreversible");
  const { expiresAt, escalateAt } = withPolicyDeadlines(now, runDeadlines(now, hasIrreversible, body.expiresInSeconds ?? undefined), policyDeadlines(requirements));
  const allAuto = plan.steps.every((s) => result.gate[s.id] === "auto");

  const created = await inTransaction<{ runId: string; row: RunWithRelations | null }>(async (tx) => {
    if (idempotencyKey) {
      const saved = await findSavedAnswer<{ runId: string }>(tx, scopeOf(agent), idempotencyKey, requestHash);
      if (saved) return ok({ runId: saved.body.runId, row: null });
    }
    const runId = `run_${nanoid(12)}`;
    if (!body.addition) await refuseIfOtherAgentsLiveRun(tx, taskId, agent.id, now);
    const superseded = body.addition ? [] : await supersedeWaitingRuns(tx, taskId, agent.id, runId, actor, now);
    const data = {
      id: runId,
      taskId,
      agentId: agent.id,
      planVersion: 1,
      approvedVersion: allAuto ? 1 : null,
      boundTaskRevision: task.revision,
      expiresAt,
      escalateAt,
      idempotencyKey,
      requestHash,
      catalogVersion: catalog.version,
      policyVersion: gateRules.policy.version || null,
      createdAt: now,
      ticketId: task.ticketId,
      accountId: task.ticket.accountId,
      desk: task.desk,
      createdDay: utcDateOf(now),
      ...planFacts(plan.steps, validation),
      addition: body.addition ?? false,
      supersedesId: superseded[0] ?? null,
    };
    await createRun(tx, allAuto ? "submit_auto_approved" : "submit_for_review", data);
    const { row: version, stake } = await storePlanVersion(tx, runId, plan, validation, null, now);
    const approvals = await createPolicyApprovals(tx, runId, plan, result.gate, desk, task.revision, expiresAt, requirements, catalog);
    await appendAudit(tx, { runId, type: "submitted", actor, data: { taskId, taskRevision: task.revision, steps: plan.steps.length } });
    await appendAudit(tx, { runId, type: "validated", actor: { kind: "system" }, data: { planVersion: 1, ok: true, ...validation } });
    if (idempotencyKey) await saveAnswerOverBinding(tx, scopeOf(agent), idempotencyKey, requestHash, { status: 201, body: { runId } });
    const row: RunWithRelations = {
      ...data,
      ...stake,
      status: allAuto ? "approved" : "pending_review",
      escalatedAt: null,
      rejectionReason: null,
      stopReason: null,
      decisionReason: null,
      updatedAt: now,
      editCount: 0,
      editTouched: null,
      editFraction: null,
      supersededById: null,
      assigneeId: null,
      assignedAt: null,
      planVersions: [version],
      approvals,
      executions: [],
    };
    return ok({ runId, row });
  });
  if (!created.row) return { run: refuseIfEnded(toRunView(await loadRun(created.runId), now)), replayed: true };
  return { run: toRunView(created.row, now), replayed: false };
}
