import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError, type ErrorCode } from "../errors";
import type { Prisma, PrismaClient } from "../generated/prisma/client";
import { digest } from "../plan/digest";
import type { Step } from "../plan/schema";
import { appendAudit, type Actor } from "./audit";
import { prisma } from "./db";
import { storedSteps, type RunStatus } from "./runs";
import { loadDeskSnapshot } from "./desk-data";
import { checkGrant, type Grant } from "../grants";
import type { Currency } from "../money";
import { validatePlan } from "../validation/pipeline";
import type { AgentCaller, Viewer } from "./session";
import { catalogAt } from "./tool-catalog";

/**
 * The executor side of the chain (DESIGN.md §9, API.md "Agent and executor API", issue #5):
 * claim a step immediately before writing it, then report what happened; a supervisor
 * reconciles outcomes nobody knows.
 *
 * Concurrency: every operation is ONE database transaction whose first statement is a no-op
 * UPDATE of the run row (`lockRun`). That statement takes the write lock on SQLite (and the
 * row lock on PostgreSQL) before anything is read, so the checks that follow read current data
 * and decisions on one run are serialised by the database itself — across any number of app
 * instances, with no lock in process memory. The decisive conditions are repeated inside the
 * writes anyway (approval `UPDATE … WHERE state = 'active' AND digest = … AND planVersion = …`,
 * run `UPDATE … WHERE status IN (approved, executing) AND expiresAt > now …`, and the
 * `@@unique([runId, stepId])` of StepExecution), so exactly one of N concurrent claimers wins
 * even without the lock.
 *
 * Refusals are committed, not rolled back (their audit event, saved idempotent answer and, for a
 * stale task, the stop of the run must persist) and thrown as DomainError after the commit. Not
 * rolling back matters for a second reason: the SQLite driver adapter runs one connection per
 * process, so a statement another request issues outside any transaction while this one is
 * open executes inside it — a rollback would silently discard that statement too.
 */

/** Body of `POST /api/v1/runs/{runId}/steps/{stepId}/claim` (API.md): the digest the executor will write and the task revision it works from. */
export const claimBodySchema = z
  .object({
    digest: z.string().regex(/^[0-9a-f]{64}$/, "digest must be the 64 lowercase hex characters of SHA-256"),
    taskRevision: z.number().int().min(1),
  })
  .strict();
export type ClaimBody = z.infer<typeof claimBodySchema>;

/** Body of `POST /api/v1/runs/{runId}/steps/{stepId}/outcome` (API.md). */
export const outcomeBodySchema = z
  .object({
    token: z.string().min(1).max(200),
    status: z.enum(["succeeded", "failed", "unknown"]),
    detail: z.string().max(4000).optional(),
  })
  .strict();
export type OutcomeBody = z.infer<typeof outcomeBodySchema>;

export { reconcileBodySchema, type ReconcileBody } from "../reconcile-schema";
import type { ReconcileBody } from "../reconcile-schema";

/**
 * A claim with no outcome report after this many seconds may be reconciled by a supervisor
 * (the executor may have died between claim and report). Source: DESIGN.md §10 — every waiting
 * state has an owner, a deadline and a way out.
 */
export const STALE_CLAIM_SECONDS = 15 * 60;

/** The answer to a successful claim: `{token, stepId, digest}` of API.md plus where it is bound. */
export interface ClaimView {
  token: string;
  stepId: string;
  digest: string;
  runId: string;
  planVersion: number;
  taskRevision: number;
  approvalId: string;
  claimedAt: string;
}

/**
 * One step's execution as the API shows it (never the token). `status` is what the executor
 * reported (`claimed` until it reports); `outcome` is what counts: a person's `resolution`
 * when the step was reconciled, else `status`.
 */
export interface StepExecutionView {
  runId: string;
  stepId: string;
  status: "claimed" | "succeeded" | "failed" | "unknown";
  outcome: "claimed" | "succeeded" | "failed" | "unknown";
  detail: string | null;
  planVersion: number;
  digest: string;
  taskRevision: number;
  claimedAt: string;
  reportedAt: string | null;
  resolution: "succeeded" | "failed" | null;
  reconciledBy: string | null;
  reconciledAt: string | null;
}

/** A step waiting for a person: an `unknown` outcome, or a claim never reported on. */
export interface ReconciliationItem extends StepExecutionView {
  reason: "unknown_outcome" | "no_report";
  ticketId: string;
  tool: string;
  runStatus: string;
}

type Db = PrismaClient;
type Tx = Prisma.TransactionClient;
type ExecutionRow = Prisma.StepExecutionGetPayload<object>;

