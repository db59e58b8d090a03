import { nanoid } from "nanoid";
import { DomainError } from "../../errors/domain-error";
import type { PrismaClient } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { checkFence } from "../claims/fence-claim";
import { lockRun, lockTaskOfRun } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../plans/stored-plan";
import type { AgentCaller } from "../auth/viewer";
import { readJsonColumn, toJsonColumn } from "../db/json-column";
import { demoEffectSchema } from "../../api/schemas";
import { inTransaction, ok, type Result } from "../db/transaction";
import type { DemoEffectBody } from "../../api/bodies";
import { advanceSource, effectFailed, liveVersionsOf, referenceArgs, writeEffect, type DemoEffect } from "./reference-step-write";
import { discardStagedIn, stagedView, type StagedView } from "./staged-effects";

/**
 * The demo executor's "write" (demo mode only): applies the effect of a claimed step to the demo
 * account data, so the simulator (scripts/simulate.ts) can show real effects without an outside
 * system. Not part of docs/api.md; a real executor writes to its own systems, then reports.
 *
 * The effect is derived from the step as approved (stored plan version of the claim, checked
 * against the claim's digest) — never from the request — and is applied at most once per claim:
 * the answer is saved as an idempotency record keyed by the claim, in the same transaction as
 * the write. Account records change by conditional updates on their `version` column. Like any
 * outside system's write it is not a console audit event; the executor's outcome report is.
 */


export type { DemoEffect } from "./reference-step-write";

/**
 * Applies the claimed step's effect once (demo mode only): the step's tool's reference write
 * (lib/tools/<tool>/reference-write.ts; e.g. `issue_refund` lowers the invoice's open balance,
 * `reschedule_delivery` moves the shipment window, ticket tools are recorded only). A repeat with
 * the same claim returns the saved effect (`replayed: true`) and writes nothing.
 * The write happens only if the claim's fence holds, checked in the write's own transaction
 * (claims/fence-claim.ts) with the live source versions of the step's records (an honest executor's
 * `targetVersions`): a fenced or lapsed token, or a target changed since the approval, writes
 * nothing. The write changes the record as its source would: source version + 1, source time and
 * sync time `now` (the demo's local copy IS its system of record), and the answer carries the new
 * version (`targetVersions`), so the outcome's report leaves no money hold waiting for a sync.
 * Errors: 404 `not_found` when demo mode is off; 409 `invalid_claim_token` (not this agent's
 * claim of that step), `claim_fenced` {reason} (outcome already reported, lease lapsed, run not
 * executing, task revised, approval withdrawn); 409 `effect_failed` {reason} when
 * the write is impossible now (e.g. the invoice balance no longer covers the refund) — report
 * the step `failed`.
 * With `body.stage` (docs/design.md "Staged runs: all or nothing where the target allows it") the
 * same checks run — fence with live versions, digest, the arguments parse — but nothing is
 * applied: the write is kept as a `staged_effect` row keyed by the claim (`{staged}`, its handle
 * `stg_…`), the claim stays open, and `promoteStagedEffects` (staged-effects.ts) applies it with
 * the run's other staged writes. A repeat answers the same row (`replayed`); a fenced stage
 * discards the run's staged writes and reports their claims `failed`. 409 `effect_failed`
 * {reason: "staged"} for a direct write of a staged claim, {reason: "applied"} for staging a
 * claim already written.
 */
