/**
 * Plandesk executes the writes its MCP gateway holds (docs/design.md "MCP gateway"): for every
 * gateway write (`gateway_call`, kind write, status pending) whose run is approved or executing,
 * Plandesk itself is the executor — through the same functions an outside executor reaches over
 * HTTP, never a copy of them:
 *
 * 1. **claim** the step (`claimStep`, lib/server/claims/claim-step.ts) as the run's agent with the
 *    digest of the step as now stored: the run approved, the approval active on that digest, the
 *    reviewed plan version, the bound task revision, live validation, the approver's authority —
 *    one conditional write, so exactly one claimer in any number of instances wins;
 * 2. take the **approved arguments** from the claimed approval and check that their digest is the
 *    claim's (else nothing is called: `cannot_execute`);
 * 3. **fence** the claim (`checkFence`): lease, run, task revision and approval still hold, else
 *    nothing is called and the step is reported `failed` (nothing written);
 * 4. call the upstream tool **once** with exactly those arguments and `_meta`
 *    `{"plandesk/idempotencyKey": "plandesk:<runId>:<stepId>", "plandesk/runId", "plandesk/stepId"}`;
 * 5. **report** the outcome (`reportOutcome`): the tool's answer → `succeeded`, an answer with
 *    `isError` → `failed` (with `_meta["plandesk/stopConditionMet"]: true` the tool found the step's
 *    stop condition met and wrote nothing: the run stops), a timeout or a lost answer → `unknown` (it waits for a person on
 *    /reconciliation; Plandesk never calls again — the claim is spent). An upstream that could not
 *    be reached before anything was sent → `cannot_execute` (nothing written).
 *
 * The gateway row moves pending → calling (conditional, after the claim) → succeeded | failed |
 * unknown; a row whose run ended without executing moves to `ended`. A row left `calling` longer
 * than the call's timeout plus a grace period (the instance died mid-call) is reported `unknown`
 * by whichever instance sweeps next — never called again.
 *
 * **Staged runs** (docs/design.md "Staged runs"): when every step of a run is a gateway write of
 * one upstream whose tool declares `x-plandesk-stage` with one commit tool (`stagedPlanOf`), steps
 * 1–4 are the same, but the call only stages: its answer's handle is kept (row `staged`) and the
 * claim stays open. When every row of the run is staged, `promoteStagedRuns` fences every claim
 * again in one transaction and calls the commit tool once with all handles; a refusal commits
 * nothing (`discarded`), a lost answer is `unknown` for every step. Staged rows of a run that ended
 * first are `discarded` (`discardUnpromoted`): nothing visible was written.
 *
 * Triggered by a per-instance loop (`startGatewayExecutor`, from instrumentation.ts, every
 * PLANDESK_GATEWAY_SECONDS, default 2 s); every instance may run it: the claim decides who calls.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { nanoid } from "nanoid";
import type { Prisma } from "../../generated/prisma/client";
import { isDomainError } from "../../errors/domain-error";
import { RUN_STATES, isTerminal } from "../../lifecycle/run-state";
import { digest } from "../../plan/digest";
import { appendAudit } from "../audit-log/append-audit";
import { agentDesk, type AgentCaller } from "../auth/viewer";
import { claimStep } from "../claims/claim-step";
import { checkFence } from "../claims/fence-claim";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { inTransaction, isUniqueViolation, ok, type Db } from "../db/transaction";
import { loadPlanVersionRow } from "../plans/load-run";
import { storedSteps } from "../plans/stored-plan";
import { connectUpstream, redactAnswer } from "../tools/mcp-upstreams";
import { idempotencyKeyOf, storableResult } from "./call-gateway-tool";
import { gatewayToolOf } from "./gateway-tools";
import { importedToolsAt } from "../tools/imported-tools";
import { stagingOfSchema } from "../../tools/tool-bindings";
import { log } from "../../net/log.mjs";

/** How long Plandesk waits for an upstream's answer to an execution (ms) unless told otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** A claim of a gateway step older than this whose gateway row never moved to `calling` was not made by the gateway's call (ms). */
const FOREIGN_CLAIM_MS = 120_000;

/** What one pass did, by gateway call id. */
export interface GatewayPass {
  /** Calls answered by the upstream (succeeded or failed). */
  executed: string[];
  /** Calls whose answer was lost (timeout, connection lost, instance died): outcome `unknown`. */
  unknown: string[];
  /** Calls whose run ended without executing them (rejected, expired, stopped…), or that could not be started. */
  ended: string[];
  /** Calls of a staged run whose stage call answered a handle: written, invisible, waiting for the run's promotion. */
  staged: string[];
  /** Runs promoted: their commit call answered, every staged write visible at once. */
  promoted: string[];
  /** Calls staged but never promoted (the run stopped or a re-check refused before the commit): nothing visible was written. */
  discarded: string[];
}

