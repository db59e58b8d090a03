import { DomainError } from "../../errors/domain-error";
import { fromStates, type RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { expireIfDue, lockTaskAndRun } from "../lifecycle/run-lifecycle";
import { inTransaction, ok } from "../db/transaction";
import { settleExecution } from "../claims/settle-execution";
import { log } from "../../net/log.mjs";

/**
 * "Nobody answers" (docs/design.md §10): a pending run escalates to supervisors at `escalateAt` and
 * expires at `expiresAt` (both set at submission by lib/plan/policy.ts `runDeadlines`).
 *
 * The sweep only makes those deadlines visible and recorded; it is not what enforces expiry —
 * every decision re-checks `expiresAt` itself (lib/lifecycle/run-state.ts `effectiveStatus`, approvals,
 * edits, claims), so a missed or late sweep never lets an expired run through. Every write is a
 * conditional update, so any number of sweepers (app instances, the interval, page loads) may
 * run at once and each run escalates and expires exactly once.
 */

/**
 * What one sweep did: the run ids it escalated and expired, and how many due runs it left for the
 * next sweep because their transaction kept losing to concurrent ones (`busy`; another instance's
 * sweep or a decision on the same run — nothing of theirs was saved, the next sweep retries them).
 */
export interface SweepResult {
  escalated: string[];
  expired: string[];
  deferred: number;
}

/**
 * Runs one run's transition; a `busy` refusal (lib/server/db/transaction.ts: retries exhausted, nothing
 * saved) is not a failed sweep but a run for the next one: it returns `"deferred"`. Any other error
 * is thrown.
 */
async function orDefer(transition: () => Promise<boolean>): Promise<boolean | "deferred"> {
  try {
    return await transition();
  } catch (e) {
    if (e instanceof DomainError && e.code === "busy") return "deferred";
    throw e;
  }
}

/** Statuses that escalate to supervisors at `escalateAt`: a plan waiting for review, and an approved run that needs a new decision. */
export const ESCALATING: RunStatus[] = ["pending_review", "needs_decision"];

/** Runs handled per sweep and kind (the next sweep takes the rest). */
const BATCH = 200;

/**
 * At `now` (UTC): (a) marks every `pending_review` or `needs_decision` run (ESCALATING) whose `escalateAt` has passed, that is not
 * yet escalated and not yet expired, as escalated (`Run.escalatedAt = now`, audited `escalated`
 * once — the conditional update and the audit event commit together); (b) persists expiry of every
 * `pending_review`, `approved` or `needs_decision` run whose `expiresAt` has passed (lifecycle `expire`: status
 * `expired`, active approvals expired, audited `expired` once); (c) ends every `executing` run
 * past its `expiresAt` whose executor went silent — no claim or unknown outcome open, steps never
 * claimed — as `expire_unclaimed` (`settleExecution`: `expired`, audited with the unclaimed
 * steps); (d) escalates, once, every `executing` run with a claim whose lease ended with no
 * outcome report (`Run.escalatedAt = now`, audited `escalated` {to: "supervisors", reason:
 * "claim_lease_ended", stepId}; the step is on /reconciliation from that moment), so a claim
 * nobody reports is a person's at once. At most BATCH of each, found by index. Returns the run
 * ids it changed (a lease escalation among `escalated`).
 */
export async function sweepDeadlines(now = new Date()): Promise<SweepResult> {
  const escalated: string[] = [];
  const expired: string[] = [];
  let deferred = 0;
  const dueEscalation = await prisma.run.findMany({
    where: { status: { in: ESCALATING }, escalateAt: { lte: now }, escalatedAt: null, expiresAt: { gt: now } },
    select: { id: true, escalateAt: true, expiresAt: true },
    orderBy: { escalateAt: "asc" },
    take: BATCH,
  });
  for (const r of dueEscalation) {
    const done = await orDefer(() => inTransaction(async (tx) => {
      const res = await tx.run.updateMany({
        where: { id: r.id, status: { in: ESCALATING }, escalatedAt: null, escalateAt: { lte: now }, expiresAt: { gt: now } },
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
    }));
    if (done === "deferred") deferred++;
    else if (done) escalated.push(r.id);
  }
  const dueExpiry = await prisma.run.findMany({
    where: { status: { in: fromStates("expire") }, expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  for (const r of dueExpiry) {
    const done = await orDefer(() => expireIfDue(r.id, now));
    if (done === "deferred") deferred++;
    else if (done) expired.push(r.id);
  }
  // Executing runs past their deadline whose executor went silent (it stopped calling without
  // claiming the rest): settled as a claim or an outcome would settle them — `expire_unclaimed`
  // when no claim or unknown outcome is open (audited `expired` with the unclaimed steps, which
  // notifies as every expiry does); a run with a claim still open or an unknown outcome stays
  // executing and waits for a person to reconcile that step.
  const dueExecuting = await prisma.run.findMany({
    // Runs waiting on a person's reconciliation (an open claim, an unknown or flagged outcome:
    // `isOutstanding`) are left out, so they never crowd the batch.
    where: {
      status: "executing",
      expiresAt: { lte: now },
      executions: { none: { resolution: null, OR: [{ status: { in: ["claimed", "unknown"] } }, { flag: { not: null } }] } },
    },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  for (const r of dueExecuting) {
    const done = await orDefer(() =>
      inTransaction(
        async (tx) => {
          // Expiring an executing run: the task, then the run, as a claim locks them — a claim in
          // flight either commits first (and is seen as open) or is refused as expired after.
          const locked = await lockTaskAndRun(tx, r.id);
          if (locked?.status !== "executing") return ok(false);
          return ok((await settleExecution(tx, r.id, now)) === "expired");
        },
        prisma,
        { isolation: "row-locks" },
      ),
    );
    if (done === "deferred") deferred++;
    else if (done) expired.push(r.id);
  }
  // (d) A claim whose lease ended with no report: its token fences nothing any more, the step is
  // a supervisor's to reconcile — the run escalates once, so somebody is told.
  const leaseEnded = await prisma.stepExecution.findMany({
    where: { status: "claimed", resolution: null, leaseExpiresAt: { lte: now }, run: { status: "executing", escalatedAt: null } },
    select: { runId: true, stepId: true, leaseExpiresAt: true },
    orderBy: { leaseExpiresAt: "asc" },
    take: BATCH,
  });
  for (const e of leaseEnded) {
    if (escalated.includes(e.runId)) continue;
    const done = await orDefer(() =>
      inTransaction(async (tx) => {
        const res = await tx.run.updateMany({ where: { id: e.runId, status: "executing", escalatedAt: null }, data: { escalatedAt: now } });
        if (res.count !== 1) return ok(false);
        const run = await tx.run.findUniqueOrThrow({ where: { id: e.runId }, select: { expiresAt: true } });
        await appendAudit(tx, {
          runId: e.runId,
          type: "escalated",
          actor: { kind: "system" },
          data: { at: now.toISOString(), escalateAt: e.leaseExpiresAt!.toISOString(), expiresAt: run.expiresAt.toISOString(), to: "supervisors", reason: "claim_lease_ended", stepId: e.stepId },
        });
        return ok(true);
      }),
    );
    if (done === "deferred") deferred++;
    else if (done) escalated.push(e.runId);
  }
  return { escalated, expired, deferred };
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
    log.error({ err: e }, "plandesk: deadline sweep failed");
    return { escalated: [], expired: [], deferred: 0 };
  });
  globalForSweep.plandeskSweeping = p;
  return p;
}
