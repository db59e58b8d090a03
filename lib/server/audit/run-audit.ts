import { DomainError } from "../../errors/domain-error";
import type { PlanDiff } from "../../diff/plan-diff";
import type { AccountSnapshot } from "../../desk/snapshot";
import type { Plan } from "../../plan/schema";
import type { ValidationIssue, ValidationResult } from "../../validation/types";
import { prisma } from "../db/db";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { catalogAt } from "../tools/imported-tools";
import { effectiveStatus, type RunStatus } from "../../lifecycle/run-state";
import { toStepViews, type RunStepView } from "../plans/run-view";
import { storedSteps } from "../plans/stored-plan";
import { requireRole } from "../auth/require-role";
import { deskScope, type Viewer } from "../auth/viewer";
import { readJsonColumn } from "../db/json-column";
import { planSchema } from "../../plan/schema";
import { planDiffSchema } from "../../diff/plan-diff";
import { stepEffectSchema, type StepEffect } from "../../effects/schema";
import { actualEffectSchema, type ActualEffect } from "../../effects/compare";

/**
 * The run timeline a supervisor reads after the fact (docs/design.md §11): every audit
 * event of one run in order, every plan version with its steps, every edit with its stored
 * pre-edit plan, post-edit plan and diff. Reads only; the audit log is written by ./audit.ts.
 *
 * Who may read: operators and supervisors. Plandesk serves one desk today, so an operator sees
 * every run of the desk (docs/api.md: "operators see their desk; supervisors all" — the same set
 * while there is one desk). Admins manage users and keys and do not read plans: 403.
 */

/** One event as the API returns it: `{seq, type, actor: {kind, id, name?}, at, data}`. */
export interface AuditEventView {
  seq: number;
  type: string;
  actor: { kind: "agent" | "user" | "integration" | "system" | "anonymous"; id: string | null; name?: string };
  /** When the event was written (UTC, ISO-8601). */
  at: string;
  data: Record<string, unknown>;
}

/** A stored plan version with its steps shown the way the run page shows steps. */
export interface AuditPlanVersion {
  version: number;
  createdBy: { kind: "agent"; id: string; name: string } | { kind: "user"; id: string; name: string };
  createdAt: string;
  /** The edit that produced this version (`toVersion`), when it was an edit. */
  fromEdit: boolean;
  steps: RunStepView[];
  issues: ValidationIssue[];
}

/** One operator edit: the versions it joins, who made it, and the stored diff. */
export interface AuditEdit {
  fromVersion: number;
  toVersion: number;
  editorId: string;
  editorName: string;
  createdAt: string;
  diff: PlanDiff;
}

/** Everything `/runs/[id]/audit` shows and `GET /api/runs/{runId}/audit` returns. */
export interface RunAudit {
  run: {
    id: string;
    status: RunStatus;
    ticketId: string;
    ticketSubject: string;
    accountName: string;
    agent: { id: string; name: string };
    createdAt: string;
    expiresAt: string;
    escalateAt: string;
    escalatedAt: string | null;
    planVersion: number;
    approvedVersion: number | null;
    boundTaskRevision: number;
  };
  events: AuditEventView[];
  planVersions: AuditPlanVersion[];
  edits: AuditEdit[];
  users: Record<string, string>;
  /**
   * Expected vs actual effect, one per step execution the executor reported
   * `succeeded`: the effects preview stored with the approval it ran under (null when that
   * approval predates previews) and what the reference executor saved as written (null when
   * it saved nothing, e.g. an outside executor).
   */
  effectComparisons: { stepId: string; approvalId: string; expected: StepEffect | null; actual: ActualEffect | null }[];
}

/** What `GET /api/runs/{runId}/edits/{toVersion}` returns. */
export interface EditDetail {
  runId: string;
  fromVersion: number;
  toVersion: number;
  editorId: string;
  editorName: string;
  createdAt: string;
  before: Plan;
  after: Plan;
  diff: PlanDiff;
}

/**
 * Refuses anyone but an operator or supervisor: 403 `forbidden`, audited as `denied` by
 * session.ts `requireRole` (on the run's trail when the run exists).
 */
export async function assertAuditReader(viewer: Pick<Viewer, "id" | "role">, what: { action: string; runId?: string | null }): Promise<void> {
  if (viewer.role === "operator" || viewer.role === "supervisor") return;
  const runId = what.runId && (await prisma.run.count({ where: { id: what.runId } })) ? what.runId : null;
  await requireRole(viewer, ["operator", "supervisor"], what.action, { runId });
}