/** Options of a pass: the clock, the upstream call's timeout, the database (tests model instances), how many rows. */
export interface GatewayPassOptions {
  now?: () => Date;
  callTimeoutMs?: number;
  db?: Db;
  limit?: number;
}

const TERMINAL = RUN_STATES.filter((s) => isTerminal(s));

/** The call timeout from PLANDESK_GATEWAY_CALL_TIMEOUT_MS (1,000–600,000 ms), else DEFAULT_CALL_TIMEOUT_MS. */
export function gatewayCallTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.PLANDESK_GATEWAY_CALL_TIMEOUT_MS);
  return Number.isFinite(n) && n >= 1000 ? Math.min(600_000, n) : DEFAULT_CALL_TIMEOUT_MS;
}

/**
 * The interval between two passes of an instance's executor loop, ms: PLANDESK_GATEWAY_SECONDS
 * (default 2 s) in milliseconds, at least 500. Also the poll interval a gateway write's MCP task
 * suggests (./gateway-tasks.ts): asking more often learns nothing new.
 */
export function gatewayPassIntervalMs(env: Record<string, string | undefined> = process.env): number {
  return Math.max(500, Number(env.PLANDESK_GATEWAY_SECONDS ?? 2) * 1000 || 2000);
}

type PendingRow = { id: string; runId: string; stepId: string; upstreamId: string; tool: string; agentId: string; idempotencyKey: string | null; taskId: string | null; runStatus: string };

/**
 * One pass of the gateway executor (see the module comment): ends the rows of ended runs, sweeps
 * calls an instance left mid-call, then executes up to `limit` (default 20) approved gateway steps,
 * oldest first, one after another. Never throws for one row's failure (logged; the next pass
 * decides again). Returns what it did.
 */
export async function executeGatewaySteps(opts: GatewayPassOptions = {}): Promise<GatewayPass> {
  const db = opts.db ?? prisma;
  const now = opts.now ?? (() => new Date());
  const timeoutMs = opts.callTimeoutMs ?? gatewayCallTimeoutMs();
  const pass: GatewayPass = { executed: [], unknown: [], ended: [], staged: [], promoted: [], discarded: [] };
  const plans = new Map<string, StagedPlan | null>();
  const rows = await db.$queryRawUnsafe<PendingRow[]>(
    `SELECT g."id", g."runId", g."stepId", g."upstreamId", g."tool", g."agentId", g."idempotencyKey", g."taskId", r."status" AS "runStatus"
     FROM "gateway_call" g JOIN "run" r ON r."id" = g."runId"
     WHERE g."kind" = 'write' AND g."status" = 'pending' AND r."status" IN (${["approved", "executing", ...TERMINAL].map((s) => `'${s}'`).join(", ")})
     ORDER BY g."createdAt" ASC LIMIT ${Math.max(1, Math.min(100, opts.limit ?? 20))}`,
  );
  const executeRow = async (row: PendingRow) => {
    try {
      if (TERMINAL.includes(row.runStatus as (typeof TERMINAL)[number])) {
        if (await finish(db, row, "pending", "ended", null, `The run ended ${row.runStatus} before Plandesk executed the step; nothing was sent upstream.`)) pass.ended.push(row.id);
        return;
      }
      if (!plans.has(row.runId)) plans.set(row.runId, await stagedPlanOf(db, row.runId));
      const done = await executeOne(db, row, now, timeoutMs, plans.get(row.runId) ?? null);
      if (done) pass[done].push(row.id);
    } catch (e) {
      log.error({ err: e }, `plandesk: gateway execution of ${row.id} failed`);
    }
  };
  for (const row of rows) await executeRow(row);
  // steps a person added to a gateway run, once the agent's own writes are done: executed in this
  // pass when an upstream serves their tool, else reported cannot_execute (the run ends typed)
  try {
    const added = await adoptAddedSteps(db, now, pass);
    for (const row of added) {
      plans.delete(row.runId);
      await executeRow(row);
    }
  } catch (e) {
    log.error({ err: e }, "plandesk: gateway adoption of added steps failed");
  }
  try {
    await promoteStagedRuns(db, now, timeoutMs, pass);
    pass.discarded.push(...(await discardUnpromoted(db, now)));
  } catch (e) {
    log.error({ err: e }, "plandesk: gateway promotion failed");
  }
  pass.unknown.push(...(await sweepAbandonedCalls(db, now(), timeoutMs)));
  return pass;
}

