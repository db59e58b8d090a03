import { appendAudit } from "./audit";
import { prisma } from "./db";
import { expireIfDue, storedSteps } from "./runs";
import type { Viewer } from "./session";
import { assertSupervisor } from "./insights";

/**
 * "Nobody answers" (DESIGN.md §10): a pending run escalates to supervisors at `escalateAt` and
 * expires at `expiresAt` (both set at submission by lib/policy.ts `runDeadlines`: 24 h by
 * default, 8 h when the plan holds an irreversible step, escalation at 75 % of that).
 *
 * The sweep only makes those deadlines visible and recorded; it is not what enforces expiry —
 * every decision re-checks `expiresAt` itself (runs.ts `effectiveStatus`, approvals, edits,
 * claims), so a missed or late sweep never lets an expired run through. Every write is a
 * conditional update, so any number of sweepers (app instances, the interval, page loads) may
 * run at once and each run escalates and expires exactly once.
 */

/** What one sweep did. */
export interface SweepResult {
  escalated: string[];
  expired: string[];
}

const BATCH = 200;

/**
 * At `now` (UTC): (a) marks every `pending_review` run whose `escalateAt` has passed, that is not
 * yet escalated and not yet expired, as escalated (`Run.escalatedAt = now`, audited `escalated`
 * once — the conditional update and the audit event commit together); (b) persists expiry of every
 * `pending_review` or `approved` run whose `expiresAt` has passed (runs.ts `expireIfDue`: status
 * `expired`, active approvals expired, audited `expired` once). Returns the run ids it changed.
 */
export async function sweepDeadlines(now = new Date()): Promise<SweepResult> {
  const escalated: string[] = [];
  const expired: string[] = [];
  const dueEscalation = await prisma.run.findMany({
    where: { status: "pending_review", escalatedAt: null, escalateAt: { lte: now }, expiresAt: { gt: now } },
    select: { id: true, escalateAt: true, expiresAt: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  for (const r of dueEscalation) {
    const done = await prisma.$transaction(async (tx) => {
      const res = await tx.run.updateMany({
        where: { id: r.id, status: "pending_review", escalatedAt: null, escalateAt: { lte: now }, expiresAt: { gt: now } },
        data: { escalatedAt: now },
      });
      if (res.count !== 1) return false;
      await appendAudit(tx, {
        runId: r.id,
        type: "escalated",
        actor: { kind: "system" },
        data: { at: now.toISOString(), escalateAt: r.escalateAt.toISOString(), expiresAt: r.expiresAt.toISOString(), to: "supervisors" },
      });
      return true;
    });
    if (done) escalated.push(r.id);
  }
  const dueExpiry = await prisma.run.findMany({
    where: { status: { in: ["pending_review", "approved"] }, expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  for (const r of dueExpiry) if (await expireIfDue(r.id, now)) expired.push(r.id);
  return { escalated, expired };
}

const globalForSweep = globalThis as unknown as { plandeskLastSweep?: number; plandeskSweeping?: Promise<SweepResult> | null };

/**
 * Runs `sweepDeadlines` unless this process swept in the last `minIntervalMs` (default 5 s) —
 * for page loads and queue polls, which may come many times a second. The throttle is only an
 * optimisation (correctness lives in the conditional updates). Never throws: a failed sweep is
 * logged and the page still renders.
 */
export async function sweepDeadlinesSoon(now = new Date(), minIntervalMs = 5_000): Promise<SweepResult | null> {
  const last = globalForSweep.plandeskLastSweep ?? 0;
  if (now.getTime() - last < minIntervalMs && now.getTime() >= last) return globalForSweep.plandeskSweeping ?? null;
  globalForSweep.plandeskLastSweep = now.getTime();
  const p = sweepDeadlines(now).catch((e) => {
    console.error("plandesk: deadline sweep failed", e);
    return { escalated: [], expired: [] };
  });
  globalForSweep.plandeskSweeping = p;
  return p;
}

/** One row of the supervisors' escalation queue. */
export interface EscalatedRunRow {
  id: string;
  ticketId: string;
  ticketSubject: string;
  accountName: string;
  agentName: string;
  stepCount: number;
  planVersion: number;
  createdAt: string;
  escalateAt: string;
  escalatedAt: string;
  expiresAt: string;
}

/**
 * The supervisors' escalation queue (`/escalations`): runs that escalated and are still waiting
 * for review and not expired at `now`, soonest expiry first. Sweeps first, so the list is current.
 * Errors: 403 `forbidden` for anyone but a supervisor (audited).
 */
export async function listEscalations(viewer: Pick<Viewer, "id" | "role">, now = new Date()): Promise<EscalatedRunRow[]> {
  await assertSupervisor(viewer, "read_escalations");
  await sweepDeadlines(now);
  const runs = await prisma.run.findMany({
    where: { status: "pending_review", escalatedAt: { not: null }, expiresAt: { gt: now } },
    include: { task: { include: { ticket: { include: { account: true } } } }, agent: true, planVersions: true },
    orderBy: { expiresAt: "asc" },
    take: 500,
  });
  return runs.map((r) => ({
    id: r.id,
    ticketId: r.task.ticketId,
    ticketSubject: r.task.ticket.subject,
    accountName: r.task.ticket.account.name,
    agentName: r.agent.name,
    stepCount: storedSteps(r.planVersions.find((p) => p.version === r.planVersion)?.steps).length,
    planVersion: r.planVersion,
    createdAt: r.createdAt.toISOString(),
    escalateAt: r.escalateAt.toISOString(),
    escalatedAt: r.escalatedAt!.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
  }));
}
