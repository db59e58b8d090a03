import { isBuiltinKind } from "../../desk/lookup";
import { inSpan, inSpanSync, traceGate } from "../trace/span";
import { deskRulesFor } from "../desk-rules/load-desk-rules";
import { MAX_DATE_HORIZON_DAYS } from "../../plan/policy";
import { nanoid } from "nanoid";
import type { ClaimBody } from "../../api/bodies";
import { DomainError } from "../../errors/domain-error";
import { checkGrant } from "../../people/grants";
import { isTerminal, type RunStatus } from "../../lifecycle/run-state";
import { getTool } from "../../tools/builtin-tools";
import { taskContractContext } from "../tasks/task-contract";
import { validatePlan } from "../../validation/pipeline";
import { serverConfig } from "../config/config";
import { heldWrittenWhere, loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { resolveDatabaseUrl } from "../db/database-url";
import { findSavedAnswer, requestHashOf, saveAnswer } from "../http/idempotency";
import { expireRun, lockRun, moveRun, moveToNeedsDecision, stopForStaleTask } from "../lifecycle/run-lifecycle";
import { decisionReasonOf, needsDecision } from "../../lifecycle/needs-decision";
import { planStepsById } from "../plans/stored-plan";
import { agentDesk, grantsOf, type AgentCaller } from "../auth/viewer";
import { inTransactionOnce, LostRace, ok, refuse, withRetry, type Db, type Tx } from "../db/transaction";
import { decideClaim, staleTaskDetails, type ClaimRefusal, type ClaimSnapshot } from "./decide-claim";
import type { ClaimView } from "./execution-view";
import { settleExecution } from "./settle-execution";
import { catalogAt } from "../tools/imported-tools";
import { moveApprovalsReturningIds } from "../lifecycle/approval-lifecycle";
import { staleRecordAtClaim } from "./stale-records-at-claim";
import { unsignedApprovalRefusal } from "./claim-signatures";
import { readRecordVersions } from "../../records/record-key";

const SQLITE = resolveDatabaseUrl().provider === "sqlite";

/** A saved claim answer: the claim, or the refusal's `{code, message, ...details}`. */
type SavedClaim = { claim: ClaimView } | { error: { code: DomainError["code"]; message: string } & Record<string, unknown> };

/**
 * Claims step `stepId` of run `runId` for `agent`, immediately before the executor writes it
 * (docs/design.md §9, docs/api.md `POST /api/v1/runs/{runId}/steps/{stepId}/claim`).
 *
 * Reads the run, the step's approval and the task OUTSIDE any transaction, decides with the pure
 * `decideClaim` (refusals, most specific first: 404 `not_found`; 409 `already_claimed`,
 * `stopped_stale_task` — the run is stopped —, `expired`, `run_not_approved`, `stale_task`,
 * `approval_missing`, `digest_mismatch`; `approval_missing` too for a step whose rule requires a
 * signature that an approval lacks or that does not verify, lib/server/claims/claim-signatures.ts), then re-validates the step against live account data
 * (422 `validation_failed` {issues}; before it 409 `stale_account_data` when a target record is
 * older than the approval's rule allows, stale-records-at-claim.ts) and checks that its approver
 * still holds the authority (409 `approval_revoked`). Only then one short transaction writes, each condition repeated in
 * its WHERE so the check and the write are one statement: the task still at the bound revision
 * (a no-op conditional update that also locks the task row against a concurrent revision), the
 * run (`claim`: approved|executing → executing, same versions and revision, not expired), the
 * approval (`active → claimed`, same digest, not expired), the claim row (unique per run and
 * step: exactly one of N concurrent claimers wins), its audit event and the saved answer. A write
 * that lost a race rolls back and the claim is decided again from a fresh reading, so a loser
 * gets the typed refusal of the new state.
 *
 * Every claim and refusal except 404 is audited (`claimed`, `claim_refused`). With
 * `idempotencyKey` the answer (the claim, or a FINAL refusal — see `isFinalRefusal`) is saved with its effects: a repeat returns it
 * and claims nothing (`replayed: true`); the key with another digest or revision is 409
 * `idempotency_conflict`. `db` lets tests model several app instances.
 * Traced as a `claim` span (lib/server/trace/span.ts).
 */
export function claimStep(...args: Parameters<typeof claimStepUntraced>): ReturnType<typeof claimStepUntraced> {
  return inSpan("claim", () => claimStepUntraced(...args));
}

/** `claimStep` without its `claim` trace span. */
async function claimStepUntraced(
  agent: AgentCaller,
  runId: string,
  stepId: string,
  body: ClaimBody,
  idempotencyKey: string | null,
  now = new Date(),
  db: Db = prisma,
): Promise<{ claim: ClaimView; replayed: boolean }> {
  const scope = `agent:${agent.id}:claim:${runId}:${stepId}`;
  const requestHash = requestHashOf(body);
  const actor: Actor = { kind: "agent", id: agent.id };
  const replay = (saved: { body: SavedClaim }) => {
    if ("claim" in saved.body) return { claim: saved.body.claim, replayed: true };
    const { code, message, ...details } = saved.body.error;
    throw new DomainError(code, message, { ...details, replayed: true });
  };
  return withRetry(async () => {
    if (idempotencyKey) {
      const saved = await findSavedAnswer<SavedClaim>(db, scope, idempotencyKey, requestHash);
      if (saved) return replay(saved);
    }
    const snap = await readClaimSnapshot(db, agent, runId, stepId, body, now);
    let decision = decideClaim(snap);
    // A step whose rule requires a signature: every approval's signature verifies again, now.
    if (decision.kind === "go") decision = (await unsignedApprovalRefusal(db, runId, decision.step, decision.version)) ?? decision;
    if (decision.kind === "go") {
      const approvers = [...new Set([decision.approval.approverId, ...(snap.approvals ?? []).filter((a) => a.state === "active").map((a) => a.approverId)])];
      for (const approverId of approvers) {
        const refusal = await dispatchChecks(db, agent, snap, decision.step, approverId);
        if (refusal) {
          decision = refusal;
          break;
        }
      }
    }
    if (decision.kind === "refuse") {
      if (decision.unrecorded) throw new DomainError(decision.code, decision.message, decision.details);
      const refusal = await withDecisionEffect(db, decision, snap);
      // Row locks: the run's lock first, then the refusal's effect — a move of the run (stop,
      // expire, to a person) whose conditions (no step claimed and unreported, the run's status)
      // are read after the lock, so a claim of another step committed meanwhile is seen and the
      // run is not handed to a person while that step is being written. Two refusals of one run
      // move it once; the audit event records each refusal. Provoked by
      // lib/server/db/row-lock-anomalies.test.ts on both databases.
      return inTransactionOnce(async (tx) => {
        await lockRun(tx, runId);
        if (idempotencyKey) {
          const saved = await findSavedAnswer<SavedClaim>(tx, scope, idempotencyKey, requestHash);
          if (saved) return ok(replay(saved));
        }
        await applyRefusalEffect(tx, refusal, runId, actor, now);
        await appendAudit(tx, {
          runId,
          type: "claim_refused",
          actor,
          data: { stepId, code: refusal.code, message: refusal.message, details: refusal.details, idempotencyKey, request: body },
        });
        if (idempotencyKey && isFinalRefusal(refusal, snap)) {
          const error = { code: refusal.code, message: refusal.message, ...refusal.details };
          await saveAnswer(tx, scope, idempotencyKey, requestHash, { status: new DomainError(refusal.code, "").status, body: { error } });
        }
        return refuse(refusal.code, refusal.message, refusal.details);
      }, db, { isolation: "row-locks" });
    }
    const { step, version, approval, firstClaim } = decision;
    // Row locks in the one order (docs/design.md "Transactions and locks"): the task (conditional
    // no-op update), the run (conditional move), the step's approvals (conditional move), the
    // invoice (`holdMoneyAtClaim`), each condition in its write's WHERE. Anomalies prevented: a
    // double claim (two executors both writing one step: the claim row is unique per run and step,
    // and the losers decide again), a claim of a task revised meanwhile, a claim of an approval
    // withdrawn meanwhile (its state moved), and write skew on an invoice's open balance (two runs' refunds each
    // reading the balance the other is about to take). Provoked on both databases by
    // lib/server/claims/claims.test.ts ("exactly one winner": parallel claimers, two instances,
    // three processes) and lib/server/claims/gate-at-write.test.ts (two runs' refunds of one invoice).
    return inTransactionOnce(async (tx) => {
      const taskHeld = await tx.task.updateMany({ where: { id: snap.run!.taskId, revision: body.taskRevision }, data: { revision: body.taskRevision } });
      if (taskHeld.count !== 1) throw new LostRace("task revised");
      const moved = await moveRun(tx, runId, "claim", {
        where: { agentId: agent.id, planVersion: version, approvedVersion: version, boundTaskRevision: body.taskRevision, expiresAt: { gt: now } },
      });
      if (!moved) throw new LostRace("run changed");
      // The full set (four eyes): every active approval of the step with this digest is
      // claimed in one statement, and the claim goes ahead only when that is as many as it needs.
      const need = Math.max(1, ...(snap.approvals ?? []).map((a) => a.approvalsRequired));
      // The ids it claimed tell whether the approval the claim records (the primary) is one of them.
      const claimedApprovals = await moveApprovalsReturningIds(tx, "claim", { runId, planVersion: version, stepId, digest: body.digest, expiresAt: { gt: now } });
      if (claimedApprovals.length < need) throw new LostRace("approvals no longer complete");
      if (!claimedApprovals.includes(approval.id)) throw new LostRace("approval no longer active");
      await holdMoneyAtClaim(tx, step, approval, runId, snap.run!.desk, now);
      await holdDeclaredMoneyAtClaim(tx, approval, runId, snap.run!.desk, now);
      const claim: ClaimView = {
        token: nanoid(32),
        stepId,
        digest: body.digest,
        runId,
        planVersion: version,
        taskRevision: body.taskRevision,
        approvalId: approval.id,
        claimedAt: now.toISOString(),
        leaseExpiresAt: new Date(now.getTime() + serverConfig().claimLeaseSeconds * 1000).toISOString(),
        stopCondition: typeof step.stopCondition === "string" && step.stopCondition.trim() !== "" ? step.stopCondition : null,
        recordVersions: readRecordVersions(approval.recordVersions),
      };
      await tx.stepExecution.create({
        data: {
          id: `exe_${nanoid(12)}`,
          runId,
          stepId,
          approvalId: approval.id,
          planVersion: version,
          digest: body.digest,
          taskRevision: body.taskRevision,
          token: claim.token,
          status: "claimed",
          claimedAt: now,
          leaseExpiresAt: new Date(claim.leaseExpiresAt),
        },
      });
      await appendAudit(tx, {
        runId,
        type: "claimed",
        actor,
        data: { stepId, tool: step.tool, planVersion: version, digest: body.digest, taskRevision: body.taskRevision, approvalId: approval.id, approverId: approval.approverId, approverIds: [...new Set((snap.approvals ?? []).filter((a) => a.state === "active" && a.digest === body.digest).map((a) => a.approverId).filter((a): a is string => a !== null))], firstClaim, idempotencyKey },
      });
      if (idempotencyKey) await saveAnswer(tx, scope, idempotencyKey, requestHash, { status: 200, body: { claim } });
      return ok({ claim, replayed: false });
    }, db, { isolation: "row-locks" });
  });
}

/**
 * Whether a claim refusal is final — the same request can never succeed later — and so may be
 * saved under the idempotency key. A refusal that may change (the run not approved yet, a
 * prerequisite still pending, an approval still missing, live account data…) is NOT saved: a retry
 * with the same key after the change is decided afresh, never answered with the old refusal as if
 * it were current. Final: the step already claimed, the run stopped or expired, a prerequisite
 * failed, the run ended (rejected, superseded, completed, failed).
 */
function isFinalRefusal(refusal: ClaimRefusal, snap: ClaimSnapshot): boolean {
  if (["already_claimed", "stopped_stale_task", "expired", "prerequisite_failed"].includes(refusal.code)) return true;
  // A run moved to a person may be approved again: a retry is decided afresh.
  if (refusal.effect !== "none" && refusal.effect !== "needs_decision") return true;
  const status = snap.run?.status;
  return refusal.code === "run_not_approved" && status !== undefined && isTerminal(status);
}

/**
 * The claim's reading: the snapshot `decideClaim` decides on, and the task as the dispatch checks
 * read it (contract, text parts, its ticket's desk). Read together, so the dispatch checks see
 * the task of the same reading; a revision after it fails the claim's conditional task write.
 */
type ClaimReading = ClaimSnapshot & {
  task: { body: string; contract: unknown; textParts: unknown; ticket: { id: string; accountId: string; subject: string; account: { id: string; name: string; desk: string } } } | null;
};

/**
 * The task of run `runId` as the claim reads it — revision, text, contract, text parts, its
 * ticket and the ticket's account — in ONE statement (a join; nested relation selects would be
 * three), or null when there is no such run. JSON columns come back parsed on PostgreSQL and as
 * their text on SQLite; both are returned parsed.
 */
async function readClaimTask(db: Db, runId: string): Promise<(NonNullable<ClaimReading["task"]> & { revision: number }) | null> {
  const rows = await db.$queryRaw<{ revision: number | bigint; body: string; contract: unknown; textParts: unknown; ticketId: string; accountId: string; subject: string; accountName: string; accountDesk: string }[]>`
    SELECT t."revision", t."body", t."contract", t."textParts", k."id" AS "ticketId", k."accountId", k."subject", a."name" AS "accountName", a."desk" AS "accountDesk"
    FROM "run" r JOIN "task" t ON t."id" = r."taskId" JOIN "ticket" k ON k."desk" = t."desk" AND k."id" = t."ticketId" JOIN "customer_account" a ON a."desk" = k."desk" AND a."id" = k."accountId"
    WHERE r."id" = ${runId}`;
  const row = rows[0];
  if (!row) return null;
  const json = (v: unknown): unknown => (SQLITE && typeof v === "string" ? JSON.parse(v) : v);
  return {
    revision: Number(row.revision),
    body: row.body,
    contract: json(row.contract),
    textParts: json(row.textParts),
    ticket: { id: row.ticketId, accountId: row.accountId, subject: row.subject, account: { id: row.accountId, name: row.accountName, desk: row.accountDesk } },
  };
}

/** Reads everything `decideClaim` needs, outside any transaction (a handful of indexed lookups). */
async function readClaimSnapshot(db: Db, agent: AgentCaller, runId: string, stepId: string, body: ClaimBody, now: Date): Promise<ClaimReading> {
  const [found, task] = await Promise.all([
    db.run.findFirst({
      where: { id: runId, agentId: agent.id, desk: agentDesk(agent) },
      select: {
        id: true,
        agentId: true,
        taskId: true,
        ticketId: true,
        desk: true,
        catalogVersion: true,
        status: true,
        planVersion: true,
        approvedVersion: true,
        boundTaskRevision: true,
        expiresAt: true,
        stopReason: true,
        decisionReason: true,
        executions: { select: { stepId: true, status: true, resolution: true, claimedAt: true } },
        // ids only: the steps of a version are immutable and come parsed from planStepsById's cache
        planVersions: { select: { id: true, version: true } },
      },
    }),
    // what the dispatch checks read of the task too (its contract, text parts and desk), beside the run
    readClaimTask(db, runId),
  ]);
  // The task belongs to the run only when the run is the caller's (found within its scope).
  const run = found && task ? { ...found, task } : null;
  const snap: ClaimReading = {
    task: run ? { body: run.task.body, contract: run.task.contract, textParts: run.task.textParts, ticket: run.task.ticket } : null,
    now,
    agentId: agent.id,
    runId,
    stepId,
    body,
    run: run && { ...run, status: run.status as RunStatus },
    liveTaskRevision: run?.task.revision ?? 0,
    taskText: run?.task.body ?? "",
    steps: [],
    stepInEarlierVersion: false,
    executions: run?.executions ?? [],
    approval: null,
  };
  if (!run) return snap;
  snap.steps = [...(await planStepsById(db, run.planVersions.find((p) => p.version === run.planVersion)?.id))];
  // Earlier versions matter only for the refusal of a step the current version no longer has.
  if (!snap.steps.some((s) => s.id === stepId)) {
    for (const p of run.planVersions) if (p.version !== run.planVersion && (await planStepsById(db, p.id)).some((s) => s.id === stepId)) snap.stepInEarlierVersion = true;
  }
  if (run.approvedVersion !== null) {
    // Every approval of the step at the approved version (one per approver slot); the
    // claim records the first approver's, which carries the money.
    const rows = await db.approval.findMany({
      where: { runId, planVersion: run.approvedVersion, stepId },
      orderBy: [{ approverSlot: "asc" }, { createdAt: "desc" }],
      take: 20,
      select: { id: true, state: true, digest: true, expiresAt: true, boundTaskRevision: true, approverId: true, createdAt: true, approvalsRequired: true, recordVersions: true },
    });
    const first = rows.find((r) => r.state === "active") ?? rows[0];
    snap.approval = first ? { id: first.id, state: first.state, digest: first.digest, expiresAt: first.expiresAt, boundTaskRevision: first.boundTaskRevision, approverId: first.approverId, createdAt: first.createdAt, recordVersions: first.recordVersions } : null;
    snap.approvals = rows.map((r) => ({ approverId: r.approverId, state: r.state, digest: r.digest, approvalsRequired: r.approvalsRequired }));
  }
  return snap;
}

/**
 * Dispatch-time checks (docs/design.md §1: validated again at dispatch): the step alone against live
 * account data (earlier steps' effects are already in it, so plan-level sums do not apply), and
 * the approver's authority as it stands now (a revoked grant or disabled user no longer
 * consents). Returns the refusal, or null when both hold.
 */
async function dispatchChecks(db: Db, agent: AgentCaller, snap: ClaimReading, step: ClaimSnapshot["steps"][number], approverId: string | null): Promise<ClaimRefusal | null> {
  const run = snap.run!;
  // Money in flight counts only what was approved before this step's approval: the earlier approval holds first.
  // The run's ticket and its account come from the claim's reading, not read again.
  const known = snap.task ? { ticket: snap.task.ticket, account: snap.task.ticket.account } : undefined;
  const catalog = await catalogAt(run.catalogVersion, db);
  const desk = await loadAccountSnapshot({ ticketId: run.ticketId, desk: run.desk, steps: [step], now: snap.now, holdsBefore: snap.approval?.createdAt, known, catalog }, db);
  // A target record older than the approval's rule allows: sync first (before judging the step on it).
  const stale = await staleRecordAtClaim(db, snap.approval?.id, step, desk, snap.now, catalog);
  if (stale) return stale;
  // The step alone: its place in the plan (dependsOn) was checked by decideClaim's plan order.
  const { dependsOn: _order, ...alone } = step;
  // The task contract holds at dispatch too (the task is at the bound revision, or the claim was already refused as stale).
  const taskRow = snap.task;
  const task = taskRow ? await taskContractContext(db, taskRow, taskRow.ticket.account.desk) : undefined;
  // The date horizon was judged at the decision under the run's policy version; time only brings a date nearer.
  // Desk rules in force now; a rule about the plan's order sees the steps before this one.
  const earlierTools = snap.steps.slice(0, Math.max(0, snap.steps.findIndex((s) => s.id === step.id))).map((s) => s.tool);
  const deskRules = { rules: await deskRulesFor(db, run.desk), earlierTools: { [step.id]: earlierTools } };
  const live = inSpanSync("validate", () => validatePlan({ version: run.planVersion, steps: [alone] }, { desk, now: snap.now, runId: run.id, taskText: snap.taskText, agentAllowedTools: agent.allowedTools, catalog, task, dateHorizonDays: MAX_DATE_HORIZON_DAYS, deskRules, observeGate: traceGate }));
  const errors = live.issues.filter((i) => i.severity === "error");
  if (errors.length > 0) {
    return {
      kind: "refuse",
      code: "validation_failed",
      message: `Step ${step.id} no longer passes validation against current account data: ${errors.map((i) => i.message).join("; ")}. Do not write it.`,
      details: { stepId: step.id, issues: errors },
      effect: "none",
    };
  }
  if (approverId) {
    // The approver's grant of this tool, only while the person exists and is enabled (one statement:
    // a missing or disabled approver has no grant here, which refuses the same way).
    const grants = await db.grant.findMany({ where: { userId: approverId, tool: step.tool, user: { disabled: false } } });
    const amount = catalog.get(step.tool)?.amount(step.args as never);
    if (checkGrant(grantsOf(grants), "approve", step.tool, amount)) {
      return {
        kind: "refuse",
        code: "approval_revoked",
        message: `The person who approved step ${step.id} no longer has the authority to approve it; it needs a new approval.`,
        details: { stepId: step.id, approverId },
        effect: "none",
      };
    }
  }
  return null;
}

/**
 * Money in flight, atomically with the claim: for a step that moves money out of an
 * invoice of the run's desk `desk` (ids are per desk: the row by (desk, id)), takes the invoice
 * row's lock (a no-op conditional update: PostgreSQL row lock, SQLite write lock) and re-sums,
 * inside the claim's transaction, what approvals of that desk's runs given before this one still
 * hold on it (active or claimed, other runs, not expired) and what succeeded writes hold until the
 * local copy shows them (`written`, any run of the desk). If the open balance no longer
 * covers them plus this step, the claim lost a race: it is decided again (and refused by the
 * dispatch-time validation with `amount_exceeds_available`). Two executors claiming refunds of
 * different runs on one invoice are serialised by the lock, so never more than the open balance
 * is authorised.
 */
async function holdMoneyAtClaim(tx: Tx, step: ClaimSnapshot["steps"][number], approval: { id: string; createdAt: Date }, runId: string, desk: string, now: Date): Promise<void> {
  const tool = getTool(step.tool);
  const amount = tool?.amount(step.args as never);
  const invoiceId = (step.args as { invoiceId?: unknown }).invoiceId;
  if (!amount || typeof invoiceId !== "string") return;
  const locked = await tx.invoice.updateMany({ where: { desk, id: invoiceId }, data: { version: { increment: 0 } } });
  if (locked.count !== 1) throw new LostRace("invoice gone");
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { desk_id: { desk, id: invoiceId } }, select: { openMinor: true, currency: true } });
  const held = await tx.approval.aggregate({
    where: {
      targetKind: "invoice",
      targetId: invoiceId,
      run: { desk },
      amountCurrency: invoice.currency,
      // written amounts the local copy does not show yet hold too, whoever's and whenever approved
      OR: [{ state: { in: ["active", "claimed"] }, expiresAt: { gt: now }, createdAt: { lt: approval.createdAt }, NOT: { runId } }, heldWrittenWhere],
    },
    _sum: { amountMinor: true },
  });
  if (amount.currency === invoice.currency && invoice.openMinor - (held._sum.amountMinor ?? 0) < amount.minor) throw new LostRace("money on the invoice is held by an earlier approval");
}

