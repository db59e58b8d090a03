import { appendAudit } from "../audit";
import { prisma } from "../db";
import { expireIfDue } from "../lifecycle/run-lifecycle";
import { inTransaction, ok } from "../transaction";

/**
 * "Nobody answers" (DESIGN.md §10): a pending run escalates to supervisors at `escalateAt` and
 * expires at `expiresAt` (both set at submission by lib/policy.ts `runDeadlines`).
 *
 * The sweep only makes those deadlines visible and recorded; it is not what enforces expiry —
 * every decision re-checks `expiresAt` itself (lib/run-state.ts `effectiveStatus`, approvals,
 * edits, claims), so a missed or late sweep never lets an expired run through. Every write is a
 * conditional update, so any number of sweepers (app instances, the interval, page loads) may
 * run at once and each run escalates and expires exactly once.
 */

/** What one sweep did: the run ids it escalated and expired. */
export interface SweepResult {
  escalated: string[];
  expired: string[];
}

/** Runs handled per sweep and kind (the next sweep takes the rest). */
const BATCH = 200;

/**
 * At `now` (UTC): (a) marks every `pending_review` run whose `escalateAt` has passed, that is not
 * yet escalated and not yet expired, as escalated (`Run.escalatedAt = now`, audited `escalated`
 * once — the conditional update and the audit event commit together); (b) persists expiry of every
 * `pending_review` or `approved` run whose `expiresAt` has passed (lifecycle `expire`: status
 * `expired`, active approvals expired, audited `expired` once). At most BATCH of each, found by
 * index. Returns the run ids it changed.
 */
export async function sweepDeadlines(now = new Date()): Promise<SweepResult> {
  const escalated: string[] = [];
  const expired: string[] = [];
  const dueEscalation = await prisma.run.findMany({
    where: { status: "pending_review", escalateAt: { lte: now }, escalatedAt: null, expiresAt: { gt: now } },
    select: { id: true, escalateAt: true, expiresAt: true },
    orderBy: { escalateAt: "asc" },
    take: BATCH,
  });
  for (const r of dueEscalation) {
    const done = await inTransaction(async (tx) => {
      const res = await tx.run.updateMany({
        where: { id: r.id, status: "pending_review", escalatedAt: null, escalateAt: { lte: now }, expiresAt: { gt: now } },
        data: { escalatedAt: now },
      });
      if (res.count !== 1) return ok(false);
      await appendAudit(tx, {
        runId: r.id,
        type: "escalated",
        actor: { kind: "system" },
        data: { at: now.toISOString(), escalateAt: r.escalateAt.toISOString(), expiresAt: r.expiresAt.toISOString(), to: "supervisors" },
      });
      return ok(true);
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