/** Interactive transactions wait for the database lock rather than fail fast. */
const TX_OPTIONS = { maxWait: 20_000, timeout: 20_000 } as const;

/** Thrown inside a transaction when a conditional write lost a race: roll back and decide again. */
class LostRace extends Error {
  constructor(what: string) {
    super(`lost a race: ${what}`);
    this.name = "LostRace";
  }
}

/** Outcome of a transaction body: a value to return, or a refusal to throw after the commit. */
type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError };
const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const refuse = <T>(code: ErrorCode, message: string, details: Record<string, unknown> = {}): Result<T> => ({
  ok: false,
  error: new DomainError(code, message, details),
});

/** Attempts of one transaction before a retryable failure is given up (and surfaces as a 500). */
const MAX_ATTEMPTS = 12;

/**
 * Runs `body` in one transaction, retrying (at most MAX_ATTEMPTS times, exponential backoff
 * with jitter, capped at 400 ms) when a conditional write lost a race, a unique constraint
 * fired, or the database was busy (another instance holds the write lock). A retry decides
 * afresh, so the loser of a race gets the typed refusal. Refusals returned by `body` are
 * committed and then thrown.
 */
async function inTransaction<T>(db: Db, body: (tx: Tx) => Promise<Result<T>>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let result: Result<T>;
    try {
      result = await db.$transaction(body, TX_OPTIONS);
    } catch (e) {
      if (!isRetryable(e) || attempt >= MAX_ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(400, 5 * 2 ** attempt)));
      continue;
    }
    if (!result.ok) throw result.error;
    return result.value;
  }
}

function isRetryable(e: unknown): boolean {
  if (e instanceof LostRace) return true;
  const err = e as { code?: string; message?: string };
  if (err?.code === "P2002" || err?.code === "P2034" || err?.code === "P1008") return true;
  return /SQLITE_BUSY|database is locked|SocketTimeout|socket timeout/i.test(err?.message ?? "");
}

/**
 * First statement of every transaction here: a no-op UPDATE of the run row. It takes the write
 * lock (SQLite) / row lock (PostgreSQL) before anything is read, so the reads that follow are
 * current and two deciders on one run never interleave.
 */