/**
 * Money in flight on a record of a declared kind (an imported tool bound by `x-plandesk-max`,
 * lib/tools/tool-bindings.ts), atomically with the claim, as `holdMoneyAtClaim` does for an
 * invoice: the approval's own target and money columns say what it draws on; the record's row
 * (`desk_record`, by its primary key desk, kind, id) is locked by a no-op conditional update, and
 * what approvals of this desk's runs given before this one still hold on it (active or claimed,
 * other runs, not expired) plus the written amounts not yet synced is summed inside the claim's
 * transaction. If the available amount no longer covers them plus this step, the claim lost a race.
 */
async function holdDeclaredMoneyAtClaim(tx: Tx, approval: { id: string; createdAt: Date }, runId: string, desk: string, now: Date): Promise<void> {
  const row = await tx.approval.findUnique({ where: { id: approval.id }, select: { targetKind: true, targetId: true, amountMinor: true, amountCurrency: true } });
  if (!row?.targetKind || !row.targetId || row.amountMinor === null || isBuiltinKind(row.targetKind)) return;
  const key = { desk_kind_id: { desk, kind: row.targetKind, id: row.targetId } };
  const locked = await tx.deskRecord.updateMany({ where: { desk, kind: row.targetKind, id: row.targetId, deletedAt: null }, data: { version: { increment: 0 } } });
  if (locked.count !== 1) throw new LostRace("record gone");
  const record = await tx.deskRecord.findUniqueOrThrow({ where: key, select: { availableMinor: true, currency: true } });
  if (record.availableMinor === null || record.currency !== row.amountCurrency) return;
  const held = await tx.approval.aggregate({
    where: {
      targetKind: row.targetKind,
      targetId: row.targetId,
      amountCurrency: record.currency,
      run: { desk },
      OR: [{ state: { in: ["active", "claimed"] }, expiresAt: { gt: now }, createdAt: { lt: approval.createdAt }, NOT: { runId } }, heldWrittenWhere],
    },
    _sum: { amountMinor: true },
  });
  if (Number(record.availableMinor) - (held._sum.amountMinor ?? 0) < row.amountMinor) throw new LostRace("money on the record is held by an earlier approval");
}