/** The run's agent as the executor's caller (Plandesk acts for the agent whose plan it is). */
async function agentOf(db: Db, agentId: string): Promise<AgentCaller | null> {
  const a = await db.agent.findUnique({ where: { id: agentId }, select: { id: true, name: true, desk: true, allowedTools: true } });
  if (!a) return null;
  return { id: a.id, name: a.name, desk: a.desk, keyId: "plandesk-gateway", allowedTools: Array.isArray(a.allowedTools) ? a.allowedTools.filter((t): t is string => typeof t === "string") : [] };
}

/** Moves row `row.id` from `from` to `to` (conditional: one mover wins) with its result; true when this call moved it. */
async function finish(db: Db, row: { id: string; runId: string; tool: string; taskId: string | null; agentId: string }, from: string, to: string, result: unknown, error: string | null, upstream = ""): Promise<boolean> {
  return inTransaction(async (tx) => {
    const moved = await tx.gatewayCall.updateMany({ where: { id: row.id, status: from }, data: { status: to, ...(result !== null ? { result: storableResult(result) } : {}), error } });
    if (moved.count === 0) return ok(false);
    await appendAudit(tx, { runId: row.runId, type: "gateway_call", actor: { kind: "system" }, data: { callId: row.id, kind: "execute", tool: row.tool, upstream, status: to, taskId: row.taskId } });
    return ok(true);
  }, db);
}

