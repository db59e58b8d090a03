import { nanoid } from "nanoid";
import { canonicalJson } from "../../plan/canonical-json";
import { computeOutcome, moneyLines, totalsByCurrency, type OutcomeRecord, type OutcomeStep, type TicketEventType } from "../../outcomes/outcome";
import { serverConfig } from "../config/config";
import { toJsonColumn } from "../db/json-column";
import { storedSteps } from "../plans/stored-plan";
import { contractOf } from "../tasks/task-contract";
import type { DbOrTx } from "../db/transaction";


/*
 * Stores the outcome record of an executed run (docs/design.md "Did the edit help?";
 * lib/outcomes/outcome.ts computes it). Written in the transaction that ends the run (the outcome
 * report, a reconciliation) and recomputed in the transaction of every ticket event of its task,
 * so the row is always the record of what is known now. Every read is by primary key or index.
 */

/** Run statuses after which what was written no longer changes. */
export const EXECUTED_END_STATUSES = ["completed", "failed", "stopped", "expired"] as const;

/** Ticket events read per run (the latest this many of its task; far more than a ticket ever has). */
export const EVENTS_PER_RUN = 500;

/** What counts for a step: a person's resolution, else the executor's report (as lib/server/claims reads it). */
const outcomeOf = (e: { status: string; resolution: string | null }) => e.resolution ?? e.status;

/** Step identity for "was it edited?": order, ids, tools and arguments (never provenance or reasons). */
const planKey = (steps: readonly OutcomeStep[]) => canonicalJson(steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })));

/**
 * Computes and upserts the outcome of run `runId` as of `now` (UTC) when the run has ended
 * (`EXECUTED_END_STATUSES`) with at least one written step (outcome `succeeded`, reported or
 * reconciled); otherwise does nothing and returns null. *Edited* means the approved plan's steps
 * (ids, tools, arguments, order) differ from the agent's plan version 1 — a discarded edit is not
 * an edit. The reopen window is PLANDESK_REOPEN_WINDOW_DAYS (default 7). Keeps a supervisor's
 * label as it is. Rewrites the run's `run_outcome_money` rows (money per tool and currency, and
 * whether it over-compensated). Returns the record.
 */
