import { nanoid } from "nanoid";
import { DomainError } from "../../errors/domain-error";
import type { PrismaClient } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import type { RunStatus } from "../../lifecycle/run-state";
import type { RecordVersions } from "../../records/record-key";
import { demoPromotionSchema } from "../../api/schemas";
import type { DemoPromoteBody } from "../../api/bodies";
import type { AgentCaller } from "../auth/viewer";
import { checkFence } from "../claims/fence-claim";
import { reportOutcomeIn } from "../claims/report-outcome";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { readJsonColumn, toJsonColumn } from "../db/json-column";
import { inTransaction, ok, type Result, type Tx } from "../db/transaction";
import { lockRun, lockTaskOfRun, stopForStaleTask } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../plans/stored-plan";
import { advanceSource, liveVersionsOf, writeEffect, type DemoEffect } from "./reference-step-write";

// The built-in reference target's staged runs, as in
// docs/design.md "Staged runs: all or nothing where the target allows it":
// `POST /api/v1/demo/effects` with `stage: true` keeps a claimed step's
// write as a `staged_effect` row (demo-effects.ts); `promoteStagedEffects` applies every staged
// write of the run in ONE transaction, or none.

/** A staged write of the reference target as the API answers it. Times ISO UTC. */
export interface StagedView {
  /** The staging handle (`stg_…`). */
  handle: string;
  runId: string;
  stepId: string;
  tool: string;
  /** staged (kept, nothing written) | promoted (applied with the run's other staged writes) | discarded (never applied). */
  status: "staged" | "promoted" | "discarded";
  stagedAt: string;
  /** Why it was discarded (`staged_not_promoted: …`), else null. */
  detail: string | null;
}

/** The API view of a `staged_effect` row. Pure. */
export function stagedView(row: { id: string; runId: string; stepId: string; tool: string; status: string; stagedAt: Date; detail: string | null }): StagedView {
  return { handle: row.id, runId: row.runId, stepId: row.stepId, tool: row.tool, status: row.status as StagedView["status"], stagedAt: row.stagedAt.toISOString(), detail: row.detail };
}

/** One step of a promotion's answer: the outcome Plandesk reported for it, with the write's new source versions. */
export interface PromotedStep {
  stepId: string;
  status: "succeeded";
  targetVersions: RecordVersions;
}

/** The answer of a promotion: every staged write applied (`effects`, in plan order), every step reported, the run's status after. */
export interface DemoPromotion {
  runId: string;
  promotedAt: string;
  effects: DemoEffect[];
  steps: PromotedStep[];
  run: { id: string; status: RunStatus };
}

/**
 * Discards, inside `tx`, every still-staged write of run `runId` (status `discarded`, detail `why`,
 * endedAt `now`) and reports each one's claim `failed` with `why` as the agent `agent` would (the
 * report-outcome rules: on a run that already stopped the report is flagged for a person to
 * reconcile; on an executing run the approval is consumed and the run settles). Nothing of the
 * target is touched: a staged write was never applied. Returns the discarded step ids.
 */
export async function discardStagedIn(tx: Tx, agent: AgentCaller, runId: string, why: string, now: Date): Promise<string[]> {
  const rows = await tx.stagedEffect.findMany({ where: { runId, status: "staged" }, orderBy: { stagedAt: "asc" } });
  for (const row of rows) {
    const moved = await tx.stagedEffect.updateMany({ where: { id: row.id, status: "staged" }, data: { status: "discarded", detail: why, endedAt: now } });
    if (moved.count !== 1) continue;
    const exec = await tx.stepExecution.findUnique({ where: { id: row.executionId }, select: { token: true, status: true, reconciledAt: true } });
    if (exec?.status === "claimed" && !exec.reconciledAt) {
      const reported = await reportOutcomeIn(tx, agent, runId, row.stepId, { token: exec.token, status: "failed", detail: why.slice(0, 4000) }, now);
      if (!reported.ok) throw reported.error;
    }
  }
  return rows.map((r) => r.stepId);
}

