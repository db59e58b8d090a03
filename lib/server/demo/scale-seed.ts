import type { Prisma } from "../../generated/prisma/client";
import {
  scaleAccount,
  scaleInvoice,
  scaleNoiseEvent,
  scaleRun,
  scaleRunCreatedAt,
  scaleShipment,
  scaleSizes,
  scaleTicket,
  scaleUser,
  type ScaleAudit,
  type ScaleContext,
  type ScaleRunRows,
  type ScaleSizes,
} from "../../demo/scale-desk";
import { prisma } from "../db";
import { DEMO_AGENT_ID } from "./seed";

/** Progress of one table: rows written so far of `total`, milliseconds since the seed began. */
export type ScaleProgress = (table: string, done: number, total: number, elapsedMs: number) => void;

/** What `seedScaleDesk` wrote (rows per table) and how long it took, or that the desk was already there. */
export interface ScaleSeedReport {
  skipped: boolean;
  counts: Record<string, number>;
  ms: number;
}

/** Rows per `createMany` statement and statements per transaction. */
const ROWS_PER_INSERT = 1000;
const INSERTS_PER_TX = 5;

const json = (v: unknown) => v as Prisma.InputJsonValue;

/**
 * Adds the desk of real size (issue #11 item 2; lib/demo/scale-desk.ts) on top of the demo desk
 * (which must be seeded first: its agent, users and holidays are used). Deterministic for
 * (`seed`, `now`); only inserts (plain Prisma `createMany` in batches inside transactions, the same
 * on SQLite and PostgreSQL; the audit log stays append-only). Audit events are inserted in time
 * order, so `seq` follows `createdAt` as it does in a live desk. Idempotent: when the first scale
 * account exists, nothing is written (`skipped`). `factor` scales every size (1 = 10,000 accounts,
 * 100,000 tickets, 200,000 invoices and shipments, 20,000 runs, ~1,000,000 audit events).
 */