async function lockRun(tx: Tx, runId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "run" SET "status" = "status" WHERE "id" = ${runId}`;
}

/** Builds the API view of an execution row (the token is never shown). */
export function toStepExecutionView(e: ExecutionRow): StepExecutionView {
  const status = e.status as StepExecutionView["status"];
  const resolution = (e.resolution as StepExecutionView["resolution"]) ?? null;
  return {
    runId: e.runId,
    stepId: e.stepId,
    status,
    outcome: resolution ?? status,
    detail: e.detail,
    planVersion: e.planVersion,
    digest: e.digest,
    taskRevision: e.taskRevision,
    claimedAt: e.claimedAt.toISOString(),
    reportedAt: e.reportedAt?.toISOString() ?? null,
    resolution,
    reconciledBy: e.reconciledBy,
    reconciledAt: e.reconciledAt?.toISOString() ?? null,
  };
}

/** What counts for a step: a person's resolution, else the executor's report. */
function outcomeOf(e: ExecutionRow): string {
  return e.resolution ?? e.status;
}

/** True while an execution still waits for someone: claimed without report, or unknown and not reconciled. */
function isOutstanding(e: ExecutionRow): boolean {
  return !e.resolution && (e.status === "claimed" || e.status === "unknown");
}

async function stepsOf(tx: Tx, runId: string, version: number): Promise<Step[]> {
  const pv = await tx.planVersion.findUnique({ where: { runId_version: { runId, version } } });
  return storedSteps(pv?.steps);
}

/**
 * Settles an `executing` run from its executions (conditional on it still executing):
 * any step failed → `failed`; every step of the approved version succeeded → `completed`;
 * a claim or an `unknown` outcome still open → stays `executing` (an `unknown` waits for a
 * person, DESIGN.md §9); otherwise, when the deadline has passed with steps never claimed →
 * `expired` (their approvals expire too); else stays `executing`. Returns the run status after.
 */
async function settleExecutingRun(tx: Tx, runId: string, now: Date): Promise<RunStatus> {
  const run = await tx.run.findUniqueOrThrow({ where: { id: runId }, include: { executions: true } });
  if (run.status !== "executing") return run.status as RunStatus;
  const steps = await stepsOf(tx, runId, run.approvedVersion ?? run.planVersion);
  const byStep = new Map(run.executions.map((e) => [e.stepId, e]));
  let next: RunStatus = "executing";
  if (run.executions.some((e) => outcomeOf(e) === "failed")) next = "failed";
  else if (steps.length > 0 && steps.every((s) => byStep.get(s.id) && outcomeOf(byStep.get(s.id)!) === "succeeded")) next = "completed";
  else if (run.executions.some(isOutstanding)) next = "executing";
  else if (run.expiresAt.getTime() <= now.getTime()) next = "expired";
  if (next === "executing") return next;
  const res = await tx.run.updateMany({ where: { id: runId, status: "executing" }, data: { status: next } });
  if (res.count === 1 && next === "expired") {
    const exp = await tx.approval.updateMany({ where: { runId, state: "active" }, data: { state: "expired" } });
    await appendAudit(tx, {
      runId,
      type: "expired",
      actor: { kind: "system" },
      data: { at: now.toISOString(), while: "executing", approvalsExpired: exp.count, unclaimedStepIds: steps.filter((s) => !byStep.has(s.id)).map((s) => s.id) },
    });
  }
  return next;
}

/** Persists the expiry of a waiting run inside `tx` (conditional; audited once). */
async function expireWaitingRun(tx: Tx, runId: string, now: Date): Promise<void> {
  const res = await tx.run.updateMany({
    where: { id: runId, status: { in: ["pending_review", "approved"] }, expiresAt: { lte: now } },
    data: { status: "expired" },
  });
  if (res.count === 1) {
    const exp = await tx.approval.updateMany({ where: { runId, state: "active" }, data: { state: "expired" } });
    await appendAudit(tx, { runId, type: "expired", actor: { kind: "system" }, data: { at: now.toISOString(), approvalsExpired: exp.count } });
  }
}

type RunForClaim = Prisma.RunGetPayload<{ include: { task: true; executions: true } }>;

/** `stopped_stale_task` details: bound and live revision, steps executed under the old one, the blocked step. */
function staleDetails(run: RunForClaim, steps: Step[], liveRevision: number, blockedStepId: string) {
  const position = new Map(steps.map((s, i) => [s.id, i]));
  const executions = [...run.executions]
    .sort((a, b) => (position.get(a.stepId) ?? 1e9) - (position.get(b.stepId) ?? 1e9) || a.claimedAt.getTime() - b.claimedAt.getTime())
    .map((e) => ({ stepId: e.stepId, status: outcomeOf(e) }));
  return {
    boundRevision: run.boundTaskRevision,
    liveRevision,
    executedStepIds: executions.map((e) => e.stepId),
    executions,
    blockedStepId,
  };
}

/**
 * Moves an approved or executing run to `stopped` because its task moved on (DESIGN.md §8),
 * saving `stopReason` and invalidating the approvals not yet claimed; audited `stopped_stale`
 * once (only by the call that stopped it).
 */
async function stopStale(tx: Tx, runId: string, details: ReturnType<typeof staleDetails>, actor: Actor, now: Date): Promise<void> {
  const stopReason = { code: "stopped_stale_task", ...details, at: now.toISOString() };
  const res = await tx.run.updateMany({
    where: { id: runId, status: { in: ["approved", "executing"] } },
    data: { status: "stopped", stopReason: stopReason as unknown as Prisma.InputJsonValue },
  });
  if (res.count !== 1) return;
  const inv = await tx.approval.updateMany({ where: { runId, state: "active" }, data: { state: "invalidated" } });
  await appendAudit(tx, { runId, type: "stopped_stale", actor, data: { ...stopReason, approvalsInvalidated: inv.count } });
}

/** Saved idempotent claim answer: the request it answered and the HTTP answer. */
interface SavedClaim {
  request: ClaimBody;
  response: { claim?: ClaimView; error?: { code: ErrorCode; message: string } & Record<string, unknown> };
}

/**
 * Claims step `stepId` of run `runId` for `agent`, immediately before the executor writes it
 * (DESIGN.md §9, API.md `POST /api/v1/runs/{runId}/steps/{stepId}/claim`).
 *
 * Succeeds only when, at decision time (`now`, UTC): the run is the agent's; it is `approved`
 * or `executing` and `expiresAt > now`; the live task revision equals `run.boundTaskRevision`
 * and `body.taskRevision`; `run.planVersion == run.approvedVersion`; an `active`, unexpired
 * approval of (run, approvedVersion, step) exists whose digest equals the digest of the step as
 * stored in that version and `body.digest`; and the step was never claimed. Then, in the same
 * transaction: approval `active → claimed`, run `approved → executing`, a StepExecution row
 * (`status: "claimed"`, token = nanoid(32)), audit `claimed`.
 *
 * Refusals (409 unless noted), most specific first:
 * 404 `not_found` (no such run for this agent, or no such step in its plan);
 * `already_claimed` {stepId, stepStatus, claimedAt};
 * `stopped_stale_task` {boundRevision, liveRevision, executedStepIds, executions, blockedStepId}
 *   — the task moved on: the run becomes `stopped` (stopReason saved, audited `stopped_stale`);
 * `expired` {expiresAt}; `run_not_approved` {status};
 * `stale_task` {boundRevision, liveRevision, requestedRevision} when only the request's
 *   revision is off (the run is not stopped);
 * `approval_missing` {stepId, planVersion, approvedVersion?, approvalState?};
 * `digest_mismatch` {approvedDigest, requestDigest | storedDigest};
 * `idempotency_conflict` when `idempotencyKey` was used for a different body.
 * Every claim and refusal (except 404) is audited (`claimed`, `claim_refused`).
 *
 * Idempotency: with `idempotencyKey`, the answer (claim or refusal, scope
 * `<agentId>:claim:<runId>:<stepId>`) is saved in the same transaction as its effects, so a
 * repeat — also a concurrent one — returns the identical answer and claims nothing new
 * (`replayed: true`). Without a key a lost answer cannot be recovered: the step stays claimed
 * until an outcome report or a supervisor's reconciliation.
 *
 * `db` (default: the process client) lets tests model several app instances.
 */
export async function claimStep(
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: ClaimBody,
  idempotencyKey: string | null,
  now = new Date(),
  db: Db = prisma,
): Promise<{ claim: ClaimView; replayed: boolean }> {
  const scope = `${agent.id}:claim:${runId}:${stepId}`;
  const actor: Actor = { kind: "agent", id: agent.id };
  return inTransaction(db, async (tx) => {
    await lockRun(tx, runId);
    if (idempotencyKey) {
      const saved = await tx.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: idempotencyKey } } });
      if (saved) return replayClaim(saved.body as unknown as SavedClaim, body);
    }
    const decided = await decideClaim(tx, agent, runId, stepId, body, idempotencyKey, now);
    if (decided.kind === "unsaved") return decided.result;
    const response: SavedClaim["response"] = decided.result.ok
      ? { claim: decided.result.value }
      : { error: { code: decided.result.error.code, message: decided.result.error.message, ...decided.result.error.details } };
    if (!decided.result.ok) {
      await appendAudit(tx, {
        runId,
        type: "claim_refused",
        actor,
        data: { stepId, code: decided.result.error.code, message: decided.result.error.message, details: decided.result.error.details, idempotencyKey, request: body },
      });
    }
    if (idempotencyKey) {
      const saved: SavedClaim = { request: body, response };
      await tx.idempotencyRecord.create({
        data: {
          id: nanoid(),
          scope,
          key: idempotencyKey,
          status: decided.result.ok ? 200 : decided.result.error.status,
          body: saved as unknown as Prisma.InputJsonValue,
          createdAt: now,
        },
      });
    }
    return decided.result.ok ? ok({ claim: decided.result.value, replayed: false }) : decided.result;
  });
}

function replayClaim(saved: SavedClaim, body: ClaimBody): Result<{ claim: ClaimView; replayed: boolean }> {
  if (saved.request.digest !== body.digest || saved.request.taskRevision !== body.taskRevision) {
    return refuse("idempotency_conflict", "This Idempotency-Key was already used for a claim with a different digest or task revision; use a new key.", {
      savedRequest: saved.request,
    });
  }
  if (saved.response.claim) return ok({ claim: saved.response.claim, replayed: true });
  const { code, message, ...details } = saved.response.error!;
  return refuse(code, message, details);
}

type Decision =
  | { kind: "unsaved"; result: Result<{ claim: ClaimView; replayed: boolean }> }
  | { kind: "saved"; result: Result<ClaimView> };

/** The ordered checks of `claimStep` and, when all pass, its writes. Runs inside the locked transaction. */
async function decideClaim(
  tx: Tx,
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: ClaimBody,
  idempotencyKey: string | null,
  now: Date,
): Promise<Decision> {
  const saved = (result: Result<ClaimView>): Decision => ({ kind: "saved", result });
  const run = await tx.run.findUnique({ where: { id: runId }, include: { task: true, executions: true } });
  if (!run || run.agentId !== agent.id) {
    return { kind: "unsaved", result: refuse("not_found", `Run ${runId} was not found.`) };
  }
  const steps = await stepsOf(tx, runId, run.planVersion);
  const step = steps.find((s) => s.id === stepId);
  if (!step) {
    const earlier = await tx.planVersion.findMany({ where: { runId }, select: { version: true, steps: true } });
    const removedFrom = earlier.find((pv) => storedSteps(pv.steps).some((s) => s.id === stepId));
    if (!removedFrom) return { kind: "unsaved", result: refuse("not_found", `Run ${runId} has no step ${stepId}.`) };
    return saved(
      refuse("approval_missing", `Step ${stepId} is no longer in the plan (current version ${run.planVersion}); nothing approves it.`, {
        stepId,
        planVersion: run.planVersion,
      }),
    );
  }

  // 1. A step is claimed once, whatever else changed since.
  const execution = run.executions.find((e) => e.stepId === stepId);
  if (execution) {
    return saved(
      refuse("already_claimed", `Step ${stepId} was already claimed (${execution.claimedAt.toISOString()}); a step is claimed once and never replayed.`, {
        stepId,
        stepStatus: outcomeOf(execution),
        claimedAt: execution.claimedAt.toISOString(),
      }),
    );
  }

  // 2. The run's own state.
  const status = run.status as RunStatus;
  if (status === "stopped") {
    const reason = (run.stopReason ?? {}) as { code?: string };
    if (reason.code === "stopped_stale_task") {
      const details = staleDetails(run, steps, run.task.revision, stepId);
      return saved(
        refuse("stopped_stale_task", `This run was stopped: the task moved from revision ${details.boundRevision} to ${details.liveRevision}. Submit a new plan for the current task.`, details),
      );
    }
    return saved(refuse("run_not_approved", "This run was stopped; no step can be claimed.", { status }));
  }
  if (status === "expired") {
    return saved(refuse("expired", `This run's deadline (${run.expiresAt.toISOString()}) has passed; submit a new plan.`, { expiresAt: run.expiresAt.toISOString() }));
  }
  if (status === "rejected" || status === "completed" || status === "failed") {
    return saved(refuse("run_not_approved", `This run is ${status}; no step can be claimed.`, { status }));
  }
  if (run.expiresAt.getTime() <= now.getTime()) {
    if (status === "executing") await settleExecutingRun(tx, runId, now);
    else await expireWaitingRun(tx, runId, now);
    return saved(refuse("expired", `This run's deadline (${run.expiresAt.toISOString()}) has passed; submit a new plan.`, { expiresAt: run.expiresAt.toISOString() }));
  }
  if (status === "pending_review") {
    return saved(refuse("run_not_approved", "This run is waiting for review; wait for a decision before claiming.", { status }));
  }

  // 3. The task it serves (approved | executing from here on).
  if (run.task.revision !== run.boundTaskRevision) {
    const details = staleDetails(run, steps, run.task.revision, stepId);
    await stopStale(tx, runId, details, { kind: "agent", id: agent.id }, now);
    return saved(
      refuse(
        "stopped_stale_task",
        `The task changed: this run is bound to revision ${details.boundRevision}, the task is now at revision ${details.liveRevision}. ` +
          `Step ${stepId} was not claimed and the run is stopped` +
          (details.executedStepIds.length ? ` (already executed: ${details.executedStepIds.join(", ")}).` : " (nothing was executed).") +
          " Submit a new plan for the current task.",
        details,
      ),
    );
  }
  if (body.taskRevision !== run.boundTaskRevision) {
    return saved(
      refuse("stale_task", `This run is bound to task revision ${run.boundTaskRevision} (also the live one); the claim says ${body.taskRevision}. Re-read the run.`, {
        boundRevision: run.boundTaskRevision,
        liveRevision: run.task.revision,
        requestedRevision: body.taskRevision,
      }),
    );
  }

  // 4. The approval contract.
  const version = run.approvedVersion;
  if (version === null || version !== run.planVersion) {
    return saved(
      refuse("approval_missing", `Plan version ${run.planVersion} has not been approved${version !== null ? ` (approvals cover version ${version})` : ""}.`, {
        stepId,
        planVersion: run.planVersion,
        approvedVersion: version,
      }),
    );
  }
  const approval = await tx.approval.findFirst({ where: { runId, planVersion: version, stepId }, orderBy: { createdAt: "desc" } });
  if (!approval) {
    return saved(refuse("approval_missing", `Step ${stepId} of plan version ${version} has no approval.`, { stepId, planVersion: version }));
  }
  if (approval.state === "claimed" || approval.state === "consumed") {
    return saved(refuse("already_claimed", `The approval of step ${stepId} was already ${approval.state}.`, { stepId, approvalState: approval.state }));
  }
  if (approval.state !== "active") {
    return saved(
      refuse("approval_missing", `The approval of step ${stepId} is ${approval.state}, not active.`, { stepId, planVersion: version, approvalState: approval.state }),
    );
  }
  if (approval.expiresAt.getTime() <= now.getTime()) {
    return saved(refuse("expired", `The approval of step ${stepId} has expired (${approval.expiresAt.toISOString()}).`, { expiresAt: approval.expiresAt.toISOString(), stepId }));
  }
  if (approval.boundTaskRevision !== run.boundTaskRevision) {
    return saved(
      refuse("approval_missing", `The approval of step ${stepId} was given for task revision ${approval.boundTaskRevision}, not ${run.boundTaskRevision}.`, {
        stepId,
        planVersion: version,
        approvalTaskRevision: approval.boundTaskRevision,
      }),
    );
  }
  const storedDigest = digest(step);
  if (storedDigest !== approval.digest) {
    return saved(
      refuse("digest_mismatch", `Step ${stepId} as stored does not match what was approved.`, { stepId, approvedDigest: approval.digest, storedDigest }),
    );
  }
  if (body.digest !== approval.digest) {
    return saved(
      refuse("digest_mismatch", `The digest sent for step ${stepId} is not the digest of the approved step; do not write it.`, {
        stepId,
        approvedDigest: approval.digest,
        requestDigest: body.digest,
      }),
    );
  }

  // 4b. Dispatch-time checks (DESIGN.md §1: validated again at dispatch): the step alone against
  // live account data (earlier steps' effects are already in it, so plan-level sums don't apply),
  // and the approver's authority as it stands now (a revoked grant or disabled user no longer consents).
  const task = await tx.task.findUniqueOrThrow({ where: { id: run.taskId } });
  const desk = await loadDeskSnapshot(task.ticketId, tx);
  const catalog = await catalogAt(run.catalogVersion, tx);
  const live = validatePlan({ version, steps: [step] }, { desk, now, agentAllowedTools: agent.allowedTools, catalog });
  const errors = live.issues.filter((i) => i.severity === "error");
  if (errors.length > 0) {
    return saved(
      refuse("validation_failed", `Step ${stepId} no longer passes validation against current account data: ${errors.map((i) => i.message).join("; ")}. Do not write it.`, {
        stepId,
        issues: errors,
      }),
    );
  }
  if (approval.approverId) {
    const approver = await tx.user.findUnique({ where: { id: approval.approverId }, include: { grants: true } });
    const grants: Grant[] = (approver?.grants ?? []).map((g) => ({
      tool: g.tool,
      canApprove: g.canApprove,
      approveLimit: g.approveLimitMinor != null ? { minor: g.approveLimitMinor, currency: (g.approveLimitCurrency ?? "USD") as Currency } : null,
      canAuthor: g.canAuthor,
      authorLimit: g.authorLimitMinor != null ? { minor: g.authorLimitMinor, currency: (g.authorLimitCurrency ?? "USD") as Currency } : null,
    }));
    const amount = catalog.get(step.tool)?.amount(step.args as never);
    if (!approver || approver.disabled || checkGrant(grants, "approve", step.tool, amount)) {
      return saved(
        refuse("approval_revoked", `The person who approved step ${stepId} no longer has the authority to approve it; it needs a new approval.`, {
          stepId,
          approverId: approval.approverId,
        }),
      );
    }
  }

  // 5. All checks passed: the conditional writes. Each repeats its conditions in its WHERE.
  const movedRun = await tx.run.updateMany({
    where: {
      id: runId,
      agentId: agent.id,
      status: { in: ["approved", "executing"] },
      planVersion: version,
      approvedVersion: version,
      boundTaskRevision: body.taskRevision,
      expiresAt: { gt: now },
    },
    data: { status: "executing" },
  });
  if (movedRun.count !== 1) throw new LostRace("run changed");
  const claimedApproval = await tx.approval.updateMany({
    where: { id: approval.id, runId, stepId, planVersion: version, state: "active", digest: body.digest, expiresAt: { gt: now } },
    data: { state: "claimed" },
  });
  if (claimedApproval.count !== 1) throw new LostRace("approval no longer active");
  const liveTask = await tx.task.count({ where: { id: run.taskId, revision: body.taskRevision } });
  if (liveTask !== 1) throw new LostRace("task revised");
  const token = nanoid(32);
  const row = await tx.stepExecution.create({
    data: {
      id: `exe_${nanoid(12)}`,
      runId,
      stepId,
      approvalId: approval.id,
      planVersion: version,
      digest: body.digest,
      taskRevision: body.taskRevision,
      token,
      status: "claimed",
      claimedAt: now,
    },
  });
  await appendAudit(tx, {
    runId,
    type: "claimed",
    actor: { kind: "agent", id: agent.id },
    data: {
      stepId,
      tool: step.tool,
      planVersion: version,
      digest: body.digest,
      taskRevision: body.taskRevision,
      approvalId: approval.id,
      approverId: approval.approverId,
      firstClaim: status === "approved",
      idempotencyKey,
    },
  });
  return saved(
    ok({
      token,
      stepId,
      digest: body.digest,
      runId,
      planVersion: version,
      taskRevision: body.taskRevision,
      approvalId: approval.id,
      claimedAt: row.claimedAt.toISOString(),
    }),
  );
}

