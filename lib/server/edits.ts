import { nanoid } from "nanoid";
import { z } from "zod";
import { describeReapproval, diffPlans, type PlanDiff } from "../diff/plan-diff";
import { DomainError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { digest } from "../plan/digest";
import { keepReasons } from "../plan/reasons";
import type { Plan, Provenance, Step } from "../plan/schema";
import { validatePlan } from "../validation/pipeline";
import type { ValidationIssue, ValidationResult } from "../validation/types";
import { appendAudit } from "./audit";
import { prisma } from "./db";
import { loadDeskSnapshot } from "./desk-data";
import { carryOrInvalidateApprovals, loadPlanVersion, settleRunStatus } from "./plan-state";
import { createPolicyApprovals, effectiveStatus, loadRun, storedSteps, type RunStatus } from "./runs";
import { deskScope, type Viewer } from "./session";
import { catalogAt } from "./tool-catalog";

/** Body of `POST /api/runs/{runId}/edits` (API.md): the base version and the whole edited plan. */
export const submitEditBodySchema = z
  .object({
    baseVersion: z.number().int().min(1),
    steps: z.array(z.unknown()).max(100),
  })
  .strict();
export type SubmitEditBody = z.infer<typeof submitEditBodySchema>;

/** What a successful edit returns: the new immutable version, the server-side diff, validation. */
export interface EditResult {
  planVersion: { version: number; steps: Step[] };
  diff: PlanDiff;
  validation: Pick<ValidationResult, "issues" | "gate">;
  reapproval: string;
  unchanged: boolean;
}

const EDITABLE: RunStatus[] = ["pending_review", "approved"];

/**
 * Rebuilds the submitted steps the way the server trusts them: author and provenance come from
 * the server, never from the client. A step whose id and tool match a base step with the same
 * digest keeps the base step's author and provenance. A changed step is authored by `editor`,
 * with `operator` provenance (who, when, previous value) on each changed top-level argument.
 * An added step — a new id, or an existing id with another tool (a new operation, DESIGN.md
 * §1) — gets a fresh server id, so it can never inherit an old step's approval or execution.
 * A step that keeps its id and tool keeps its reasons (title, rationale, evidence, risk,
 * stopCondition) unless the submission carries them (lib/plan/reasons.ts `keepReasons`).
 * Non-object entries pass through untouched for the shape stage to report.
 */
export function stampEditedSteps(raw: unknown[], base: Plan, editorId: string, at: Date): unknown[] {
  const byId = new Map(base.steps.map((s) => [s.id, s] as const));
  const when = at.toISOString();
  return raw.map((entry) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return entry;
    const s = entry as Record<string, unknown>;
    const args = (typeof s.args === "object" && s.args !== null && !Array.isArray(s.args) ? s.args : {}) as Record<string, unknown>;
    const prev = typeof s.id === "string" ? byId.get(s.id) : undefined;
    const operator = (previous?: unknown): Provenance =>
      previous === undefined ? { kind: "operator", userId: editorId, at: when } : { kind: "operator", userId: editorId, at: when, previous };
    if (!prev || prev.tool !== s.tool) {
      return {
        ...s,
        id: `st_${nanoid(10)}`,
        author: { kind: "user", userId: editorId },
        provenance: Object.fromEntries(Object.keys(args).map((k) => [k, operator()])),
      };
    }
    let same = false;
    try {
      same = digest({ tool: prev.tool, args }) === digest(prev);
    } catch {
      same = false; // non-JSON args: the shape stage reports them
    }
    if (same) return keepReasons({ ...s, author: prev.author, provenance: prev.provenance ?? {} }, prev);
    const provenance: Record<string, Provenance> = {};
    for (const k of Object.keys(args)) {
      let changed = true;
      try {
        changed = !(k in prev.args) || digest({ tool: "", args: args[k] }) !== digest({ tool: "", args: prev.args[k] });
      } catch {
        changed = true;
      }
      provenance[k] = changed ? operator(prev.args[k]) : (prev.provenance?.[k] ?? { kind: "model" });
    }
    return keepReasons({ ...s, author: { kind: "user", userId: editorId }, provenance }, prev);
  });
}

