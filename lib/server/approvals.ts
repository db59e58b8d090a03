import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError, isDomainError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { checkGrant } from "../grants";
import { formatMoney, type Money } from "../money";
import { canonicalJson } from "../plan/canonical-json";
import { digest } from "../plan/digest";
import { validatePlan } from "../validation/pipeline";
import { appendAudit } from "./audit";
import { prisma } from "./db";
import { loadDeskSnapshot } from "./desk-data";
import { loadPlanVersion, settleRunStatus } from "./plan-state";
import { effectiveStatus, expireIfDue, loadRun, toRunView, type RunStatus, type RunView } from "./runs";
import { deskScope, type Viewer } from "./session";
import { catalogAt } from "./tool-catalog";

/** Body of `POST /api/runs/{runId}/approvals` (API.md). */
export const approveBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    stepIds: z.union([z.literal("all"), z.array(z.string().min(1)).min(1).max(100)]),
    idempotencyKey: z.string().min(1).max(200),
    acknowledgedWarnings: z.array(z.object({ code: z.string(), stepId: z.string() }).strict()).max(200).optional(),
  })
  .strict();
export type ApproveBody = z.infer<typeof approveBodySchema>;

/** Body of `POST /api/runs/{runId}/rejections`: the reason is read by the agent on its run. */
export const rejectBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    reason: z.string().trim().min(3, "Give the agent a reason (at least 3 characters)").max(2000),
  })
  .strict();
export type RejectBody = z.infer<typeof rejectBodySchema>;

/** One approval as the API returns it. */
export interface ApprovalView {
  id: string;
  runId: string;
  stepId: string;
  planVersion: number;
  tool: string;
  digest: string;
  boundTaskRevision: number;
  approverId: string | null;
  state: string;
  expiresAt: string;
  acknowledged: { code: string; stepId: string }[];
}

/** Response of an approval: the approvals made (or already saved) and the run after them. */
export interface ApproveResult {
  approvals: ApprovalView[];
  run: RunView;
}

const WAITING: RunStatus[] = ["pending_review", "approved"];

function toApprovalView(a: Prisma.ApprovalGetPayload<object>): ApprovalView {
  return {
    id: a.id,
    runId: a.runId,
    stepId: a.stepId,
    planVersion: a.planVersion,
    tool: a.tool,
    digest: a.digest,
    boundTaskRevision: a.boundTaskRevision,
    approverId: a.approverId,
    state: a.state,
    expiresAt: a.expiresAt.toISOString(),
    acknowledged: (a.acknowledged as { code: string; stepId: string }[]) ?? [],
  };
}

/**
 * The saved answer for an idempotency key — only for the same request: the same key with another
 * body is refused (409 `idempotency_conflict`) rather than answered with what it did not ask for.
 */
function replayApproval(saved: unknown, requestHash: string): ApproveResult {
  const rec = saved as { result?: ApproveResult; requestHash?: string };
  if (rec.requestHash && rec.requestHash !== requestHash) {
    throw new DomainError("idempotency_conflict", "This idempotency key was already used for a different approval; use a new key.");
  }
  return rec.result as ApproveResult;
}

/** Idempotency scope of a person's approvals of one run. */
const scopeOf = (viewer: Viewer, runId: string) => `user:${viewer.id}:approve:${runId}`;

/**
 * Approves steps of the run's current plan version as `viewer` (DESIGN.md §5, API.md).
 * Each approval is a contract: run, step, tool, target, reviewed plan version, bound task
 * revision, approved arguments and digest, authority (grant and limit), expiry, state `active`.
 * Checked at decision time: expiry, plan version, task revision, a fresh validation of the plan
 * against live account data, the approve grant and its ceiling per step, and acknowledgement
 * of every warning that needs one on an approved step.
 * Idempotent: the same `idempotencyKey` returns the saved result and creates nothing (also when
 * requests race: the key is a unique row written in the same transaction).
 * Errors: 404; 409 `expired`, `run_not_pending`, `stale_plan_version` {currentVersion, plan},
 * `stale_task` {boundRevision, liveRevision}; 403 `approval_denied` {stepId, tool, reason};
 * 422 `acknowledgement_required` {required}, `validation_failed` {issues}, `bad_request`.
 */