export async function applyDemoEffect(agent: AgentCaller, body: DemoEffectBody & { stage?: false }, now?: Date, db?: PrismaClient): Promise<{ effect: DemoEffect; replayed: boolean }>;
/** `applyDemoEffect` with `stage` possibly true: `{staged}` (the staging handle) instead of `{effect}`. */
export async function applyDemoEffect(agent: AgentCaller, body: DemoEffectBody, now?: Date, db?: PrismaClient): Promise<{ effect: DemoEffect; replayed: boolean } | { staged: StagedView; replayed: boolean }>;
export async function applyDemoEffect(
  agent: AgentCaller,
  body: DemoEffectBody,
  now = new Date(),
  db: PrismaClient = prisma,
): Promise<{ effect: DemoEffect; replayed: boolean } | { staged: StagedView; replayed: boolean }> {
  if (!serverConfig().demo) throw new DomainError("not_found", "Demo effects exist only in demo mode.");
  // inTransaction: SERIALIZABLE on PostgreSQL and retried on a conflict, like every write; the run's
  // row lock orders this write after a concurrent outcome report or stop of the same run.
  return inTransaction(
    async (tx): Promise<Result<{ effect: DemoEffect; replayed: boolean } | { staged: StagedView; replayed: boolean }>> => {
      // The lock order: the task (the fence below updates it), then the run.
      await lockTaskOfRun(tx, body.runId);
      await lockRun(tx, body.runId);
      const exec = await tx.stepExecution.findUnique({ where: { token: body.token }, include: { run: true } });
      if (!exec || exec.runId !== body.runId || exec.stepId !== body.stepId || exec.run.agentId !== agent.id) {
        return { ok: false, error: new DomainError("invalid_claim_token", `This token is not the claim of step ${body.stepId} of run ${body.runId}.`) };
      }
      const scope = `effect:${exec.runId}:${exec.stepId}`;
      const saved = await tx.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: exec.id } } });
      const staged = await tx.stagedEffect.findUnique({ where: { executionId: exec.id } });
      if (body.stage) {
        if (staged) return ok({ staged: stagedView(staged), replayed: true });
        if (saved) return { ok: false, error: effectFailed(`Step ${exec.stepId} was already written under this claim; it cannot be staged.`, { reason: "applied" }) };
      } else {
        if (saved) return ok({ effect: readJsonColumn(demoEffectSchema, saved.body, "demo effect") as DemoEffect, replayed: true });
        if (staged) {
          return { ok: false, error: effectFailed(`Step ${exec.stepId} is staged under this claim (${staged.id}, ${staged.status}); only the run's promotion (POST /api/v1/demo/effects/promote) applies it.`, { reason: "staged", handle: staged.id, stagedStatus: staged.status }) };
        }
      }
      // The reference executor checks the fence in the same transaction as its write.
      const pv = await tx.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: exec.runId, version: exec.planVersion } } });
      const step = storedSteps(pv.steps).find((s) => s.id === exec.stepId);
      const fence = await checkFence(tx, body.token, now, agent.id, step ? await liveVersionsOf(tx, exec.run.desk, step) : null);
      if (!fence.ok) {
        // A stop before the promotion: the run's staged writes are never applied.
        if (body.stage) await discardStagedIn(tx, agent, exec.runId, `staged_not_promoted: staging step ${exec.stepId} was refused (${String(fence.error.details.reason ?? fence.error.code)}); nothing was applied, nothing visible was written.`, now);
        return { ok: false, error: fence.error };
      }
      if (!step || digest(step) !== exec.digest) {
        return { ok: false, error: effectFailed(`Step ${exec.stepId} as stored is not the step that was claimed; nothing is written.`, { reason: "digest" }) };
      }
      if (body.stage) {
        try {
          referenceArgs(step.tool, step.args);
        } catch (e) {
          if (e instanceof DomainError) return { ok: false, error: e };
          throw e;
        }
        const row = await tx.stagedEffect.create({ data: { id: `stg_${nanoid()}`, executionId: exec.id, runId: exec.runId, stepId: exec.stepId, tool: step.tool, status: "staged", stagedAt: now } });
        return ok({ staged: stagedView(row), replayed: false });
      }
      let effect: DemoEffect;
      try {
        const written = await writeEffect(tx, step.tool, step.args, exec.run.desk);
        effect = { runId: exec.runId, stepId: exec.stepId, tool: step.tool, appliedAt: now.toISOString(), ...written, targetVersions: await advanceSource(tx, exec.run.desk, written.record, now) };
      } catch (e) {
        if (e instanceof DomainError) return { ok: false, error: e };
        throw e;
      }
      await tx.idempotencyRecord.create({
        data: { id: nanoid(), scope, key: exec.id, status: 200, body: toJsonColumn(effect), createdAt: now },
      });
      return ok({ effect, replayed: false });
    },
    db,
  );
}