/** The issues a person must see first: authorship refusals. */
function authorshipIssues(issues: ValidationIssue[]): ValidationIssue[] {
  return issues.filter((i) => i.stage === "authorship" && i.severity === "error");
}

/**
 * Submits an operator's edit of a run's plan (DESIGN.md §6, API.md `POST /api/runs/{runId}/edits`).
 * The edited plan is client input: it is validated from scratch by the one pipeline, including
 * authorship of every added or changed step, against live account data. On success a new
 * immutable plan version is stored with the pre-edit plan, post-edit plan and diff; approvals
 * of steps whose digest changed are invalidated; unchanged ones carry over.
 * Errors: 404 `not_found`; 409 `expired`, `run_not_pending`, `stale_plan_version`
 * {currentVersion, plan}; 403 `authorship_denied` {issues}; 422 `validation_failed` {issues}.
 * A refused edit stores nothing but an audit event.
 */
export async function submitEdit(viewer: Viewer, runId: string, body: SubmitEditBody, now = new Date()): Promise<EditResult> {
  const run = await loadRun(runId, deskScope(viewer));
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has expired; it can no longer be edited.", { expiresAt: run.expiresAt.toISOString() });
  if (!EDITABLE.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}; only a run waiting for review can be edited.`, { status });
  const current = await loadPlanVersion(prisma, runId, run.planVersion);
  if (body.baseVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed while you were editing: it is now at version ${run.planVersion}, your edit was based on version ${body.baseVersion}.`, {
      currentVersion: run.planVersion,
      plan: current.plan,
    });
  }
  const [desk, agent] = await Promise.all([loadDeskSnapshot(run.task.ticketId), prisma.agent.findUniqueOrThrow({ where: { id: run.agentId } })]);
  const base = current.plan;
  const candidate = { version: base.version + 1, steps: stampEditedSteps(body.steps, base, viewer.id, now) };
  const result = validatePlan(candidate, {
    desk,
    now,
    agentAllowedTools: Array.isArray(agent.allowedTools) ? (agent.allowedTools as string[]) : [],
    editor: { userId: viewer.id, grants: viewer.grants },
    basePlan: base,
    catalog: await catalogAt(run.catalogVersion),
  });
  const denied = authorshipIssues(result.issues);
  if (denied.length > 0) {
    await appendAudit(prisma, {
      runId,
      type: "denied",
      actor: { kind: "user", id: viewer.id },
      data: { action: "author", baseVersion: base.version, issues: denied },
    });
    throw new DomainError("authorship_denied", denied.map((i) => i.message).join(" "), { issues: result.issues });
  }
  if (!result.ok || !result.plan) {
    await appendAudit(prisma, { runId, type: "edit_refused", actor: { kind: "user", id: viewer.id }, data: { baseVersion: base.version, issues: result.issues } });
    throw new DomainError("validation_failed", "The edited plan did not pass validation; nothing was saved.", { issues: result.issues });
  }
  const next = result.plan;
  const diff = diffPlans(base, next, desk);
  if (diff.changeCount === 0) {
    return {
      planVersion: base,
      diff,
      validation: current.validation,
      reapproval: describeReapproval(diff, base),
      unchanged: true,
    };
  }
  const validation = { issues: result.issues, gate: result.gate };
  await prisma.$transaction(async (tx) => {
    const moved = await tx.run.updateMany({
      where: { id: runId, planVersion: base.version, status: { in: EDITABLE } },
      data: { planVersion: next.version, status: "pending_review", approvedVersion: null },
    });
    if (moved.count !== 1) {
      const fresh = await tx.run.findUniqueOrThrow({ where: { id: runId } });
      const freshPlan = await loadPlanVersion(tx, runId, fresh.planVersion);
      throw new DomainError("stale_plan_version", `Someone else changed this plan first: it is now at version ${fresh.planVersion}.`, {
        currentVersion: fresh.planVersion,
        plan: freshPlan.plan,
      });
    }
    await tx.planVersion.create({
      data: {
        id: nanoid(),
        runId,
        version: next.version,
        steps: next.steps as unknown as Prisma.InputJsonValue,
        validation: validation as unknown as Prisma.InputJsonValue,
        createdById: viewer.id,
        createdAt: now,
      },
    });
    await tx.planEdit.create({
      data: {
        id: nanoid(),
        runId,
        fromVersion: base.version,
        toVersion: next.version,
        editorId: viewer.id,
        before: base as unknown as Prisma.InputJsonValue,
        after: next as unknown as Prisma.InputJsonValue,
        diff: diff as unknown as Prisma.InputJsonValue,
        createdAt: now,
      },
    });
    const { invalidated, carried } = await carryOrInvalidateApprovals(tx, runId, base, next, result.issues);
    const carriedSet = new Set(carried);
    await createPolicyApprovals(
      tx,
      runId,
      next,
      { gate: Object.fromEntries(Object.entries(result.gate).filter(([id]) => !carriedSet.has(id))) },
      desk,
      run.boundTaskRevision,
      run.expiresAt,
    );
    await settleRunStatus(tx, runId, next);
    await appendAudit(tx, {
      runId,
      type: "edited",
      actor: { kind: "user", id: viewer.id },
      data: { fromVersion: base.version, toVersion: next.version, changeCount: diff.changeCount, summary: diff.summary, reapprovalRequired: diff.reapprovalRequired },
    });
    await appendAudit(tx, { runId, type: "validated", actor: { kind: "system" }, data: { planVersion: next.version, ok: true, issues: result.issues, gate: result.gate } });
    if (invalidated.length > 0) {
      await appendAudit(tx, { runId, type: "invalidated", actor: { kind: "system" }, data: { planVersion: base.version, stepIds: invalidated, reason: "digest changed by edit" } });
    }
  });
  return { planVersion: next, diff, validation, reapproval: describeReapproval(diff, next), unchanged: false };
}