/** Names of the users, agents and integration keys `rows` mention (by id; never the whole tables). */
async function loadNames(
  userIds: Iterable<string>,
  agentIds: Iterable<string>,
  integrationIds: Iterable<string> = [],
): Promise<{ users: Record<string, string>; agents: Record<string, string>; integrations: Record<string, string> }> {
  const u = [...new Set(userIds)];
  const a = [...new Set(agentIds)];
  const k = [...new Set(integrationIds)];
  const users = u.length ? await prisma.user.findMany({ where: { id: { in: u } }, select: { id: true, name: true } }) : [];
  const agents = a.length ? await prisma.agent.findMany({ where: { id: { in: a } }, select: { id: true, name: true } }) : [];
  const keys = k.length ? await prisma.integrationKey.findMany({ where: { id: { in: k } }, select: { id: true, name: true } }) : [];
  return {
    users: Object.fromEntries(users.map((x) => [x.id, x.name])),
    agents: Object.fromEntries(agents.map((x) => [x.id, x.name])),
    integrations: Object.fromEntries(keys.map((x) => [x.id, x.name])),
  };
}

/**
 * The actor of a stored event, named when the name is known: a person, an agent, the ticketing
 * integration by its key's name (`integration`: a task revision it posted), Plandesk itself.
 */
export function actorOf(
  row: { actorKind: string; actorId: string | null },
  names: { users: Record<string, string>; agents: Record<string, string>; integrations?: Record<string, string> },
): AuditEventView["actor"] {
  const kind = (["agent", "user", "integration", "system", "anonymous"].includes(row.actorKind) ? row.actorKind : "system") as AuditEventView["actor"]["kind"];
  const name =
    kind === "user" && row.actorId
      ? names.users[row.actorId]
      : kind === "agent" && row.actorId
        ? names.agents[row.actorId]
        : kind === "integration" && row.actorId
          ? names.integrations?.[row.actorId]
          : kind === "system"
            ? "Plandesk"
            : undefined;
  return name === undefined ? { kind, id: row.actorId } : { kind, id: row.actorId, name };
}

/** At most this many events of one run are shown (a run's life is tens of events). */
const MAX_EVENTS = 5000;

/**
 * The timeline of `runId` for `viewer` (operators and supervisors). Events come in `seq`
 * order — the order they were written, which is the order things happened.
 * Errors: 403 `forbidden` (audited); 404 `not_found`.
 */
export async function getRunAudit(viewer: Viewer, runId: string, now = new Date()): Promise<RunAudit & { desk: AccountSnapshot }> {
  await assertAuditReader(viewer, { action: "read_audit", runId });
  const run = await prisma.run.findFirst({
    where: { id: runId, ...deskScope(viewer) },
    include: { planVersions: { orderBy: { version: "asc" } }, approvals: true, executions: true, edits: { orderBy: { toVersion: "asc" } }, agent: true, task: { include: { ticket: { include: { account: true } } } } },
  });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const rows = await prisma.auditEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, take: MAX_EVENTS });
  const allSteps = run.planVersions.flatMap((pv) => storedSteps(pv.steps));
  const userIds = [
    ...rows.filter((r) => r.actorKind === "user" && r.actorId).map((r) => r.actorId!),
    ...run.planVersions.flatMap((pv) => (pv.createdById ? [pv.createdById] : [])),
    ...run.edits.map((e) => e.editorId),
    ...run.approvals.flatMap((a) => (a.approverId ? [a.approverId] : [])),
    ...run.executions.flatMap((e) => (e.reconciledBy ? [e.reconciledBy] : [])),
    ...allSteps.flatMap((st) => [
      ...(st.author?.kind === "user" ? [st.author.userId] : []),
      ...Object.values(st.provenance ?? {}).flatMap((p) => (p.kind === "operator" ? [p.userId] : [])),
    ]),
  ];
  const agentIds = [run.agentId, ...rows.filter((r) => r.actorKind === "agent" && r.actorId).map((r) => r.actorId!)];
  const names = await loadNames(userIds, agentIds, rows.filter((r) => r.actorKind === "integration" && r.actorId).map((r) => r.actorId!));
  const desk = await loadAccountSnapshot({ ticketId: run.task.ticketId, desk: run.desk, steps: allSteps, now, catalog: await catalogAt(run.catalogVersion) });
  const effectComparisons = await loadEffectComparisons(run);
  const editTo = new Set(run.edits.map((e) => e.toVersion));
  const planVersions: AuditPlanVersion[] = run.planVersions.map((pv) => {
    const validation = (pv.validation ?? {}) as Partial<ValidationResult>;
    const gate = validation.gate ?? {};
    const steps = toStepViews(storedSteps(pv.steps), pv.version, run, gate, { executionOfVersion: true, resolvedStatus: true });
    return {
      version: pv.version,
      createdBy: pv.createdById
        ? { kind: "user", id: pv.createdById, name: names.users[pv.createdById] ?? pv.createdById }
        : { kind: "agent", id: run.agentId, name: run.agent.name },
      createdAt: pv.createdAt.toISOString(),
      fromEdit: editTo.has(pv.version),
      steps,
      issues: (validation.issues ?? []) as ValidationIssue[],
    };
  });
  return {
    run: {
      id: run.id,
      status: effectiveStatus(run.status as RunStatus, run.expiresAt, now),
      ticketId: run.task.ticketId,
      ticketSubject: run.task.ticket.subject,
      accountName: run.task.ticket.account.name,
      agent: { id: run.agentId, name: run.agent.name },
      createdAt: run.createdAt.toISOString(),
      expiresAt: run.expiresAt.toISOString(),
      escalateAt: run.escalateAt.toISOString(),
      escalatedAt: run.escalatedAt?.toISOString() ?? null,
      planVersion: run.planVersion,
      approvedVersion: run.approvedVersion,
      boundTaskRevision: run.boundTaskRevision,
    },
    events: rows.map((r) => ({
      seq: r.seq,
      type: r.type,
      actor: actorOf(r, names),
      at: r.createdAt.toISOString(),
      data: (r.data && typeof r.data === "object" && !Array.isArray(r.data) ? r.data : { value: r.data }) as Record<string, unknown>,
    })),
    planVersions,
    edits: run.edits.map((e) => ({
      fromVersion: e.fromVersion,
      toVersion: e.toVersion,
      editorId: e.editorId,
      editorName: names.users[e.editorId] ?? e.editorId,
      createdAt: e.createdAt.toISOString(),
      diff: readJsonColumn(planDiffSchema, e.diff, "plan diff"),
    })),
    users: names.users,
    effectComparisons,
    desk,
  };
}