/**
 * Records the executor's report on a claimed step (DESIGN.md §9, API.md
 * `POST /api/v1/runs/{runId}/steps/{stepId}/outcome`). `body.token` must be the token of that
 * step's claim, for a run of `agent`. Recorded once (status, detail, reportedAt = `now`):
 * `succeeded`/`failed` consume the approval (`claimed → consumed`); `unknown` leaves it
 * `claimed` and the step waits for a supervisor (never re-claimable, never replayed).
 * The run then settles: any step failed → `failed`; every step succeeded → `completed`;
 * otherwise it stays `executing` (see settle rules in `settleExecutingRun`).
 * A repeat with the same token and status returns the saved step (`replayed: true`).
 * Returns `{step, run: {id, status}}`. Errors (409): `invalid_claim_token` (unknown token, or the
 * token of another step, run or agent); `outcome_already_reported` {reportedStatus, resolution}
 * for a different status after a report, or any report after a person reconciled the step.
 * Audited `outcome` (refused tokens: `denied`).
 */
export async function reportOutcome(
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: OutcomeBody,
  now = new Date(),
  db: Db = prisma,
): Promise<{ step: StepExecutionView; run: { id: string; status: RunStatus }; replayed: boolean }> {
  return inTransaction(db, async (tx) => {
    await lockRun(tx, runId);
    const run = await tx.run.findUnique({ where: { id: runId } });
    const exec = await tx.stepExecution.findUnique({ where: { token: body.token } });
    if (!run || run.agentId !== agent.id || !exec || exec.runId !== runId || exec.stepId !== stepId) {
      if (run && run.agentId === agent.id) {
        await appendAudit(tx, { runId, type: "denied", actor: { kind: "agent", id: agent.id }, data: { action: "report_outcome", stepId, code: "invalid_claim_token" } });
      }
      return refuse("invalid_claim_token", `This token is not the claim of step ${stepId} of run ${runId}. Claim the step first and report with its token.`, { stepId });
    }
    if (exec.reconciledAt) {
      return refuse("outcome_already_reported", `A person already reconciled step ${stepId} as ${exec.resolution}; the report is not recorded.`, {
        reportedStatus: exec.status,
        resolution: exec.resolution,
      });
    }
    if (exec.status !== "claimed") {
      if (exec.status === body.status) {
        return ok({ step: toStepExecutionView(exec), run: { id: runId, status: run.status as RunStatus }, replayed: true });
      }
      return refuse("outcome_already_reported", `The outcome of step ${stepId} was already reported as ${exec.status}; it is recorded once.`, {
        reportedStatus: exec.status,
        resolution: exec.resolution,
      });
    }
    const res = await tx.stepExecution.updateMany({
      where: { id: exec.id, status: "claimed", reconciledAt: null },
      data: { status: body.status, detail: body.detail ?? null, reportedAt: now },
    });
    if (res.count !== 1) throw new LostRace("outcome reported concurrently");
    let approvalConsumed = false;
    if (body.status !== "unknown") {
      approvalConsumed = (await tx.approval.updateMany({ where: { id: exec.approvalId, state: "claimed" }, data: { state: "consumed" } })).count === 1;
    }
    const runStatus = await settleExecutingRun(tx, runId, now);
    await appendAudit(tx, {
      runId,
      type: "outcome",
      actor: { kind: "agent", id: agent.id },
      data: { stepId, status: body.status, detail: body.detail ?? null, approvalConsumed, runStatus, needsReconciliation: body.status === "unknown" },
    });
    const after = await tx.stepExecution.findUniqueOrThrow({ where: { id: exec.id } });
    return ok({ step: toStepExecutionView(after), run: { id: runId, status: runStatus }, replayed: false });
  });
}