/** Claims, fences, calls and reports one gateway step. Returns the pass list it belongs to, or null when it was not this instance's to execute. */
async function executeOne(db: Db, row: PendingRow, now: () => Date, timeoutMs: number, staging: StagedPlan | null): Promise<"executed" | "unknown" | "ended" | "staged" | null> {
  const agent = await agentOf(db, row.agentId);
  const run = await db.run.findUnique({ where: { id: row.runId }, select: { planVersion: true, boundTaskRevision: true } });
  const upstream = await db.mcpUpstream.findUnique({ where: { id: row.upstreamId } });
  if (!agent || !run || !upstream) return null;
  const step = storedSteps((await loadPlanVersionRow(db, row.runId, run.planVersion)).steps).find((s) => s.id === row.stepId);
  if (!step) {
    return (await finish(db, row, "pending", "ended", null, `Step ${row.stepId} is no longer in the plan (a person removed it); nothing was sent upstream.`, upstream.name)) ? "ended" : null;
  }
  // 1. claim — the one conditional write that makes exactly one executor the holder
  let claim;
  try {
    claim = (await claimStep(agent, row.runId, row.stepId, { digest: digest(step), taskRevision: run.boundTaskRevision }, null, now(), db)).claim;
  } catch (e) {
    if (!isDomainError(e)) throw e;
    // already claimed (another instance is calling), not approved yet, needs a person…: not ours now
    if (["stopped_stale_task", "expired"].includes(e.code)) {
      return (await finish(db, row, "pending", "ended", null, `The claim was refused (${e.code}); nothing was sent upstream.`, upstream.name)) ? "ended" : null;
    }
    if (e.code === "already_claimed") {
      // Another gateway instance moves its row to calling right after its claim; a claim that old
      // with the row still pending is another executor's (the agent's own), or an instance that
      // died between claim and call: Plandesk does not call (the claim waits on /reconciliation).
      const exec = await db.stepExecution.findUnique({ where: { runId_stepId: { runId: row.runId, stepId: row.stepId } }, select: { claimedAt: true } });
      if (exec && exec.claimedAt.getTime() < now().getTime() - FOREIGN_CLAIM_MS) {
        return (await finish(db, row, "pending", "ended", null, "The step was claimed without this gateway call being made; nothing was sent upstream by Plandesk.", upstream.name)) ? "ended" : null;
      }
    }
    return null;
  }
  const moved = await db.gatewayCall.updateMany({ where: { id: row.id, status: "pending" }, data: { status: "calling", callingSince: now() } });
  if (moved.count === 0) return null;
  const report = async (status: "succeeded" | "failed" | "unknown" | "cannot_execute", detail: string) => {
    await reportOutcome(agent, row.runId, row.stepId, { token: claim.token, status, detail: detail.slice(0, 4000) }, now(), db);
  };
  // 2. exactly the approved arguments: the claimed approval's, whose digest is the claim's
  const approval = await db.approval.findUnique({ where: { id: claim.approvalId }, select: { tool: true, args: true, digest: true } });
  if (!approval || approval.digest !== claim.digest || digest({ tool: approval.tool, args: approval.args }) !== claim.digest || approval.tool !== row.tool) {
    const why = "The approved arguments do not match the claim's digest; nothing was sent upstream.";
    if (await finish(db, row, "calling", "failed", null, why, upstream.name)) await report("cannot_execute", why);
    return "ended";
  }
  // 3. the connection first (starting a stdio server can take seconds) …
  let connected: Awaited<ReturnType<typeof connectUpstream>>;
  try {
    connected = await connectUpstream(upstream, Math.min(timeoutMs, 20_000));
  } catch (e) {
    const why = `The upstream MCP server "${upstream.name}" could not be reached; nothing was sent: ${isDomainError(e) ? e.message : "connection failed"}`;
    if (await finish(db, row, "calling", "failed", null, why, upstream.name)) await report("cannot_execute", why);
    return "ended";
  }
  // 4. … then the fence, as an outside executor asks it right before its write: a Stop, a rejection,
  // a withdrawn approval or a new task revision that came while connecting is seen here
  const fence = await inTransaction(async (tx) => ok(await checkFence(tx, claim.token, now(), agent.id, null)), db);
  if (!fence.ok) {
    await connected.client.close().catch(() => undefined);
    const why = `The fence refused the claim (${String(fence.error.details.reason ?? fence.error.code)}): ${fence.error.message} Nothing was sent upstream.`;
    if (await finish(db, row, "calling", "failed", null, why, upstream.name)) await report("failed", why).catch(() => undefined);
    return "ended";
  }
  // 5. one call, with the idempotency key derived from the step
  const key = row.idempotencyKey ?? `plandesk:${row.runId}:${row.stepId}`;
  // the call ends within the claim's lease: an answer after it could no longer be reported as a fenced write
  const callTimeoutMs = Math.max(1000, Math.min(timeoutMs, new Date(claim.leaseExpiresAt).getTime() - now().getTime() - 1000));
  let result: CallToolResult | null = null;
  let lost: string | null = null;
  try {
    result = redactAnswer((await connected.client.callTool({ name: approval.tool, arguments: approval.args as Record<string, unknown>, _meta: { "plandesk/idempotencyKey": key, "plandesk/runId": row.runId, "plandesk/stepId": row.stepId } }, undefined, { timeout: callTimeoutMs })) as CallToolResult, connected.redact);
  } catch (e) {
    lost = connected.redact(e instanceof Error ? e.message : String(e)).slice(0, 500);
  } finally {
    await connected.client.close().catch(() => undefined);
  }
  // 6. the outcome: the answer, or unknown — never a second call
  if (result === null) {
    const why = `The upstream's answer was lost (${lost}); whether it wrote is unknown. Plandesk does not call again: a person reconciles the step.`;
    if (await finish(db, row, "calling", "unknown", null, why, upstream.name)) await report("unknown", why);
    return "unknown";
  }
  const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ").slice(0, 1000);
  if (staging && !result.isError) {
    // a stage call: nothing visible is written; the claim stays open until the run's promotion reports it
    const handle = stagingHandleOf(result);
    if (handle) return (await finish(db, row, "calling", "staged", result, null, upstream.name)) ? "staged" : null;
    const why = `${upstream.name}/${approval.tool} answered without a staging handle (structuredContent.stagingHandle); it breaks the staging contract, so nothing of this run is promoted.`;
    if (await finish(db, row, "calling", "failed", result, why, upstream.name)) await report("failed", why);
    return "executed";
  }
  const status = result.isError ? "failed" : "succeeded";
  if (await finish(db, row, "calling", status, result, result.isError ? text : null, upstream.name)) {
    // a tool that found the step's stop condition met (it says so in its answer's _meta, and wrote nothing) ends the run
    const stop = result.isError === true && result._meta?.["plandesk/stopConditionMet"] === true;
    await reportOutcome(agent, row.runId, row.stepId, { token: claim.token, status, detail: `${upstream.name}/${approval.tool}: ${text}`.slice(0, 4000), ...(stop ? { stopConditionMet: true } : {}) }, now(), db);
  }
  return "executed";
}

