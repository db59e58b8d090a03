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
import { getTool, isToolName } from "../../tools/builtin-tools";
import type { ReferenceWriteResult } from "../../tools/reference-write";
import { REFERENCE_WRITES } from "./reference-writes";
import { inTransaction, ok, type Result, type Tx } from "../db/transaction";
import type { DemoEffectBody } from "../../api/bodies";
import { recordKey, type RecordVersions } from "../../records/record-key";
import { referencedIds } from "../account-data/load-account-snapshot";

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


/**
 * What a demo write did: the tool's reference write result (`summary`, `record` before/after or
 * null) for one claimed step, and `targetVersions` — the source version the written record has now
 * (`{"invoice:in_74119": 9}`, `{}` when no record changed), which the executor reports with the
 * outcome like the answer of a real system of record.
 */
export interface DemoEffect extends ReferenceWriteResult {
  runId: string;
  stepId: string;
  tool: string;
  appliedAt: string;
  targetVersions: RecordVersions;
}

const fail = (message: string, details: Record<string, unknown> = {}) => new DomainError("effect_failed", message, details);

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
 */
export async function applyDemoEffect(
  agent: AgentCaller,
  body: DemoEffectBody,
  now = new Date(),
  db: PrismaClient = prisma,
): Promise<{ effect: DemoEffect; replayed: boolean }> {
  if (!serverConfig().demo) throw new DomainError("not_found", "Demo effects exist only in demo mode.");
  // inTransaction: SERIALIZABLE on PostgreSQL and retried on a conflict, like every write; the run's
  // row lock orders this write after a concurrent outcome report or stop of the same run.
  return inTransaction(
    async (tx): Promise<Result<{ effect: DemoEffect; replayed: boolean }>> => {
      // The lock order: the task (the fence below updates it), then the run.
      await lockTaskOfRun(tx, body.runId);
      await lockRun(tx, body.runId);
      const exec = await tx.stepExecution.findUnique({ where: { token: body.token }, include: { run: true } });
      if (!exec || exec.runId !== body.runId || exec.stepId !== body.stepId || exec.run.agentId !== agent.id) {
        return { ok: false, error: new DomainError("invalid_claim_token", `This token is not the claim of step ${body.stepId} of run ${body.runId}.`) };
      }
      const scope = `effect:${exec.runId}:${exec.stepId}`;
      const saved = await tx.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: exec.id } } });
      if (saved) return ok({ effect: readJsonColumn(demoEffectSchema, saved.body, "demo effect") as DemoEffect, replayed: true });
      // The reference executor checks the fence in the same transaction as its write.
      const pv = await tx.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: exec.runId, version: exec.planVersion } } });
      const step = storedSteps(pv.steps).find((s) => s.id === exec.stepId);
      const fence = await checkFence(tx, body.token, now, agent.id, step ? await liveVersionsOf(tx, exec.run.desk, step) : null);
      if (!fence.ok) {
        return { ok: false, error: fence.error };
      }
      if (!step || digest(step) !== exec.digest) {
        return { ok: false, error: fail(`Step ${exec.stepId} as stored is not the step that was claimed; nothing is written.`, { reason: "digest" }) };
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

/**
 * The live source versions of the records `step`'s arguments name, as an executor reads them right
 * before its write (the fence's `targetVersions`): by primary key (desk, id) on the run's desk
 * `desk`, records without a source version left out.
 */
async function liveVersionsOf(tx: Tx, desk: string, step: { tool: string; args: unknown }): Promise<RecordVersions> {
  const refs = referencedIds([step], { argumentsOnly: true });
  const out: RecordVersions = {};
  const put = (kind: string, rows: { id: string; sourceVersion: bigint | null }[]) => {
    for (const r of rows) if (r.sourceVersion !== null) out[recordKey(kind, r.id)] = Number(r.sourceVersion);
  };
  const select = { id: true, sourceVersion: true } as const;
  if (refs.invoice.size) put("invoice", await tx.invoice.findMany({ where: { desk, id: { in: [...refs.invoice] } }, select }));
  if (refs.shipment.size) put("shipment", await tx.shipment.findMany({ where: { desk, id: { in: [...refs.shipment] } }, select }));
  if (refs.account.size) put("account", await tx.customerAccount.findMany({ where: { desk, id: { in: [...refs.account] } }, select }));
  return out;
}

/**
 * What the demo's system of record does to a record it changed (`record` of a reference write):
 * source version + 1 (from 0 for a record written before the door), source time = sync time =
 * `now` (UTC), in the write's transaction; the record is the run's desk `desk`'s. Returns the new version as `{"<kind>:<id>": v}`, `{}`
 * when no record changed.
 */
async function advanceSource(tx: Tx, desk: string, record: ReferenceWriteResult["record"], now: Date): Promise<RecordVersions> {
  if (!record) return {};
  const where = { desk_id: { desk, id: record.id } };
  const row =
    record.type === "invoice"
      ? await tx.invoice.findUniqueOrThrow({ where, select: { sourceVersion: true } })
      : await tx.shipment.findUniqueOrThrow({ where, select: { sourceVersion: true } });
  const next = (row.sourceVersion ?? BigInt(0)) + BigInt(1);
  const data = { sourceVersion: next, sourceUpdatedAt: now, syncedAt: now };
  if (record.type === "invoice") await tx.invoice.update({ where, data });
  else await tx.shipment.update({ where, data });
  record.after = { ...record.after, sourceVersion: Number(next) };
  return { [recordKey(record.type, record.id)]: Number(next) };
}

/**
 * The write of `tool` with `args` (the step as approved): the built-in tool's reference write
 * (lib/server/demo/reference-writes.ts) on the run's desk `desk`, its arguments parsed again by the tool's own schema.
 * Errors: `effect_failed` {reason: "unknown_tool"} for a tool that is not built in (an imported
 * tool has no reference write), {reason: "invalid_arguments"} when the stored arguments no longer
 * parse; any reason its write gives.
 */
async function writeEffect(tx: Tx, tool: string, args: Record<string, unknown>, desk: string): Promise<Pick<DemoEffect, "summary" | "record">> {
  const def = getTool(tool);
  if (!def || !isToolName(tool)) throw fail(`The demo executor cannot write ${tool} steps.`, { reason: "unknown_tool" });
  const parsed = def.argsSchema.safeParse(args);
  if (!parsed.success) throw fail(`The arguments of this ${tool} step do not parse any more; nothing is written.`, { reason: "invalid_arguments" });
  return REFERENCE_WRITES[tool](tx, parsed.data as never, desk);
}