export async function seedScaleDesk(opts: { now?: Date; seed?: number; factor?: number; sizes?: ScaleSizes; onProgress?: ScaleProgress } = {}): Promise<ScaleSeedReport> {
  const started = Date.now();
  const now = opts.now ?? new Date();
  const seed = opts.seed ?? 11;
  const sizes = opts.sizes ?? scaleSizes(opts.factor ?? 1);
  const progress = opts.onProgress ?? (() => {});
  const elapsed = () => Date.now() - started;
  if (await prisma.customerAccount.findUnique({ where: { id: scaleAccount(seed, 0).id }, select: { id: true } })) {
    return { skipped: true, counts: {}, ms: elapsed() };
  }
  if (!(await prisma.agent.findUnique({ where: { id: DEMO_AGENT_ID }, select: { id: true } }))) {
    throw new Error("The scale desk goes on top of the demo desk: seed the demo desk first (PLANDESK_DEMO must not be 0).");
  }
  const counts: Record<string, number> = {};
  const holidays: Record<string, string[]> = {};
  for (const h of await prisma.holiday.findMany({ select: { destination: true, date: true } })) (holidays[h.destination] ??= []).push(h.date);
  const ctx: ScaleContext = { seed, sizes, now, holidays, agentId: DEMO_AGENT_ID };

  /** Inserts `total` generated rows of one table in batches; `make(i)` builds row i. */
  async function fill<T>(table: string, total: number, make: (i: number) => T, insert: (rows: T[]) => Prisma.PrismaPromise<unknown>[]) {
    let done = 0;
    while (done < total) {
      const ops: Prisma.PrismaPromise<unknown>[] = [];
      let n = 0;
      for (let k = 0; k < INSERTS_PER_TX && done + n < total; k++) {
        const rows: T[] = [];
        for (let r = 0; r < ROWS_PER_INSERT && done + n < total; r++, n++) rows.push(make(done + n));
        ops.push(...insert(rows));
      }
      await prisma.$transaction(ops);
      done += n;
      progress(table, done, total, elapsed());
    }
    counts[table] = (counts[table] ?? 0) + total;
  }

  await fill("accounts", sizes.accounts, (i) => scaleAccount(seed, i), (rows) => [prisma.customerAccount.createMany({ data: rows })]);
  await fill(
    "tickets",
    sizes.tickets,
    (k) => scaleTicket(seed, k, sizes, now),
    (rows) => [
      prisma.ticket.createMany({ data: rows.map((t) => ({ id: t.id, accountId: t.accountId, subject: t.subject, createdAt: t.createdAt })) }),
      prisma.task.createMany({ data: rows.map((t) => ({ id: `task_${t.id}`, ticketId: t.id, revision: 1, body: t.body, createdAt: t.createdAt, updatedAt: t.createdAt })) }),
      prisma.taskRevision.createMany({
        data: rows.map((t) => ({ id: `task_${t.id}_r1`, taskId: `task_${t.id}`, revision: 1, body: t.body, actorKind: "integration", createdAt: t.createdAt })),
      }),
    ],
  );
  await fill("invoices", sizes.invoices, (j) => scaleInvoice(seed, j, sizes, now), (rows) => [prisma.invoice.createMany({ data: rows.map((r) => ({ ...r, fees: json(r.fees) })) })]);
  await fill("shipments", sizes.shipments, (j) => scaleShipment(seed, j, sizes, now), (rows) => [prisma.shipment.createMany({ data: rows })]);
  await fill(
    "users",
    sizes.users,
    (u) => scaleUser(seed, u),
    (rows) => [
      prisma.user.createMany({ data: rows.map((u) => ({ ...u, emailVerified: true, createdAt: now, updatedAt: now })) }),
      prisma.grant.createMany({
        data: rows.flatMap((u) =>
          ["add_ticket_note", "reschedule_delivery", "send_reply", "escalate_ticket", "issue_refund", "apply_credit", "waive_fee"].map((tool) => ({
            id: `${u.id}_${tool}`,
            userId: u.id,
            tool,
            canApprove: true,
            approveLimitMinor: tool.includes("_fee") || tool.includes("refund") || tool.includes("credit") ? 50_000 : null,
            approveLimitCurrency: tool.includes("_fee") || tool.includes("refund") || tool.includes("credit") ? "USD" : null,
            canAuthor: !(tool.includes("_fee") || tool.includes("refund") || tool.includes("credit")),
          })),
        ),
      }),
    ],
  );

  // Runs in submission order, with their histories; audit events (theirs and the refusal noise)
  // are held back until no later event can precede them, then inserted in time order.
  const pending: ScaleAudit[] = [];
  let runsDone = 0;
  let eventsWritten = 0;
  const runBatch: ScaleRunRows[] = [];
  // The runs' own events first decide how much noise fills the log up to the target.
  const ownEstimate = Math.round(sizes.runs * 7); // a run writes about 7 events (measured over the generator)
  const noiseTotal = Math.max(0, sizes.auditEvents - ownEstimate);
  let noiseNext = 0;
  const noiseTime = (n: number) => now.getTime() - 61 * 86_400_000 + (n / Math.max(1, noiseTotal)) * 61 * 86_400_000;

  async function flushEvents(before: number) {
    pending.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    let cut = 0;
    while (cut < pending.length && pending[cut].createdAt.getTime() < before) cut++;
    const out = pending.splice(0, cut);
    for (let k = 0; k < out.length; k += ROWS_PER_INSERT * INSERTS_PER_TX) {
      const slice = out.slice(k, k + ROWS_PER_INSERT * INSERTS_PER_TX);
      const ops = [];
      for (let m = 0; m < slice.length; m += ROWS_PER_INSERT) ops.push(prisma.auditEvent.createMany({ data: slice.slice(m, m + ROWS_PER_INSERT).map((e) => ({ ...e, data: json(e.data) })) }));
      await prisma.$transaction(ops);
      eventsWritten += slice.length;
    }
    if (out.length) progress("audit events", eventsWritten, sizes.auditEvents, elapsed());
  }

  async function writeRuns(batch: ScaleRunRows[]) {
    if (batch.length === 0) return;
    const chunks = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / ROWS_PER_INSERT) }, (_, k) => xs.slice(k * ROWS_PER_INSERT, (k + 1) * ROWS_PER_INSERT));
    const runs = batch.map((b) => ({ ...b.run, editTouched: b.run.editTouched === null ? undefined : json(b.run.editTouched) }) as Prisma.RunCreateManyInput);
    const versions = batch.flatMap((b) => b.planVersions.map((p) => ({ ...p, steps: json(p.steps), validation: json(p.validation) })));
    const edits = batch.flatMap((b) => b.planEdits.map((e) => ({ ...e, before: json(e.before), after: json(e.after), diff: json(e.diff) }) as Prisma.PlanEditCreateManyInput));
    const approvals = batch.flatMap((b) => b.approvals.map((a) => ({ ...a, target: a.target === null ? undefined : json(a.target), args: json(a.args), authority: json(a.authority), acknowledged: json(a.acknowledged) })));
    const executions = batch.flatMap((b) => b.executions as unknown as Prisma.StepExecutionCreateManyInput[]);
    await prisma.$transaction([
      ...chunks(runs).map((data) => prisma.run.createMany({ data })),
      ...chunks(versions).map((data) => prisma.planVersion.createMany({ data })),
      ...chunks(edits).map((data) => prisma.planEdit.createMany({ data })),
      ...chunks(approvals).map((data) => prisma.approval.createMany({ data })),
      ...chunks(executions).map((data) => prisma.stepExecution.createMany({ data })),
    ]);
    for (const b of batch) {
      counts.runs = (counts.runs ?? 0) + 1;
      counts.planVersions = (counts.planVersions ?? 0) + b.planVersions.length;
      counts.planEdits = (counts.planEdits ?? 0) + b.planEdits.length;
      counts.approvals = (counts.approvals ?? 0) + b.approvals.length;
      counts.executions = (counts.executions ?? 0) + b.executions.length;
    }
  }

  for (let i = 0; i < sizes.runs; i++) {
    const t0 = scaleRunCreatedAt(i, sizes, now).getTime();
    while (noiseNext < noiseTotal && noiseTime(noiseNext) < t0) pending.push(scaleNoiseEvent(ctx, noiseNext++, noiseTotal));
    const rows = scaleRun(ctx, i);
    if (!rows) continue;
    pending.push(...rows.audits);
    runBatch.push(rows);
    if (runBatch.length >= 500) {
      await writeRuns(runBatch.splice(0));
      runsDone = i + 1;
      progress("runs", runsDone, sizes.runs, elapsed());
      await flushEvents(t0 - 11 * 60_000);
    }
  }
  await writeRuns(runBatch.splice(0));
  progress("runs", sizes.runs, sizes.runs, elapsed());
  while (noiseNext < noiseTotal) pending.push(scaleNoiseEvent(ctx, noiseNext++, noiseTotal));
  await flushEvents(Number.POSITIVE_INFINITY);
  counts.auditEvents = eventsWritten;
  return { skipped: false, counts, ms: elapsed() };
}