/**
 * A supervisor records what really happened to a step whose outcome nobody knows
 * (DESIGN.md §9: an `unknown` outcome waits for a person; "People": supervisors reconcile).
 * Reconcilable: a step reported `unknown`, or claimed and not reported for STALE_CLAIM_SECONDS
 * (the executor vanished). Saves `resolution` (`succeeded`|`failed`), `reconciledBy`,
 * `reconciledAt` = `now`; the executor's own report stays as it was. The approval is consumed
 * and the run settles exactly as after an outcome report. The same resolution again returns
 * the saved step (`replayed: true`). Audited `reconciled` {stepId, resolution, note, previousStatus}.
 * Errors: 403 `forbidden` unless role supervisor or admin (audited `denied`); 404 `not_found`;
 * 409 `nothing_to_reconcile` {stepStatus, resolution?} — never claimed, already reported
 * succeeded/failed, claimed too recently, or already reconciled differently.
 */
export async function reconcileStep(
  viewer: Pick<Viewer, "id" | "role">,
  runId: string,
  stepId: string,
  body: ReconcileBody,
  now = new Date(),
  db: Db = prisma,
): Promise<{ step: StepExecutionView; run: { id: string; status: RunStatus }; replayed: boolean }> {
  const actor: Actor = { kind: "user", id: viewer.id };
  if (viewer.role !== "supervisor" && viewer.role !== "admin") {
    await inTransaction(db, async (tx) => {
      const exists = await tx.run.count({ where: { id: runId } });
      await appendAudit(tx, { runId: exists ? runId : null, type: "denied", actor, data: { action: "reconcile", stepId, role: viewer.role } });
      return ok(null);
    });
    throw new DomainError("forbidden", "Only a supervisor can reconcile a step's outcome.");
  }
  return inTransaction(db, async (tx) => {
    await lockRun(tx, runId);
    const run = await tx.run.findUnique({ where: { id: runId } });
    if (!run) return refuse("not_found", `Run ${runId} was not found.`);
    const exec = await tx.stepExecution.findUnique({ where: { runId_stepId: { runId, stepId } } });
    if (!exec) return refuse("nothing_to_reconcile", `Step ${stepId} was never claimed; there is nothing to reconcile.`, { stepStatus: null });
    if (exec.reconciledAt) {
      if (exec.resolution === body.resolution) {
        return ok({ step: toStepExecutionView(exec), run: { id: runId, status: run.status as RunStatus }, replayed: true });
      }
      return refuse("nothing_to_reconcile", `Step ${stepId} was already reconciled as ${exec.resolution}.`, { stepStatus: exec.status, resolution: exec.resolution });
    }
    const staleClaim = exec.status === "claimed" && now.getTime() - exec.claimedAt.getTime() >= STALE_CLAIM_SECONDS * 1000;
    if (exec.status !== "unknown" && !staleClaim) {
      const why =
        exec.status === "claimed"
          ? `it was claimed ${Math.round((now.getTime() - exec.claimedAt.getTime()) / 1000)} s ago and the executor may still report (a claim without report can be reconciled after ${STALE_CLAIM_SECONDS / 60} minutes)`
          : `its outcome was reported as ${exec.status}`;
      return refuse("nothing_to_reconcile", `Step ${stepId} does not need reconciliation: ${why}.`, { stepStatus: exec.status });
    }
    const res = await tx.stepExecution.updateMany({
      where: { id: exec.id, status: exec.status, reconciledAt: null },
      data: { resolution: body.resolution, reconciledBy: viewer.id, reconciledAt: now },
    });
    if (res.count !== 1) throw new LostRace("step reported concurrently");
    const approvalConsumed = (await tx.approval.updateMany({ where: { id: exec.approvalId, state: "claimed" }, data: { state: "consumed" } })).count === 1;
    const runStatus = await settleExecutingRun(tx, runId, now);
    await appendAudit(tx, {
      runId,
      type: "reconciled",
      actor,
      data: { stepId, resolution: body.resolution, note: body.note, previousStatus: exec.status, reason: staleClaim ? "no_report" : "unknown_outcome", approvalConsumed, runStatus },
    });
    const after = await tx.stepExecution.findUniqueOrThrow({ where: { id: exec.id } });
    return ok({ step: toStepExecutionView(after), run: { id: runId, status: runStatus }, replayed: false });
  });
}

/**
 * Steps waiting for a person, oldest claim first: outcomes reported `unknown` and claims with
 * no report for STALE_CLAIM_SECONDS, neither reconciled yet. For the supervisor's queue.
 */
export async function listNeedsReconciliation(now = new Date(), db: Db = prisma): Promise<ReconciliationItem[]> {
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_SECONDS * 1000);
  const rows = await db.stepExecution.findMany({
    where: { reconciledAt: null, OR: [{ status: "unknown" }, { status: "claimed", claimedAt: { lte: staleBefore } }] },
    include: { run: { include: { task: true, planVersions: true } } },
    orderBy: { claimedAt: "asc" },
    take: 500,
  });
  return rows.map((e) => {
    const pv = e.run.planVersions.find((p) => p.version === e.planVersion);
    const step = storedSteps(pv?.steps).find((s) => s.id === e.stepId);
    return {
      ...toStepExecutionView(e),
      reason: e.status === "unknown" ? "unknown_outcome" : "no_report",
      ticketId: e.run.task.ticketId,
      tool: step?.tool ?? "unknown",
      runStatus: e.run.status,
    };
  });
}