/**
 * Steps a person added to a gateway run (docs/design.md "MCP gateway", its "Steps a person adds"):
 * the run is `executing`, every gateway write of it is done (none pending, calling or staged), no
 * step waits for a person (no open claim, unknown or flagged outcome), and its current plan holds
 * steps with neither a gateway call nor an execution — an operator added them in an edit and a
 * person approved them, but the agent never calls them (its own calls were answered). Nobody else
 * would execute them, so the run would wait for its deadline. For each such step, in plan order:
 * - its tool is a write tool an enabled upstream of the desk serves for the run's agent
 *   (`gatewayToolOf`): a pending gateway call is recorded for it (audited, `addedByPerson`) and
 *   returned, so the pass executes it as any gateway write — claimed, fenced, called once, reported;
 * - otherwise Plandesk claims it as the run's agent and reports it `cannot_execute` (nothing
 *   written): the run ends `failed`, outcome `cannot_execute`, and the step waits on
 *   /reconciliation, as the client package's executor does for a step its agent cannot execute.
 * A claim refused (the run moved meanwhile, a dependency not done) leaves the step to the next
 * pass. At most 20 runs a pass, found by index (`run.status`, the gateway rows by `runId`).
 * Returns the gateway calls recorded; the `cannot_execute` steps are listed in `pass.ended` as
 * `<runId>:<stepId>`.
 */
async function adoptAddedSteps(db: Db, now: () => Date, pass: GatewayPass): Promise<PendingRow[]> {
  const runs = await db.$queryRawUnsafe<{ id: string; agentId: string; taskId: string; planVersion: number; boundTaskRevision: number }[]>(
    `SELECT r."id", r."agentId", r."taskId", r."planVersion", r."boundTaskRevision" FROM "run" r
     WHERE r."status" = 'executing'
       AND EXISTS (SELECT 1 FROM "gateway_call" g WHERE g."runId" = r."id" AND g."kind" = 'write')
       AND NOT EXISTS (SELECT 1 FROM "gateway_call" g WHERE g."runId" = r."id" AND g."kind" = 'write' AND g."status" IN ('pending', 'calling', 'staged'))
       AND NOT EXISTS (SELECT 1 FROM "step_execution" e WHERE e."runId" = r."id" AND e."resolution" IS NULL AND (e."status" IN ('claimed', 'unknown') OR e."flag" IS NOT NULL))
     LIMIT 20`,
  );
  const created: PendingRow[] = [];
  for (const run of runs) {
    const agent = await agentOf(db, run.agentId);
    if (!agent) continue;
    const steps = storedSteps((await loadPlanVersionRow(db, run.id, Number(run.planVersion))).steps);
    const rows = await db.gatewayCall.findMany({ where: { runId: run.id, kind: "write" }, select: { stepId: true } });
    const executions = await db.stepExecution.findMany({ where: { runId: run.id }, select: { stepId: true } });
    const taken = new Set([...rows.map((r) => r.stepId), ...executions.map((e) => e.stepId)]);
    for (const step of steps.filter((st) => !taken.has(st.id))) {
      const tool = await gatewayToolOf(agent, step.tool);
      if (tool && !tool.read) {
        const id = `gwc_${nanoid(14)}`;
        const recorded = await inTransaction(async (tx) => {
          // one adopter of a step wins: the (runId, stepId) unique key refuses a second row
          if (await tx.gatewayCall.findFirst({ where: { runId: run.id, stepId: step.id }, select: { id: true } })) return ok(false);
          await tx.gatewayCall.create({
            data: { id, desk: agentDesk(agent), agentId: agent.id, upstreamId: tool.upstream.id, tool: step.tool, kind: "write", taskId: run.taskId, runId: run.id, stepId: step.id, arguments: step.args as Prisma.InputJsonValue, status: "pending", idempotencyKey: idempotencyKeyOf(run.id, step.id) },
          });
          await appendAudit(tx, { runId: run.id, type: "gateway_call", actor: { kind: "system" }, data: { callId: id, kind: "write", tool: step.tool, upstream: tool.upstream.name, status: "pending", taskId: run.taskId, addedByPerson: true } });
          return ok(true);
        }, db).catch((e: unknown) => {
          if (isUniqueViolation(e)) return false;
          throw e;
        });
        if (recorded) created.push({ id, runId: run.id, stepId: step.id, upstreamId: tool.upstream.id, tool: step.tool, agentId: agent.id, idempotencyKey: idempotencyKeyOf(run.id, step.id), taskId: run.taskId, runStatus: "executing" });
        continue;
      }
      let claim;
      try {
        claim = (await claimStep(agent, run.id, step.id, { digest: digest(step), taskRevision: run.boundTaskRevision }, null, now(), db)).claim;
      } catch (e) {
        if (isDomainError(e)) continue; // not claimable now (moved, a dependency not done…): the next pass decides again
        throw e;
      }
      const why = `A person added step ${step.id} (${step.tool}) to this run; no upstream MCP server of the desk serves ${step.tool} for this agent, so Plandesk cannot execute it. Nothing was written; a person takes it from /reconciliation.`;
      await reportOutcome(agent, run.id, step.id, { token: claim.token, status: "cannot_execute", detail: why }, now(), db);
      pass.ended.push(`${run.id}:${step.id}`);
    }
  }
  return created;
}