/**
 * A refusal no executor can fix (lib/lifecycle/needs-decision.ts `NEEDS_DECISION_CODES`: live validation
 * failed, the approver lost the authority, a prerequisite failed) of an approved or executing run
 * gets the effect `needs_decision` and the reason a person reads: the run moves to a person in the
 * refusal's transaction (`applyRefusalEffect`). Others are returned as they are.
 */
async function withDecisionEffect(db: Db, refusal: ClaimRefusal, snap: ClaimSnapshot): Promise<ClaimRefusal> {
  const status = snap.run?.status;
  if (refusal.effect !== "none" || !needsDecision(refusal.code) || (status !== "approved" && status !== "executing")) return refusal;
  const position = snap.steps.findIndex((s) => s.id === snap.stepId) + 1;
  const step = snap.steps[position - 1];
  if (!step) return refusal;
  const approverId = typeof refusal.details.approverId === "string" ? refusal.details.approverId : null;
  const approverName = approverId ? ((await db.user.findUnique({ where: { id: approverId }, select: { name: true } }))?.name ?? null) : null;
  const decisionReason = decisionReasonOf({ code: refusal.code, details: refusal.details }, step, {
    at: snap.now,
    position,
    positionOf: (id) => snap.steps.findIndex((s) => s.id === id) + 1,
    approverName,
  });
  return { ...refusal, effect: "needs_decision", decisionReason };
}

/** Applies what a refusal changes besides being recorded: stop the run for a stale task, persist a passed deadline, or move the run to a person. */
async function applyRefusalEffect(tx: Tx, refusal: ClaimRefusal, runId: string, actor: Actor, now: Date): Promise<void> {
  if (refusal.effect === "needs_decision" && refusal.decisionReason) {
    await moveToNeedsDecision(tx, runId, refusal.decisionReason, now, actor);
    return;
  }
  if (refusal.effect === "stop_stale_task") {
    const details = refusal.details as ReturnType<typeof staleTaskDetails>; // decideClaim gives a stale-task refusal these details
    await stopForStaleTask(tx, runId, { code: "stopped_stale_task", ...details, at: now.toISOString() }, actor);
  } else if (refusal.effect === "expire") {
    if (!(await expireRun(tx, runId, now))) await settleExecution(tx, runId, now);
  }
}