/**
 * "Discard my edits" (DESIGN.md §7): restores the pre-edit plan of the edit that produced
 * `version`, as a new version (history is never rewritten). When later versions exist they
 * must all be edits by the same person (their edits of one session), and are discarded too. The restored plan is validated again
 * against live data (authorship is not re-checked: the restored steps are the previous authors').
 * Only the editor of that edit, or a supervisor, may discard it.
 * Errors: 404 `not_found` (no such edit); 403 `forbidden`; 409 `stale_plan_version` when someone
 * else edited after `version`, `expired`, `run_not_pending`; 422 `validation_failed`.
 */
export async function discardEdit(viewer: Viewer, runId: string, version: number, now = new Date()): Promise<{ planVersion: { version: number; steps: Step[] } }> {
  const run = await loadRun(runId, deskScope(viewer));
  const edit = await prisma.planEdit.findUnique({ where: { runId_toVersion: { runId, toVersion: version } } });
  if (!edit) throw new DomainError("not_found", `Version ${version} of this run was not made by an edit.`);
  if (edit.editorId !== viewer.id && viewer.role !== "supervisor") {
    throw new DomainError("forbidden", "Only the person who made this edit, or a supervisor, can discard it.");
  }
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has expired.");
  if (!EDITABLE.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace("_", " ")}.`, { status });
  if (run.planVersion < version) throw new DomainError("not_found", `Version ${version} does not exist yet.`);
  if (run.planVersion !== version) {
    // Discarding an earlier edit also discards the later ones, so they must all be this person's.
    const later = await prisma.planEdit.findMany({ where: { runId, toVersion: { gt: version, lte: run.planVersion } } });
    const foreign = later.length !== run.planVersion - version || later.some((e) => e.editorId !== edit.editorId);
    if (foreign) {
      const current = await loadPlanVersion(prisma, runId, run.planVersion);
      throw new DomainError("stale_plan_version", `Someone else changed the plan after this edit (now version ${run.planVersion}); it cannot be discarded.`, {
        currentVersion: run.planVersion,
        plan: current.plan,
      });
    }
  }
  const latest = run.planVersion;
  const before = { version: latest + 1, steps: storedSteps((edit.before as { steps?: unknown }).steps) };
  const [desk, agent] = await Promise.all([loadDeskSnapshot(run.task.ticketId), prisma.agent.findUniqueOrThrow({ where: { id: run.agentId } })]);
  const result = validatePlan(before, { desk, now, agentAllowedTools: (agent.allowedTools as string[]) ?? [], catalog: await catalogAt(run.catalogVersion) });
  if (!result.ok || !result.plan) {
    throw new DomainError("validation_failed", "The pre-edit plan no longer passes validation (account data changed); edit it instead.", { issues: result.issues });
  }
  const restored = result.plan;
  const current = await loadPlanVersion(prisma, runId, latest);
  const diff = diffPlans(current.plan, restored, desk);
  await prisma.$transaction(async (tx) => {
    const moved = await tx.run.updateMany({
      where: { id: runId, planVersion: latest, status: { in: EDITABLE } },
      data: { planVersion: restored.version, status: "pending_review", approvedVersion: null },
    });
    if (moved.count !== 1) throw new DomainError("stale_plan_version", "Someone else changed this plan first.", { currentVersion: (await tx.run.findUniqueOrThrow({ where: { id: runId } })).planVersion });
    await tx.planVersion.create({
      data: {
        id: nanoid(),
        runId,
        version: restored.version,
        steps: restored.steps as unknown as Prisma.InputJsonValue,
        validation: { issues: result.issues, gate: result.gate } as unknown as Prisma.InputJsonValue,
        createdById: viewer.id,
        createdAt: now,
      },
    });
    const { invalidated, carried } = await carryOrInvalidateApprovals(tx, runId, current.plan, restored, result.issues);
    const carriedSet = new Set(carried);
    await createPolicyApprovals(tx, runId, restored, { gate: Object.fromEntries(Object.entries(result.gate).filter(([id]) => !carriedSet.has(id))) }, desk, run.boundTaskRevision, run.expiresAt);
    await settleRunStatus(tx, runId, restored);
    await appendAudit(tx, {
      runId,
      type: "edit_discarded",
      actor: { kind: "user", id: viewer.id },
      data: { discardedVersion: version, restoredFromVersion: edit.fromVersion, toVersion: restored.version, summary: diff.summary },
    });
    if (invalidated.length > 0) {
      await appendAudit(tx, { runId, type: "invalidated", actor: { kind: "system" }, data: { planVersion: latest, stepIds: invalidated, reason: "edit discarded" } });
    }
  });
  return { planVersion: restored };
}

/**
 * The semantic diff between two stored versions of a run (`from` → `to`), annotated from live
 * account data (DESIGN.md §7). Errors: 404 when either version does not exist.
 */
export async function diffVersions(viewer: Viewer, runId: string, from: number, to: number): Promise<{ diff: PlanDiff; reapproval: string; from: Plan; to: Plan }> {
  const run = await loadRun(runId, deskScope(viewer));
  const versions = new Set(run.planVersions.map((p) => p.version));
  if (!versions.has(from) || !versions.has(to)) throw new DomainError("not_found", `Run ${runId} has no version ${versions.has(from) ? to : from}.`);
  const [a, b, desk] = await Promise.all([loadPlanVersion(prisma, runId, from), loadPlanVersion(prisma, runId, to), loadDeskSnapshot(run.task.ticketId)]);
  const diff = diffPlans(a.plan, b.plan, desk);
  // Beyond changed digests, approvals also lapse when a step moved or gained a warning that was
  // not acknowledged (plan-state.ts); name those steps too, so the line matches the buttons.
  const approved = new Set(
    run.approvals.filter((x) => x.planVersion === to && x.state === "active").map((x) => x.stepId),
  );
  const hadConsent = new Set(
    run.approvals.filter((x) => x.planVersion >= from && x.planVersion < to && x.approverId !== null).map((x) => x.stepId),
  );
  const extra = b.plan.steps
    .map((s, i) => ({ s, pos: i + 1 }))
    .filter(({ s }) => !approved.has(s.id) && !diff.reapprovalRequired.includes(s.id) && hadConsent.has(s.id))
    .map(({ pos }) => `step ${pos} (moved or new warning)`);
  let reapproval = describeReapproval(diff, b.plan);
  if (extra.length > 0) {
    reapproval = diff.reapprovalRequired.length > 0 ? `${reapproval}, ${extra.join(", ")}` : `re-approval required for ${extra.join(", ")}`;
  }
  return { diff, reapproval, from: a.plan, to: b.plan };
}