/**
 * Calls an instance began and never finished (it died, or lost its database mid-call): rows
 * `calling` since before `now - timeoutMs - 60 s`. Each is moved to `unknown` (conditional: one
 * sweeper wins) and its claim reported `unknown` — never called again. Returns their ids.
 */
async function sweepAbandonedCalls(db: Db, now: Date, timeoutMs: number): Promise<string[]> {
  const cutoff = new Date(now.getTime() - timeoutMs - 60_000);
  const rows = await db.gatewayCall.findMany({ where: { kind: "write", status: "calling", callingSince: { lt: cutoff } }, take: 20, orderBy: { callingSince: "asc" } });
  const swept: string[] = [];
  for (const row of rows) {
    if (!row.runId || !row.stepId) continue;
    const why = "The Plandesk instance calling the upstream stopped before its answer arrived; whether it wrote is unknown. Plandesk does not call again: a person reconciles the step.";
    if (!(await finish(db, { ...row, runId: row.runId }, "calling", "unknown", null, why))) continue;
    swept.push(row.id);
    const exec = await db.stepExecution.findUnique({ where: { runId_stepId: { runId: row.runId, stepId: row.stepId } }, select: { token: true, status: true } });
    const agent = await agentOf(db, row.agentId);
    if (exec?.status === "claimed" && agent) {
      await reportOutcome(agent, row.runId, row.stepId, { token: exec.token, status: "unknown", detail: why }, now, db).catch((e) => log.error({ err: e }, `plandesk: could not report ${row.id} unknown`));
    }
  }
  return swept;
}

/** A run Plandesk stages and promotes all or nothing: the commit tool of its steps' tools, on the one upstream they share. */
export interface StagedPlan {
  commit: string;
  upstreamId: string;
}

/**
 * Whether run `runId` is staged (see the module comment), and how: every step of its current plan
 * is a gateway write, all on one upstream, every tool declaring staging (`x-plandesk-stage`, in the
 * catalog version the run was validated against) with one and the same commit tool. Null when any
 * of that does not hold: the run's steps are executed one by one, as any run.
 */
export async function stagedPlanOf(db: Db, runId: string): Promise<StagedPlan | null> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { planVersion: true, catalogVersion: true } });
  if (!run || run.catalogVersion === null) return null;
  const steps = storedSteps((await loadPlanVersionRow(db, runId, run.planVersion)).steps);
  const rows = await db.gatewayCall.findMany({ where: { runId, kind: "write" }, select: { stepId: true, tool: true, upstreamId: true } });
  if (steps.length === 0 || !steps.every((st) => rows.some((r) => r.stepId === st.id && r.tool === st.tool))) return null;
  const upstreams = new Set(rows.filter((r) => steps.some((st) => st.id === r.stepId)).map((r) => r.upstreamId));
  if (upstreams.size !== 1) return null;
  const specs = await importedToolsAt(run.catalogVersion);
  const commits = new Set(steps.map((st) => {
    const spec = specs.find((sp) => sp.name === st.tool);
    return spec ? stagingOfSchema(spec.inputSchema).commit : null;
  }));
  const [commit] = [...commits];
  return commits.size === 1 && commit ? { commit, upstreamId: [...upstreams][0] } : null;
}

/** The staging handle a stage call answered: `structuredContent.stagingHandle` (or `_meta["plandesk/stagingHandle"]`), a string of at most 512 characters; else null. */
function stagingHandleOf(result: CallToolResult): string | null {
  const h = (result.structuredContent as Record<string, unknown> | undefined)?.stagingHandle ?? result._meta?.["plandesk/stagingHandle"];
  return typeof h === "string" && h.length > 0 && h.length <= 512 ? h : null;
}

/** The staging handle stored with a staged gateway row's result. */
function storedHandleOf(result: unknown): string | null {
  return result && typeof result === "object" ? stagingHandleOf(result as CallToolResult) : null;
}