export async function approveSteps(viewer: Viewer, runId: string, body: ApproveBody, now = new Date()): Promise<ApproveResult> {
  const scope = scopeOf(viewer, runId);
  const requestHash = canonicalJson({ planVersion: body.planVersion, stepIds: body.stepIds, acknowledgedWarnings: body.acknowledgedWarnings ?? [] });
  const saved = await prisma.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: body.idempotencyKey } } });
  if (saved) return replayApproval(saved.body, requestHash);

  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") {
    await expireIfDue(runId, now);
    throw new DomainError("expired", `This run expired at ${run.expiresAt.toISOString()}; it can no longer be approved.`, { expiresAt: run.expiresAt.toISOString() });
  }
  if (!WAITING.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; there is nothing to approve.`, { status });
  const current = await loadPlanVersion(prisma, runId, run.planVersion);
  if (body.planVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed: it is now at version ${run.planVersion}; you reviewed version ${body.planVersion}.`, {
      currentVersion: run.planVersion,
      plan: current.plan,
    });
  }
  if (run.task.revision !== run.boundTaskRevision) {
    throw new DomainError("stale_task", `The task changed since this plan was made (plan bound to revision ${run.boundTaskRevision}, task now at ${run.task.revision}). Reject it so the agent can plan again.`, {
      boundRevision: run.boundTaskRevision,
      liveRevision: run.task.revision,
    });
  }
  const plan = current.plan;
  const desk = await loadDeskSnapshot(run.task.ticketId);
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: run.agentId } });
  const catalog = await catalogAt(run.catalogVersion);
  const check = validatePlan(plan, { desk, now, agentAllowedTools: (agent.allowedTools as string[]) ?? [], catalog });
  if (!check.ok) {
    throw new DomainError("validation_failed", "The plan no longer passes validation against current account data; edit or reject it.", { issues: check.issues });
  }
  const existing = new Set(
    (await prisma.approval.findMany({ where: { runId, planVersion: plan.version, state: "active" }, select: { stepId: true } })).map((a) => a.stepId),
  );
  let targets = body.stepIds === "all" ? plan.steps.filter((s) => !existing.has(s.id)) : [];
  if (body.stepIds !== "all") {
    const byId = new Map(plan.steps.map((s) => [s.id, s]));
    const ids = [...new Set(body.stepIds)];
    const unknown = ids.filter((id) => !byId.has(id));
    if (unknown.length) throw new DomainError("bad_request", `No step ${unknown.join(", ")} in plan version ${plan.version}.`, { stepIds: unknown });
    targets = ids.map((id) => byId.get(id)!).filter((s) => !existing.has(s.id));
  }
  for (const step of targets) {
    const tool = catalog.get(step.tool)!;
    const amount = tool.amount(step.args as never);
    const denial = checkGrant(viewer.grants, "approve", step.tool, amount);
    if (denial) {
      const reason =
        denial.code === "no_grant"
          ? `You have no grant to approve ${step.tool} steps.`
          : `Your approval limit for ${step.tool} is ${formatMoney(denial.limit)}; this step moves ${formatMoney(denial.amount)}.`;
      await appendAudit(prisma, {
        runId,
        type: "denied",
        actor: { kind: "user", id: viewer.id },
        data: { action: "approve", stepId: step.id, tool: step.tool, missing: denial },
      });
      throw new DomainError("approval_denied", reason, { stepId: step.id, tool: step.tool, denial });
    }
  }
  // A ceiling bounds what one person lets a run move per tool, not each step: splitting a payment
  // into smaller steps must not get around it. Sum this approver's approved and new amounts.
  const mine = await prisma.approval.findMany({ where: { runId, planVersion: plan.version, state: "active", approverId: viewer.id } });
  const totals = new Map<string, Money>();
  for (const step of [...plan.steps.filter((s) => mine.some((a) => a.stepId === s.id)), ...targets]) {
    const amount = catalog.get(step.tool)!.amount(step.args as never);
    if (!amount) continue;
    const prev = totals.get(step.tool);
    totals.set(step.tool, prev && prev.currency === amount.currency ? { minor: prev.minor + amount.minor, currency: amount.currency } : prev ?? amount);
    const total = totals.get(step.tool)!;
    const denial = targets.includes(step) ? checkGrant(viewer.grants, "approve", step.tool, total) : null;
    if (denial && denial.code === "over_limit") {
      await appendAudit(prisma, { runId, type: "denied", actor: { kind: "user", id: viewer.id }, data: { action: "approve", stepId: step.id, tool: step.tool, missing: denial, cumulative: true } });
      throw new DomainError(
        "approval_denied",
        `Your approval limit for ${step.tool} is ${formatMoney(denial.limit)} per run; with this step you would approve ${formatMoney(total)} in this run.`,
        { stepId: step.id, tool: step.tool, denial },
      );
    }
  }
  const acknowledged = body.acknowledgedWarnings ?? [];
  const targetIds = new Set(targets.map((s) => s.id));
  const required = check.issues
    .filter((i) => i.needsAcknowledgement && i.stepId && targetIds.has(i.stepId))
    .filter((i) => !acknowledged.some((a) => a.code === i.code && a.stepId === i.stepId));
  if (required.length) {
    throw new DomainError("acknowledgement_required", required.map((i) => i.message).join(" "), {
      required: required.map((i) => ({ code: i.code, stepId: i.stepId, message: i.message })),
    });
  }

  try {
    await prisma.$transaction(async (tx) => {
      // The key row first: a racing request with the same key fails here (unique) and reads the saved answer.
      await tx.idempotencyRecord.create({ data: { id: nanoid(), scope, key: body.idempotencyKey, status: 201, body: {} } });
      for (const step of targets) {
        const tool = catalog.get(step.tool)!;
        const amount = tool.amount(step.args as never);
        const grant = viewer.grants.find((g) => g.tool === step.tool)!;
        await tx.approval.create({
          data: {
            id: `apr_${nanoid(12)}`,
            runId,
            stepId: step.id,
            planVersion: plan.version,
            tool: step.tool,
            target: (tool.target(step.args as never, desk) ?? null) as unknown as Prisma.InputJsonValue,
            args: step.args as Prisma.InputJsonValue,
            digest: digest(step),
            boundTaskRevision: run.boundTaskRevision,
            approverId: viewer.id,
            authority: {
              kind: "grant",
              userId: viewer.id,
              role: viewer.role,
              tool: step.tool,
              limit: grant.approveLimit,
              amount: amount ?? null,
            } as unknown as Prisma.InputJsonValue,
            acknowledged: acknowledged.filter((a) => a.stepId === step.id) as unknown as Prisma.InputJsonValue,
            state: "active",
            expiresAt: run.expiresAt,
          },
        });
        await appendAudit(tx, {
          runId,
          type: "approved",
          actor: { kind: "user", id: viewer.id },
          data: { stepId: step.id, tool: step.tool, planVersion: plan.version, digest: digest(step), amount: amount ?? null, acknowledged: acknowledged.filter((a) => a.stepId === step.id) },
        });
      }
      const stillAt = await tx.run.count({ where: { id: runId, planVersion: plan.version, status: { in: WAITING } } });
      if (stillAt !== 1) throw new DomainError("stale_plan_version", "The plan changed while you were approving.", { currentVersion: (await tx.run.findUniqueOrThrow({ where: { id: runId } })).planVersion });
      await settleRunStatus(tx, runId, plan);
      const approvals = await tx.approval.findMany({ where: { runId, planVersion: plan.version, state: "active" }, orderBy: { createdAt: "asc" } });
      const result: ApproveResult = {
        approvals: approvals.map(toApprovalView),
        run: toRunView(
          (await tx.run.findUniqueOrThrow({ where: { id: runId }, include: { planVersions: true, approvals: true, executions: true, task: true } })),
          now,
        ),
      };
      await tx.idempotencyRecord.update({
        where: { scope_key: { scope, key: body.idempotencyKey } },
        data: { body: { result, requestHash } as unknown as Prisma.InputJsonValue },
      });
    });
  } catch (e) {
    if (!isDomainError(e) && (e as { code?: string }).code === "P2002") {
      const again = await prisma.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: body.idempotencyKey } } });
      if (again) return replayApproval(again.body, requestHash);
      // Same step approved concurrently under another key: the approval exists; return the state.
      const approvals = await prisma.approval.findMany({ where: { runId, planVersion: plan.version, state: "active" } });
      return { approvals: approvals.map(toApprovalView), run: toRunView(await loadRun(runId), now) };
    }
    throw e;
  }
  const savedNow = await prisma.idempotencyRecord.findUniqueOrThrow({ where: { scope_key: { scope, key: body.idempotencyKey } } });
  return replayApproval(savedNow.body, requestHash);
}