/** Staged rows the sweep looks at per pass, oldest first (the next pass takes the rest). */
const SWEEP_BATCH = 200;

/**
 * The sweep of staged writes nobody can promote any more (demo mode's background loop, started by
 * the server's instrumentation): among the oldest `limit` still-staged rows, every run that is no
 * longer `executing` (stopped, expired, failed…), whose task was revised after the revision it was
 * approved for (the promotion's fence would refuse it), or one of whose staged claims has passed its
 * lease is discarded whole, as a refused promotion would (`discardStagedIn`, in one
 * transaction under the task's and the run's locks, where the reason is decided again, as the run's
 * agent; a run whose task was revised is first stopped `stopped_stale_task`, as the fence would): each row `discarded` with
 * detail `staged_not_promoted: …`, each open claim reported `failed` — Plandesk held the write, so
 * it knows nothing was written (a report after the run ended or the lease lapsed is flagged for a
 * person as any late report is). A run that is still executing with every lease alive is left to
 * its agent. Returns the run ids discarded. Times UTC. Source: docs/design.md "Staged runs: all or nothing where the target allows it".
 */
export async function discardUnpromotable(now = new Date(), db: PrismaClient = prisma, limit = SWEEP_BATCH): Promise<string[]> {
  const rows = await db.stagedEffect.findMany({ where: { status: "staged" }, orderBy: { stagedAt: "asc" }, take: limit, select: { runId: true, executionId: true } });
  if (rows.length === 0) return [];
  const execs = await db.stepExecution.findMany({
    where: { id: { in: rows.map((r) => r.executionId) } },
    select: { leaseExpiresAt: true, run: { select: { id: true, status: true, agentId: true, boundTaskRevision: true, task: { select: { revision: true } } } } },
  });
  const candidates = new Map<string, string>();
  for (const e of execs) {
    const lapsed = e.leaseExpiresAt !== null && e.leaseExpiresAt <= now;
    if (e.run.status !== "executing" || e.run.task.revision !== e.run.boundTaskRevision || lapsed) candidates.set(e.run.id, e.run.agentId);
  }
  const discarded: string[] = [];
  for (const [runId, agentId] of candidates) {
    const agent = await db.agent.findUnique({ where: { id: agentId }, select: { id: true, name: true, desk: true } });
    if (!agent) continue;
    const caller: AgentCaller = { id: agent.id, name: agent.name, desk: agent.desk, keyId: "plandesk-staging-sweep", allowedTools: [] };
    const steps = await inTransaction(async (tx) => {
      await lockTaskOfRun(tx, runId);
      await lockRun(tx, runId);
      // Decided again under the locks: a promotion or a report may have ended the rows meanwhile.
      const run = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, boundTaskRevision: true, task: { select: { revision: true } } } });
      const open = await tx.stepExecution.findMany({ where: { runId, resolution: null }, select: { stepId: true, status: true, leaseExpiresAt: true } });
      const staged = await tx.stagedEffect.findMany({ where: { runId, status: "staged" }, select: { stepId: true } });
      if (staged.length === 0) return ok([] as string[]);
      let why: string;
      if (run.status !== "executing") {
        why = `staged_not_promoted: the run ended ${run.status} before its staged writes were promoted. Nothing was applied; nothing visible was written.`;
      } else if (run.task.revision !== run.boundTaskRevision) {
        // As the promotion's fence would: the run stops for its stale task first.
        await stopForStaleTask(
          tx,
          runId,
          {
            code: "stopped_stale_task",
            boundRevision: run.boundTaskRevision,
            liveRevision: run.task.revision,
            executedStepIds: open.filter((e) => e.status === "succeeded").map((e) => e.stepId),
            claimedStepIds: open.filter((e) => e.status === "claimed" || e.status === "unknown").map((e) => e.stepId),
            blockedStepId: staged[0].stepId,
            at: now.toISOString(),
          },
          { kind: "system" },
        );
        why = `staged_not_promoted: the task moved from revision ${run.boundTaskRevision} to ${run.task.revision} before the promotion; the run is stopped. Nothing was applied; nothing visible was written.`;
      } else {
        const lapsed = open.find((e) => e.status === "claimed" && e.leaseExpiresAt !== null && e.leaseExpiresAt <= now && staged.some((r) => r.stepId === e.stepId));
        if (!lapsed) return ok([] as string[]);
        why = `staged_not_promoted: the claim of step ${lapsed.stepId} lapsed (lease ended ${lapsed.leaseExpiresAt!.toISOString()}) before the promotion. Nothing was applied; nothing visible was written.`;
      }
      return ok(await discardStagedIn(tx, caller, runId, why, now));
    }, db);
    if (steps.length > 0) discarded.push(runId);
  }
  return discarded;
}