/**
 * Promotes every staged run whose steps are all staged (its gateway rows all `staged`), each in
 * one final commit call: the rows move staged → calling together (one conditional update: one
 * instance promotes); then every step's claim is fenced again in one transaction (`checkFence`:
 * lease, run still executing, the task at the bound revision, each approval still held) — any
 * refusal and nothing is committed: the rows are `discarded`, every step reported `failed`
 * ("staged, never promoted"). Otherwise one call of the commit tool with `{handles}` and
 * `_meta["plandesk/idempotencyKey"] = plandesk:<runId>:promote`: its answer reports every step
 * `succeeded` (or `failed` on `isError`: the commit made nothing visible); a lost answer is
 * `unknown` for every step, never called again.
 */
async function promoteStagedRuns(db: Db, now: () => Date, timeoutMs: number, pass: GatewayPass): Promise<void> {
  const ready = await db.$queryRawUnsafe<{ runId: string }[]>(
    `SELECT g."runId" FROM "gateway_call" g JOIN "run" r ON r."id" = g."runId"
     WHERE g."kind" = 'write' AND g."status" = 'staged' AND r."status" = 'executing'
     AND NOT EXISTS (SELECT 1 FROM "gateway_call" o WHERE o."runId" = g."runId" AND o."kind" = 'write' AND o."status" <> 'staged')
     GROUP BY g."runId" LIMIT 20`,
  );
  for (const { runId } of ready) {
    const plan = await stagedPlanOf(db, runId);
    if (plan && (await promoteRun(db, runId, plan, now, timeoutMs))) pass.promoted.push(runId);
  }
}

/** Promotes one staged run (see promoteStagedRuns). Returns true when its commit call answered. */
async function promoteRun(db: Db, runId: string, plan: StagedPlan, now: () => Date, timeoutMs: number): Promise<boolean> {
  const rows = await db.gatewayCall.findMany({ where: { runId, kind: "write" }, orderBy: { createdAt: "asc" } });
  const run = await db.run.findUnique({ where: { id: runId }, select: { planVersion: true, agentId: true } });
  const upstream = await db.mcpUpstream.findUnique({ where: { id: plan.upstreamId } });
  const agent = run ? await agentOf(db, run.agentId) : null;
  if (!run || !upstream || !agent || rows.some((r) => r.status !== "staged")) return false;
  const steps = storedSteps((await loadPlanVersionRow(db, runId, run.planVersion)).steps);
  const ordered = steps.map((st) => rows.find((r) => r.stepId === st.id)).filter((r): r is (typeof rows)[number] => !!r);
  const handles = ordered.map((r) => storedHandleOf(r.result));
  // one instance promotes: every row staged → calling in one conditional statement
  const moved = await db.gatewayCall.updateMany({ where: { runId, kind: "write", status: "staged" }, data: { status: "calling", callingSince: now() } });
  if (moved.count !== rows.length) return false;
  const execs = await db.stepExecution.findMany({ where: { runId }, select: { stepId: true, token: true, leaseExpiresAt: true } });
  const tokenOf = (stepId: string | null) => execs.find((e) => e.stepId === stepId)?.token ?? null;
  const reportAll = async (status: "succeeded" | "failed" | "unknown", detail: string) => {
    for (const r of ordered) {
      const token = tokenOf(r.stepId);
      if (token && r.stepId) await reportOutcome(agent, runId, r.stepId, { token, status, detail: detail.slice(0, 4000) }, now(), db).catch((e) => log.error({ err: e }, `plandesk: could not report ${r.id} ${status}`));
    }
  };
  const discard = async (why: string) => {
    for (const r of ordered) await finish(db, { ...r, runId }, "calling", "discarded", null, why, upstream.name);
    await reportAll("failed", why);
  };
  if (ordered.length !== steps.length || handles.some((h) => h === null) || ordered.some((r) => !tokenOf(r.stepId))) {
    await discard("staged_not_promoted: a staged step has no handle or claim; nothing was committed, nothing visible was written.");
    return false;
  }
  let connected: Awaited<ReturnType<typeof connectUpstream>>;
  try {
    connected = await connectUpstream(upstream, Math.min(timeoutMs, 20_000));
  } catch (e) {
    await discard(`staged_not_promoted: the upstream MCP server "${upstream.name}" could not be reached to commit; nothing visible was written: ${isDomainError(e) ? e.message : "connection failed"}`);
    return false;
  }
  // the promotion's re-check: every step's claim fenced again (revision, approvals, lease, run), in one transaction
  const refused = await inTransaction(async (tx) => {
    for (const r of ordered) {
      const fence = await checkFence(tx, tokenOf(r.stepId)!, now(), agent.id, null);
      if (!fence.ok) return ok(`${r.stepId}: ${String(fence.error.details.reason ?? fence.error.code)} — ${fence.error.message}`);
    }
    return ok(null);
  }, db);
  if (refused) {
    await connected.client.close().catch(() => undefined);
    await discard(`staged_not_promoted: the re-check before promotion refused (${refused}). Nothing was committed; nothing visible was written.`);
    return false;
  }
  const leaseEnd = Math.min(...execs.filter((e) => e.leaseExpiresAt).map((e) => e.leaseExpiresAt!.getTime()));
  const callTimeoutMs = Math.max(1000, Math.min(timeoutMs, leaseEnd - now().getTime() - 1000));
  let result: CallToolResult | null = null;
  let lost: string | null = null;
  try {
    result = redactAnswer((await connected.client.callTool({ name: plan.commit, arguments: { handles }, _meta: { "plandesk/idempotencyKey": `plandesk:${runId}:promote`, "plandesk/runId": runId } }, undefined, { timeout: callTimeoutMs })) as CallToolResult, connected.redact);
  } catch (e) {
    lost = connected.redact(e instanceof Error ? e.message : String(e)).slice(0, 500);
  } finally {
    await connected.client.close().catch(() => undefined);
  }
  if (result === null) {
    const why = `The promotion's answer was lost (${lost}); whether the staged writes became visible is unknown. Plandesk does not commit again: a person reconciles the run.`;
    for (const r of ordered) await finish(db, { ...r, runId }, "calling", "unknown", null, why, upstream.name);
    await reportAll("unknown", why);
    return false;
  }
  const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ").slice(0, 1000);
  const status = result.isError ? "failed" : "succeeded";
  for (const r of ordered) await finish(db, { ...r, runId }, "calling", status, result, result.isError ? text : null, upstream.name);
  await reportAll(status, `${upstream.name}/${plan.commit} (promotion of ${ordered.length} staged writes): ${text}`);
  return true;
}