/**
 * Rejects the run (API.md `POST /api/runs/{runId}/rejections`); the reason is shown to the agent
 * on its run. Active approvals are invalidated. Errors: 404; 409 `expired`, `run_not_pending`,
 * `stale_plan_version`.
 */
export async function rejectRun(viewer: Viewer, runId: string, body: RejectBody, now = new Date()): Promise<RunView> {
  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has already expired.");
  if (!WAITING.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; it cannot be rejected now.`, { status });
  if (body.planVersion !== run.planVersion) {
    const current = await loadPlanVersion(prisma, runId, run.planVersion);
    throw new DomainError("stale_plan_version", `The plan changed: it is now at version ${run.planVersion}.`, { currentVersion: run.planVersion, plan: current.plan });
  }
  await prisma.$transaction(async (tx) => {
    const res = await tx.run.updateMany({
      where: { id: runId, planVersion: body.planVersion, status: { in: WAITING } },
      data: { status: "rejected", rejectionReason: body.reason },
    });
    if (res.count !== 1) throw new DomainError("stale_plan_version", "The plan changed while you were rejecting it.", { currentVersion: run.planVersion });
    const inv = await tx.approval.updateMany({ where: { runId, state: "active" }, data: { state: "invalidated" } });
    await appendAudit(tx, { runId, type: "rejected", actor: { kind: "user", id: viewer.id }, data: { planVersion: body.planVersion, reason: body.reason, approvalsInvalidated: inv.count } });
  });
  return toRunView(await loadRun(runId), now);
}
