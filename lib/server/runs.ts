import { createHash } from "node:crypto";
import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { canonicalJson } from "../plan/canonical-json";
import { digest } from "../plan/digest";
import { reasonsOf } from "../plan/reasons";
import type { Author, Plan, Step, StepReasons } from "../plan/schema";
import { runDeadlines } from "../policy";
import { validatePlan } from "../validation/pipeline";
import type { ValidationIssue, ValidationResult } from "../validation/types";
import { appendAudit, type Actor } from "./audit";
import { prisma } from "./db";
import { loadDeskSnapshot } from "./desk-data";
import type { AgentCaller } from "./session";
import { currentCatalog } from "./tool-catalog";
import { getTool } from "../tools/catalog";

/** Body of `POST /api/v1/tasks/{taskId}/runs` (API.md). Steps are checked by the pipeline, not here. */
export const submitRunBodySchema = z
  .object({
    taskRevision: z.number().int().min(1),
    steps: z.array(z.unknown()),
    expiresInSeconds: z.number().int().positive().optional(),
  })
  .strict();
export type SubmitRunBody = z.infer<typeof submitRunBodySchema>;

/** Run statuses of API.md. */
export const RUN_STATUSES = [
  "pending_review",
  "approved",
  "rejected",
  "expired",
  "executing",
  "completed",
  "stopped",
  "failed",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A step as the API shows it: the stored step (with its reasons, when the agent gave any) plus digest, gate and approval state. */
export interface RunStepView extends StepReasons {
  id: string;
  position: number;
  tool: string;
  args: Record<string, unknown>;
  provenance: Step["provenance"];
  digest: string;
  author: Author;
  gate: "approval_required" | "auto";
  approval: null | { id: string; state: string; approverId: string | null };
  execution: null | {
    status: string;
    claimedAt: string;
    reportedAt: string | null;
    detail: string | null;
    /** What a supervisor recorded for an `unknown` outcome, or null. */
    resolution: string | null;
    reconciledBy: string | null;
  };
}

/** The `run` object of API.md (plus rejection/stop reasons and deadlines). */
export interface RunView {
  id: string;
  taskId: string;
  ticketId: string;
  agentId: string;
  status: RunStatus;
  planVersion: number;
  approvedVersion: number | null;
  boundTaskRevision: number;
  /** Tool catalog version the run is validated against (null: built-in tools only). */
  catalogVersion: number | null;
  createdAt: string;
  expiresAt: string;
  escalateAt: string;
  rejectionReason: string | null;
  stopReason: unknown;
  steps: RunStepView[];
}

type RunWithRelations = Prisma.RunGetPayload<{
  include: { planVersions: true; approvals: true; executions: true; task: true };
}>;

const runInclude = { planVersions: true, approvals: true, executions: true, task: true } as const;

/** Parses stored steps JSON back into Step[] (written only by this module). */
export function storedSteps(json: unknown): Step[] {
  return Array.isArray(json) ? (json as Step[]) : [];
}

/** Builds the API view of a run (current plan version). Pure over the loaded rows. */
export function toRunView(run: RunWithRelations, now = new Date()): RunView {
  const pv = run.planVersions.find((p) => p.version === run.planVersion);
  const steps = storedSteps(pv?.steps);
  const validation = (pv?.validation ?? {}) as Partial<ValidationResult>;
  const gate = validation.gate ?? {};
  return {
    id: run.id,
    taskId: run.taskId,
    ticketId: run.task.ticketId,
    agentId: run.agentId,
    status: effectiveStatus(run.status as RunStatus, run.expiresAt, now),
    planVersion: run.planVersion,
    approvedVersion: run.approvedVersion,
    boundTaskRevision: run.boundTaskRevision,
    catalogVersion: run.catalogVersion,
    createdAt: run.createdAt.toISOString(),
    expiresAt: run.expiresAt.toISOString(),
    escalateAt: run.escalateAt.toISOString(),
    rejectionReason: run.rejectionReason,
    stopReason: run.stopReason ?? null,
    steps: toStepViews(steps, run.planVersion, run, gate),
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
  gate: Record<string, "approval_required" | "auto">,
  opts: { executionOfVersion?: boolean; resolvedStatus?: boolean } = {},
): RunStepView[] {
  return steps.map((s, i) => {
    const approval = rows.approvals
      .filter((a) => a.stepId === s.id && a.planVersion === version)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
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
      gate: gate[s.id] ?? "approval_required",
      approval: approval ? { id: approval.id, state: approval.state, approverId: approval.approverId } : null,
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

/**
 * A waiting run past its deadline is `expired` whatever the stored status says, so a missed
 * sweep never lets an expired run through (DESIGN.md §10).
 */
export function effectiveStatus(status: RunStatus, expiresAt: Date, now: Date): RunStatus {
  if ((status === "pending_review" || status === "approved") && expiresAt.getTime() <= now.getTime()) return "expired";
  return status;
}

/**
 * Persists expiry of `runId` when due (conditional update; idempotent) and audits it once.
 * Returns true when this call moved the run to `expired`.
 */
export async function expireIfDue(runId: string, now = new Date()): Promise<boolean> {
  const res = await prisma.run.updateMany({
    where: { id: runId, status: { in: ["pending_review", "approved"] }, expiresAt: { lte: now } },
    data: { status: "expired" },
  });
  if (res.count === 1) {
    await prisma.approval.updateMany({ where: { runId, state: "active" }, data: { state: "expired" } });
    await appendAudit(prisma, { runId, type: "expired", actor: { kind: "system" }, data: { at: now.toISOString() } });
    return true;
  }
  return false;
}

/** Loads one run with everything its view needs, or throws 404 `not_found`. */
export async function loadRun(runId: string, where: Prisma.RunWhereInput = {}): Promise<RunWithRelations> {
  const run = await prisma.run.findFirst({ where: { id: runId, ...where }, include: runInclude });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  return run;
}

/** SHA-256 of the canonical `{taskId, body}` of a submission: what an idempotency key stands for. */
function hashSubmission(taskId: string, body: SubmitRunBody): string {
  try {
    return createHash("sha256").update(canonicalJson({ taskId, body }), "utf8").digest("hex");
  } catch {
    return "unhashable";
  }
}

/**
 * A repeated `Idempotency-Key` returns the saved run — but only for the same request; the same key
 * with another task or body is refused (409 `idempotency_conflict`), never answered with a run
 * that is not what the agent asked for.
 */
function replayOrConflict(existing: RunWithRelations, requestHash: string, now: Date): { run: RunView; replayed: boolean } {
  if (existing.requestHash && existing.requestHash !== requestHash) {
    throw new DomainError("idempotency_conflict", "This Idempotency-Key was already used for a different submission; use a new key for a new plan.", {
      runId: existing.id,
    });
  }
  return { run: toRunView(existing, now), replayed: true };
}

/**
 * An agent may not record that a person set a value (DESIGN.md §3: provenance is never
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
          stepId: typeof (s as { id?: unknown }).id === "string" ? ((s as { id: string }).id) : undefined,
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

/**
 * Submits an agent's plan for `taskId` (API.md `POST /api/v1/tasks/{taskId}/runs`).
 * Validates through the one pipeline (DESIGN.md §1); on success stores the run (pending_review,
 * or approved when every step is auto-gated), plan version 1 and policy approvals for auto steps.
 * Idempotent per (agent, idempotencyKey): a repeat returns the saved run with `replayed: true`.
 * Errors: 404 `not_found`; 409 `stale_task` {boundRevision, liveRevision}; 422 `validation_failed` {issues}.
 */
export async function submitRun(
  agent: AgentCaller,
  taskId: string,
  body: SubmitRunBody,
  idempotencyKey: string | null,
  now = new Date(),
): Promise<{ run: RunView; replayed: boolean }> {
  const task = await prisma.task.findUnique({ where: { id: taskId } });
  if (!task) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  const requestHash = hashSubmission(taskId, body);
  if (idempotencyKey) {
    const existing = await prisma.run.findFirst({ where: { agentId: agent.id, idempotencyKey }, include: runInclude });
    if (existing) return replayOrConflict(existing, requestHash, now);
  }
  if (body.taskRevision !== task.revision) {
    throw new DomainError("stale_task", `The task is at revision ${task.revision}; this plan was made for revision ${body.taskRevision}.`, {
      boundRevision: body.taskRevision,
      liveRevision: task.revision,
    });
  }
  const desk = await loadDeskSnapshot(task.ticketId);
  const candidate = { version: 1, steps: prepareAgentSteps(body.steps) };
  const catalog = await currentCatalog(); // the run records this catalog version and is validated against it for life
  const result = validatePlan(candidate, { desk, now, agentAllowedTools: agent.allowedTools, catalog });
  result.issues.push(...agentProvenanceIssues(body.steps));
  result.ok = result.ok && !result.issues.some((i) => i.severity === "error");
  const actor: Actor = { kind: "agent", id: agent.id };
  if (!result.ok || !result.plan) {
    await appendAudit(prisma, { type: "submission_refused", actor, data: { taskId, issues: result.issues } });
    throw new DomainError("validation_failed", "The plan did not pass validation.", { issues: result.issues });
  }
  const plan = result.plan;
  const hasIrreversible = plan.steps.some((s) => catalog.get(s.tool)?.effect === "irreversible");
  const { expiresAt, escalateAt } = runDeadlines(now, hasIrreversible, body.expiresInSeconds);
  const allAuto = plan.steps.every((s) => result.gate[s.id] === "auto");
  const runId = `run_${nanoid(12)}`;
  try {
    await prisma.$transaction(async (tx) => {
      await tx.run.create({
        data: {
          id: runId,
          taskId,
          agentId: agent.id,
          status: allAuto ? "approved" : "pending_review",
          planVersion: 1,
          approvedVersion: allAuto ? 1 : null,
          boundTaskRevision: task.revision,
          expiresAt,
          escalateAt,
          idempotencyKey,
          requestHash,
          catalogVersion: catalog.version,
          createdAt: now,
        },
      });
      await tx.planVersion.create({
        data: {
          id: nanoid(),
          runId,
          version: 1,
          steps: plan.steps as unknown as Prisma.InputJsonValue,
          validation: { issues: result.issues, gate: result.gate } as unknown as Prisma.InputJsonValue,
          createdAt: now,
        },
      });
      await createPolicyApprovals(tx, runId, plan, result, desk, task.revision, expiresAt);
      await appendAudit(tx, { runId, type: "submitted", actor, data: { taskId, taskRevision: task.revision, steps: plan.steps.length } });
      await appendAudit(tx, {
        runId,
        type: "validated",
        actor: { kind: "system" },
        data: { planVersion: 1, ok: true, issues: result.issues, gate: result.gate },
      });
    });
  } catch (e) {
    if (idempotencyKey && (e as { code?: string }).code === "P2002") {
      const existing = await prisma.run.findFirst({ where: { agentId: agent.id, idempotencyKey }, include: runInclude });
      if (existing) return replayOrConflict(existing, requestHash, now);
    }
    throw e;
  }
  return { run: toRunView(await loadRun(runId), now), replayed: false };
}

/**
 * Records policy approvals for every auto-gated step of `plan` (DESIGN.md §1.8): the gate
 * policy, not a person, consents; the record still binds digest, version and task revision.
 */
export async function createPolicyApprovals(
  tx: Prisma.TransactionClient,
  runId: string,
  plan: Plan,
  result: Pick<ValidationResult, "gate">,
  desk: Awaited<ReturnType<typeof loadDeskSnapshot>>,
  taskRevision: number,
  expiresAt: Date,
): Promise<void> {
  for (const step of plan.steps) {
    if (result.gate[step.id] !== "auto") continue;
    await tx.approval.create({
      data: {
        id: `apr_${nanoid(12)}`,
        runId,
        stepId: step.id,
        planVersion: plan.version,
        tool: step.tool,
        target: (getTool(step.tool)?.target(step.args as never, desk) ?? null) as unknown as Prisma.InputJsonValue,
        args: step.args as Prisma.InputJsonValue,
        digest: digest(step),
        boundTaskRevision: taskRevision,
        approverId: null,
        authority: { kind: "policy", rule: "auto-gated tool" },
        acknowledged: [],
        state: "active",
        expiresAt,
      },
    });
  }
}

/** Queue row for `/runs` and `GET /api/runs`. */
export interface QueueRow {
  id: string;
  status: RunStatus;
  ticketId: string;
  ticketSubject: string;
  accountId: string;
  accountName: string;
  agentName: string;
  stepCount: number;
  gatedCount: number;
  warningCount: number;
  planVersion: number;
  createdAt: string;
  expiresAt: string;
  escalateAt: string;
}

/**
 * Lists runs for the queue, newest first, optionally filtered by status (effective status) and
 * scoped (`scope`: the viewer's desk, from `deskScope`).
 */
export async function listQueue(filter: { status?: RunStatus; scope?: Prisma.RunWhereInput } = {}, now = new Date()): Promise<QueueRow[]> {
  const runs = await prisma.run.findMany({
    where: filter.scope ?? {},
    include: { task: { include: { ticket: { include: { account: true } } } }, agent: true, planVersions: true },
    orderBy: { createdAt: "desc" },
    take: 500,
  });
  return runs
    .map((r) => {
      const pv = r.planVersions.find((p) => p.version === r.planVersion);
      const steps = storedSteps(pv?.steps);
      const validation = (pv?.validation ?? {}) as Partial<ValidationResult>;
      return {
        id: r.id,
        status: effectiveStatus(r.status as RunStatus, r.expiresAt, now),
        ticketId: r.task.ticketId,
        ticketSubject: r.task.ticket.subject,
        accountId: r.task.ticket.accountId,
        accountName: r.task.ticket.account.name,
        agentName: r.agent.name,
        stepCount: steps.length,
        gatedCount: steps.filter((s) => (validation.gate ?? {})[s.id] !== "auto").length,
        warningCount: (validation.issues ?? []).filter((i) => i.severity === "warning").length,
        planVersion: r.planVersion,
        createdAt: r.createdAt.toISOString(),
        expiresAt: r.expiresAt.toISOString(),
        escalateAt: r.escalateAt.toISOString(),
      };
    })
    .filter((r) => !filter.status || r.status === filter.status);
}