/**
 * Staged rows of runs that ended before their promotion (stopped by a task revision, failed, a
 * step refused…): moved to `discarded` — their writes were staged, never committed, so nothing
 * visible was written — and each open claim reported `failed` with that reason. Returns their ids.
 */
async function discardUnpromoted(db: Db, now: () => Date): Promise<string[]> {
  const staged = await db.gatewayCall.findMany({ where: { kind: "write", status: "staged" }, take: 200, orderBy: { createdAt: "asc" } });
  const ended = new Map((await db.run.findMany({ where: { id: { in: [...new Set(staged.map((r) => r.runId ?? ""))] }, status: { in: [...TERMINAL] } }, select: { id: true, status: true } })).map((r) => [r.id, r]));
  const out: string[] = [];
  for (const row of staged) {
    const run = row.runId ? ended.get(row.runId) : undefined;
    if (!run || !row.runId || !row.stepId) continue;
    const why = `staged_not_promoted: the run ended ${run.status} before its promotion; the staged write was never committed, nothing visible was written.`;
    if (!(await finish(db, { ...row, runId: row.runId }, "staged", "discarded", null, why))) continue;
    out.push(row.id);
    const exec = await db.stepExecution.findUnique({ where: { runId_stepId: { runId: row.runId, stepId: row.stepId } }, select: { token: true, status: true } });
    const agent = await agentOf(db, row.agentId);
    if (exec?.status === "claimed" && agent) await reportOutcome(agent, row.runId, row.stepId, { token: exec.token, status: "failed", detail: why }, now(), db).catch(() => undefined);
  }
  return out;
}

const g = globalThis as unknown as { plandeskGatewayExecutor?: ReturnType<typeof setInterval> };

/**
 * Starts the gateway executor loop once per server process: a pass every `intervalMs` (never
 * overlapping itself; unref'd so it keeps no process alive). Returns false when already running.
 */
export function startGatewayExecutor(intervalMs = 2000): boolean {
  if (g.plandeskGatewayExecutor) return false;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const pass = await executeGatewaySteps();
      if (pass.executed.length || pass.unknown.length || pass.ended.length || pass.staged.length || pass.promoted.length || pass.discarded.length) {
        log.info(`plandesk: gateway executed ${pass.executed.length}, unknown ${pass.unknown.length}, ended ${pass.ended.length}, staged ${pass.staged.length}, promoted runs ${pass.promoted.length}, discarded ${pass.discarded.length}`);
      }
    } catch (e) {
      log.error({ err: e }, "plandesk: gateway executor pass failed");
    } finally {
      running = false;
    }
  };
  g.plandeskGatewayExecutor = setInterval(tick, intervalMs);
  g.plandeskGatewayExecutor.unref?.();
  return true;
}
