import type { ApprovalRequestView } from "../../api/endpoints/ownership-api";
import { nanoid } from "nanoid";
import { DomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { storedSteps } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { parkInto } from "./park-run";

/** `POST /api/runs/{runId}/approval-requests`: hand the run (or one step) to a person or a role, with a note. */
export interface RequestApprovalInput {
  stepId?: string | null;
  toUserId?: string | null;
  toRole?: "operator" | "supervisor" | null;
  note: string;
}

/** A hand-off as the API shows it (lib/api/endpoints/ownership-api.ts), declared once. */
export type { ApprovalRequestView };

/** People of a role notified by one request to a role, at most. */
const ROLE_FANOUT = 50;

/**
 * Request approval ("Routing by authority"): hands a waiting run, or one step of its
 * current plan, to a named person or to everyone of a role on the run's desk, with a note.
 * Stores the request, one in-console Notification per addressee (a role: at most 50 people) and
 * the audit event `approval_requested` {runId, requestId, stepId, toUserId, toRole, note, byUserId}
 * (the webhook outbox hooks this event). Exactly one of `toUserId` / `toRole`. The run leaves the
 * requester's own "next" until it changes (a `handoff` park, docs/design.md "Skip and snooze").
 * Errors: 404 `not_found`; 409 `run_not_pending`; 400 `bad_request` (no or both addressees, a
 * step not in the current plan); 422 `validation_failed` (an addressee who cannot work this run).
 */
export async function requestApproval(viewer: Viewer, runId: string, input: RequestApprovalInput, now = new Date()): Promise<ApprovalRequestView> {
  const run = await prisma.run.findFirst({
    where: { ...deskScope(viewer), id: runId },
    select: { id: true, desk: true, status: true, expiresAt: true, planVersion: true, ticketId: true, planVersions: { select: { version: true, steps: true } } },
  });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace(/_/g, " ")}; there is nothing left to approve.`, { status });
  const toUserId = input.toUserId ?? null;
  const toRole = input.toRole ?? null;
  if ((toUserId ? 1 : 0) + (toRole ? 1 : 0) !== 1) throw new DomainError("bad_request", "Ask either one person or one role.");
  const stepId = input.stepId ?? null;
  const steps = storedSteps(run.planVersions.find((p) => p.version === run.planVersion)?.steps);
  const position = stepId ? steps.findIndex((s) => s.id === stepId) : -1;
  if (stepId && position < 0) throw new DomainError("bad_request", `No step ${stepId} in plan version ${run.planVersion}.`, { stepId });
  let addressees: string[];
  if (toUserId) {
    const u = await prisma.user.findUnique({ where: { id: toUserId }, select: { role: true, desk: true, disabled: true } });
    if (!u || u.disabled || !(u.role === "supervisor" || (u.role === "operator" && u.desk === run.desk))) {
      throw new DomainError("validation_failed", "Approval can be requested only from an active operator of this run's desk or a supervisor.", {
        issues: [{ stage: "shape", code: "bad_addressee", severity: "error", path: "toUserId", message: "Not a person who can decide this run." }],
      });
    }
    addressees = [toUserId];
  } else {
    const people = await prisma.user.findMany({
      where: { disabled: false, role: toRole!, ...(toRole === "operator" ? { desk: run.desk } : {}), id: { not: viewer.id } },
      select: { id: true },
      orderBy: { id: "asc" },
      take: ROLE_FANOUT,
    });
    addressees = people.map((p) => p.id);
  }
  const id = `apr_${nanoid(10)}`;
  const where = stepId ? ` (step ${position + 1})` : "";
  const text = `${viewer.name} asks you to decide ticket #${run.ticketId}${where}: ${input.note}`;
  await inTransaction(async (tx) => {
    await tx.approvalRequest.create({ data: { id, runId, stepId, toUserId, toRole, note: input.note, byUserId: viewer.id, createdAt: now } });
    if (addressees.length) {
      await tx.notification.createMany({ data: addressees.map((userId) => ({ id: nanoid(), userId, kind: "approval_requested", runId, text, createdAt: now })) });
    }
    await parkInto(tx, viewer.id, runId, "handoff", null, now);
    await appendAudit(tx, { runId, type: "approval_requested", actor: { kind: "user", id: viewer.id }, data: { runId, requestId: id, stepId, toUserId, toRole, note: input.note, byUserId: viewer.id } });
    return ok(null);
  });
  return { id, runId, stepId, toUserId, toRole, note: input.note, byUserId: viewer.id, createdAt: now.toISOString(), resolvedAt: null };
}