/**
 * `POST /api/v1/demo/effects/promote` (demo mode): promotes run `body.runId`'s staged writes, all
 * or nothing, in ONE transaction (SERIALIZABLE on PostgreSQL): the task's and the run's row locks
 * (as demo-effects.ts), then every step of the run's plan version must be staged
 * (409 `effect_failed` {reason: "not_all_staged", missing}; nothing discarded, stage the rest);
 * then every staged step's claim is fenced again (`checkFence` with the live source versions of
 * its records, read before any write: lease, run executing, bound task revision, approval still
 * claimed, desk, target versions). The first refusal applies nothing: every staged row becomes
 * `discarded` ("staged_not_promoted: …"), its claim is reported `failed`, the fence's own effects
 * stand (a revised task stops the run `stopped_stale_task`), and the refusal is answered typed
 * (409 `claim_fenced` {reason, …} / `target_changed`). Otherwise every staged write is applied in
 * plan order (the same reference writes as a direct demo effect, conditional on record versions;
 * each also saved as that claim's demo effect) and each step is reported `succeeded` with its
 * `targetVersions` through the report-outcome rules in the same transaction, so the run settles
 * (`completed`) as the executor's reports would make it. A write impossible now (409
 * `effect_failed` {reason}) rolls the whole transaction back; a second transaction then discards
 * the staged rows and reports their claims `failed` (nothing visible was written). A repeat after
 * a promotion answers the saved promotion (`replayed: true`) and writes nothing. Errors: 404
 * `not_found` when demo mode is off, the run is not the caller's, or it has nothing staged.
 */
