import type { Prisma } from "../../generated/prisma/client";
import { DomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { checkUntil, parkHolds, type ParkKind } from "../../queue/park";
import { deskScope, type Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import type { DbOrTx } from "../db/transaction";

/** A person's park of a run as the API shows it (`POST /api/runs/{runId}/park`). */
export interface ParkView {
  runId: string;
  kind: ParkKind;
  /** ISO-8601 UTC; null: until the run changes. */
  until: string | null;
  parkedAt: string;
}

/** The most parks of one person read by one "next" (a person parks a handful; older ones are past). */
const MAX_PARKS_READ = 500;

/**
 * Parks (or re-parks) waiting run `runId` for `viewer` (docs/design.md "Skip and snooze"): until
 * `until` (ISO-8601, within 30 days) or, when null, until the run changes. Only a run of the
 * viewer's desk (`deskScope`). Not audited: it changes nobody's work but the viewer's own order.
 * Errors: 404 `not_found` (no such run on the desk); 409 `run_not_pending` (it waits for nobody);
 * 400 `bad_request` (an `until` in the past, beyond 30 days or not a time).
 */
export async function parkRun(viewer: Viewer, runId: string, until: string | null | undefined, now = new Date()): Promise<ParkView> {
  const checked = checkUntil(until, now);
  if (!checked.ok) throw new DomainError("bad_request", checked.message, { path: "until" });
  const run = await prisma.run.findFirst({ where: { AND: [deskScope(viewer), { id: runId }] }, select: { status: true, expiresAt: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace(/_/g, " ")}; it waits for nobody.`, { status });
  return parkInto(prisma, viewer.id, runId, checked.until ? "snooze" : "skip", checked.until, now);
}

/**
 * Writes `userId`'s park of run `runId` with the run's state read in the same client `db` (a
 * transaction's, for a hand-off). Replaces an earlier park of the same person and run.
 */
export async function parkInto(db: DbOrTx, userId: string, runId: string, kind: ParkKind, until: Date | null, now: Date): Promise<ParkView> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { desk: true, status: true, planVersion: true, task: { select: { revision: true } } } });
  const data = { desk: run.desk, kind, until, parkedAt: now, planVersion: run.planVersion, taskRevision: run.task.revision, status: run.status };
  await db.runPark.upsert({ where: { userId_runId: { userId, runId } }, create: { userId, runId, ...data }, update: data });
  return { runId, kind, until: until?.toISOString() ?? null, parkedAt: now.toISOString() };
}

/** Ends `viewer`'s park of run `runId` (a run of their desk); nothing when there is none. Errors: 404 `not_found`. */
export async function unparkRun(viewer: Viewer, runId: string): Promise<void> {
  const run = await prisma.run.findFirst({ where: { AND: [deskScope(viewer), { id: runId }] }, select: { id: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  await prisma.runPark.deleteMany({ where: { userId: viewer.id, runId } });
}

/**
 * The parks of `userId` that still hold at `now` (`parkHolds`), by run id; only of the runs in
 * `runIds` when given (a queue page). One indexed read of the person's parks not yet past
 * (`run_park (userId, until)`), with each run's current state and its latest decision by someone else.
 */
export async function parksInForce(userId: string, now = new Date(), runIds?: readonly string[]): Promise<Map<string, ParkView>> {
  const rows = await prisma.runPark.findMany({
    // only parks of runs still waiting: a park of a run that ended is never read again
    where: { userId, OR: [{ until: null }, { until: { gt: now } }], run: { status: { in: [...WAITING_STATES] } }, ...(runIds ? { runId: { in: [...runIds] } } : {}) },
    orderBy: { parkedAt: "desc" },
    take: MAX_PARKS_READ,
    select: {
      runId: true,
      kind: true,
      until: true,
      parkedAt: true,
      planVersion: true,
      taskRevision: true,
      status: true,
      run: {
        select: {
          planVersion: true,
          status: true,
          task: { select: { revision: true } },
          approvals: { where: { approverId: { not: null }, NOT: { approverId: userId } }, orderBy: { createdAt: "desc" }, take: 1, select: { createdAt: true } },
        },
      },
    },
  });
  const out = new Map<string, ParkView>();
  for (const p of rows) {
    const current = { planVersion: p.run.planVersion, taskRevision: p.run.task.revision, status: p.run.status, lastOtherDecisionAt: p.run.approvals[0]?.createdAt ?? null };
    const park = { kind: p.kind as ParkKind, until: p.until, parkedAt: p.parkedAt, planVersion: p.planVersion, taskRevision: p.taskRevision, status: p.status };
    if (parkHolds(park, current, now)) out.set(p.runId, { runId: p.runId, kind: park.kind, until: p.until?.toISOString() ?? null, parkedAt: p.parkedAt.toISOString() });
  }
  return out;
}

/** The SQL condition "not parked by `userId` now": the runs of `parksInForce` left out by id. */
export async function whereNotParkedBy(userId: string, now = new Date()): Promise<Prisma.RunWhereInput> {
  const parked = [...(await parksInForce(userId, now)).keys()];
  return parked.length ? { id: { notIn: parked } } : {};
}