/**
 * The expected and actual effect of each succeeded execution of `run`: the approval's stored
 * `expectedEffect` and the reference executor's saved write (idempotency record
 * `effect:<runId>:<stepId>` keyed by the execution id, lib/server/demo/demo-effects.ts), by
 * primary key and unique scope — a handful of rows per run.
 */
async function loadEffectComparisons(run: {
  id: string;
  approvals: { id: string; expectedEffect: unknown }[];
  executions: { id: string; stepId: string; approvalId: string; status: string }[];
}): Promise<RunAudit["effectComparisons"]> {
  const done = run.executions.filter((e) => e.status === "succeeded");
  if (done.length === 0) return [];
  const saved = await prisma.idempotencyRecord.findMany({
    where: { scope: { in: done.map((e) => `effect:${run.id}:${e.stepId}`) }, key: { in: done.map((e) => e.id) } },
    select: { scope: true, key: true, body: true },
  });
  return done.map((e) => {
    const approval = run.approvals.find((a) => a.id === e.approvalId);
    const body = saved.find((r) => r.scope === `effect:${run.id}:${e.stepId}` && r.key === e.id)?.body;
    return {
      stepId: e.stepId,
      approvalId: e.approvalId,
      expected: approval?.expectedEffect != null ? readJsonColumn(stepEffectSchema, approval.expectedEffect, "expected effect") : null,
      actual: body != null ? readJsonColumn(actualEffectSchema, body, "demo effect") : null,
    };
  });
}

/**
 * One stored edit of `runId` — the edit that produced plan version `toVersion`: pre-edit plan,
 * post-edit plan and the diff exactly as stored at edit time.
 * Errors: 403 `forbidden` (audited); 404 `not_found` (no such run, or that version was not an edit).
 */
export async function getEditDetail(viewer: Viewer, runId: string, toVersion: number): Promise<EditDetail> {
  await assertAuditReader(viewer, { action: "read_edit", runId });
  if ((await prisma.run.count({ where: { id: runId, ...deskScope(viewer) } })) === 0) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const edit = await prisma.planEdit.findUnique({ where: { runId_toVersion: { runId, toVersion } } });
  if (!edit) {
    const exists = await prisma.run.count({ where: { id: runId } });
    throw new DomainError("not_found", exists ? `Version ${toVersion} of run ${runId} was not made by an edit.` : `Run ${runId} was not found.`);
  }
  const editor = await prisma.user.findUnique({ where: { id: edit.editorId }, select: { name: true } });
  return {
    runId,
    fromVersion: edit.fromVersion,
    toVersion: edit.toVersion,
    editorId: edit.editorId,
    editorName: editor?.name ?? edit.editorId,
    createdAt: edit.createdAt.toISOString(),
    before: readJsonColumn(planSchema, edit.before, "plan"),
    after: readJsonColumn(planSchema, edit.after, "plan"),
    diff: readJsonColumn(planDiffSchema, edit.diff, "plan diff"),
  };
}