export async function recordRunOutcome(db: DbOrTx, runId: string, now = new Date()): Promise<OutcomeRecord | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { id: true, status: true, desk: true, taskId: true, planVersion: true, approvedVersion: true, boundTaskRevision: true },
  });
  if (!run || !(EXECUTED_END_STATUSES as readonly string[]).includes(run.status)) return null;
  const executions = await db.stepExecution.findMany({ where: { runId }, select: { stepId: true, status: true, resolution: true, reportedAt: true, reconciledAt: true, claimedAt: true } });
  const written = executions.filter((e) => outcomeOf(e) === "succeeded");
  if (written.length === 0) return null;
  const version = run.approvedVersion ?? run.planVersion;
  const versions = await db.planVersion.findMany({ where: { runId, version: { in: [1, version] } }, select: { version: true, steps: true } });
  const approvedSteps = storedSteps(versions.find((v) => v.version === version)?.steps);
  const agentSteps = storedSteps(versions.find((v) => v.version === 1)?.steps);
  const writtenIds = new Set(written.map((e) => e.stepId));
  const writtenSteps = approvedSteps.filter((s) => writtenIds.has(s.id));
  const edited = planKey(approvedSteps) !== planKey(agentSteps);
  const executedAt = new Date(Math.max(...written.map((e) => (e.reconciledAt ?? e.reportedAt ?? e.claimedAt).getTime())));

  const bound = await db.taskRevision.findUnique({ where: { taskId_revision: { taskId: run.taskId, revision: run.boundTaskRevision } }, select: { contract: true } });
  const contract = bound ? contractOf(bound) : contractOf((await db.task.findUnique({ where: { id: run.taskId }, select: { contract: true } })) ?? { contract: null });
  const events = await db.ticketEvent.findMany({ where: { taskId: run.taskId }, orderBy: [{ at: "desc" }, { id: "desc" }], take: EVENTS_PER_RUN, select: { type: true, at: true, detail: true } });
  const record = computeOutcome({
    writtenSteps,
    proposedSteps: edited ? agentSteps : null,
    compensationCap: contract?.constraints.compensationCap ?? null,
    executedAt,
    events: events.reverse().map((e) => ({ type: e.type as TicketEventType, at: e.at, detail: e.detail })),
    reopenWindowDays: serverConfig().reopenWindowDays,
  });
  const editor = edited ? await db.planEdit.findFirst({ where: { runId, toVersion: { lte: version } }, orderBy: { toVersion: "desc" }, select: { editorId: true } }) : null;
  const has = (s: OutcomeRecord["signals"][number]) => record.signals.includes(s);
  const columns = {
    desk: run.desk,
    taskId: run.taskId,
    edited,
    editorId: editor?.editorId ?? null,
    executedAt,
    executedDay: executedAt.toISOString().slice(0, 10),
    moneyOutMinor: record.moneyOut[0]?.minor ?? 0,
    moneyDifferenceMinor: record.moneyDifferenceMinor,
    reopened: has("reopened"),
    chargeback: has("chargeback"),
    overCompensation: has("over_compensation"),
    beyondCap: has("beyond_cap"),
    resolved: has("resolved"),
    customerReplied: has("customer_replied"),
    commitmentSent: has("commitment_sent"),
    suggestion: record.suggestion.label,
    record: toJsonColumn(record),
    computedAt: now,
  };
  await db.runOutcome.upsert({ where: { runId }, create: { runId, ...columns }, update: columns });
  await db.runOutcomeMoney.deleteMany({ where: { runId } });
  const rows = moneyRows(record, edited ? agentSteps : [], run.desk, columns.executedDay).map((r) => ({ id: nanoid(), runId, ...r }));
  if (rows.length) await db.runOutcomeMoney.createMany({ data: rows });
  return record;
}

/**
 * Money per tool and currency, written vs proposed; `over` when the run over-compensated and this
 * tool moved more than the agent's plan did with it (the tools that made the excess).
 */
function moneyRows(record: OutcomeRecord, proposedSteps: readonly OutcomeStep[], desk: string, executedDay: string) {
  const group = (lines: ReturnType<typeof moneyLines>) => {
    const by = new Map<string, Map<string, number>>();
    for (const l of lines) {
      const t = by.get(l.tool) ?? new Map<string, number>();
      for (const m of totalsByCurrency([l.amount])) t.set(m.currency, (t.get(m.currency) ?? 0) + m.minor);
      by.set(l.tool, t);
    }
    return by;
  };
  const written = group(record.moneyLines);
  const proposed = group(moneyLines(proposedSteps));
  const over = record.signals.includes("over_compensation");
  const out: { tool: string; currency: string; writtenMinor: number; proposedMinor: number; over: boolean; desk: string; executedDay: string }[] = [];
  for (const [tool, byCurrency] of written) {
    for (const [currency, writtenMinor] of byCurrency) {
      const proposedMinor = proposed.get(tool)?.get(currency) ?? 0;
      out.push({ tool, currency, writtenMinor, proposedMinor, over: over && writtenMinor > proposedMinor, desk, executedDay });
    }
  }
  return out;
}

/**
 * Recomputes the outcome of every ended run of task `taskId` (a ticket event arrived). Bounded:
 * a task has a handful of runs; at most 50 are read (newest first), by the run's task index.
 */
export async function recomputeTaskOutcomes(db: DbOrTx, taskId: string, now = new Date()): Promise<string[]> {
  const runs = await db.run.findMany({ where: { taskId, status: { in: [...EXECUTED_END_STATUSES] } }, orderBy: { createdAt: "desc" }, take: 50, select: { id: true } });
  const done: string[] = [];
  for (const r of runs) if (await recordRunOutcome(db, r.id, now)) done.push(r.id);
  return done;
}