export async function promoteStagedEffects(agent: AgentCaller, body: DemoPromoteBody, now = new Date(), db: PrismaClient = prisma): Promise<{ promotion: DemoPromotion; replayed: boolean }> {
  if (!serverConfig().demo) throw new DomainError("not_found", "Demo effects exist only in demo mode.");
  const runId = body.runId;
  try {
    return await inTransaction(async (tx): Promise<Result<{ promotion: DemoPromotion; replayed: boolean }>> => {
      await lockTaskOfRun(tx, runId);
      await lockRun(tx, runId);
      const run = await tx.run.findUnique({ where: { id: runId }, select: { id: true, agentId: true, desk: true, planVersion: true } });
      if (!run || run.agentId !== agent.id) return { ok: false, error: new DomainError("not_found", `Run ${runId} is not a run of yours.`) };
      const saved = await tx.idempotencyRecord.findUnique({ where: { scope_key: { scope: PROMOTE_SCOPE, key: runId } } });
      if (saved) return ok({ promotion: readJsonColumn(demoPromotionSchema, saved.body, "demo promotion") as DemoPromotion, replayed: true });
      const rows = await tx.stagedEffect.findMany({ where: { runId, status: "staged" } });
      if (rows.length === 0) return { ok: false, error: new DomainError("not_found", `Run ${runId} has no staged writes to promote.`) };
      const steps = storedSteps((await tx.planVersion.findUniqueOrThrow({ where: { runId_version: { runId, version: run.planVersion } } })).steps);
      const missing = steps.filter((s) => !rows.some((r) => r.stepId === s.id)).map((s) => s.id);
      if (missing.length > 0) {
        return { ok: false, error: new DomainError("effect_failed", `Steps ${missing.join(", ")} of run ${runId} are not staged; stage every step before the promotion. Nothing is written.`, { reason: "not_all_staged", missing }) };
      }
      const execs = await tx.stepExecution.findMany({ where: { id: { in: rows.map((r) => r.executionId) } } });
      const ordered = steps.map((step) => {
        const row = rows.find((r) => r.stepId === step.id)!;
        return { step, row, exec: execs.find((e) => e.id === row.executionId)! };
      });
      // The re-check: every claim fenced again, with the live versions as they are before any write.
      for (const { step, exec } of ordered) {
        const fence = await checkFence(tx, exec.token, now, agent.id, await liveVersionsOf(tx, run.desk, step));
        const refusal = fence.ok ? (digest(step) !== exec.digest || exec.planVersion !== run.planVersion ? new DomainError("effect_failed", `Step ${step.id} as stored is not the step that was claimed; nothing is written.`, { reason: "digest" }) : null) : fence.error;
        if (refusal) {
          const why = `staged_not_promoted: the re-check before promotion refused (${step.id}: ${String(refusal.details.reason ?? refusal.code)} — ${refusal.message}). Nothing was applied; nothing visible was written.`;
          await discardStagedIn(tx, agent, runId, why, now);
          return { ok: false, error: refusal };
        }
      }
      const effects: DemoEffect[] = [];
      for (const { step, exec } of ordered) {
        // A DomainError here (effect_failed) rolls back every write before it: all or nothing.
        const written = await writeEffect(tx, step.tool, step.args, run.desk);
        const effect: DemoEffect = { runId, stepId: step.id, tool: step.tool, appliedAt: now.toISOString(), ...written, targetVersions: await advanceSource(tx, run.desk, written.record, now) };
        effects.push(effect);
        await tx.idempotencyRecord.create({ data: { id: nanoid(), scope: `effect:${runId}:${step.id}`, key: exec.id, status: 200, body: toJsonColumn(effect), createdAt: now } });
      }
      await tx.stagedEffect.updateMany({ where: { runId, status: "staged" }, data: { status: "promoted", endedAt: now } });
      let runStatus: RunStatus = "executing";
      for (const [i, { step, exec }] of ordered.entries()) {
        const reported = await reportOutcomeIn(tx, agent, runId, step.id, { token: exec.token, status: "succeeded", detail: `Promoted with ${ordered.length} staged writes: ${effects[i].summary}`.slice(0, 4000), targetVersions: effects[i].targetVersions }, now);
        if (!reported.ok) throw reported.error;
        runStatus = reported.value.run.status;
      }
      const promotion: DemoPromotion = { runId, promotedAt: now.toISOString(), effects, steps: effects.map((e) => ({ stepId: e.stepId, status: "succeeded", targetVersions: e.targetVersions })), run: { id: runId, status: runStatus } };
      await tx.idempotencyRecord.create({ data: { id: nanoid(), scope: PROMOTE_SCOPE, key: runId, status: 200, body: toJsonColumn(promotion), createdAt: now } });
      return ok({ promotion, replayed: false });
    }, db);
  } catch (e) {
    if (!(e instanceof DomainError) || e.code !== "effect_failed" || e.details.reason === "not_all_staged") throw e;
    // The write failed and nothing was applied: the staged writes are discarded, their claims reported failed.
    const why = `staged_not_promoted: a staged write is impossible now (${String(e.details.reason ?? e.code)} — ${e.message}). Nothing was applied; nothing visible was written.`;
    await inTransaction(async (tx) => {
      await lockTaskOfRun(tx, runId);
      await lockRun(tx, runId);
      await discardStagedIn(tx, agent, runId, why, now);
      return ok(null);
    }, db);
    throw e;
  }
}

/** The idempotency scope of a run's promotion answer (key: the run id). */
const PROMOTE_SCOPE = "demo_promote";
