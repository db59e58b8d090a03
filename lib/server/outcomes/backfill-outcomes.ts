import { prisma } from "../db/db";
import { inTransaction, ok, type Db } from "../db/transaction";
import { EXECUTED_END_STATUSES, recordRunOutcome } from "./record-run-outcome";

/*
 * Outcome records for runs that ended before outcomes were recorded (docs/design.md
 * "Did the edit help?"): `npm run outcomes:backfill` computes each from what was written (the run's plan
 * versions, step executions, bound task revision and ticket events), as the transaction that ends a
 * run would have. Batched and bounded: one keyset page of run ids at a time (by primary key, never
 * an offset), each run's record written in its own transaction, so memory holds one page however
 * large the desk is and no transaction holds the write lock for long.
 * Idempotent: a run that has its record is skipped (or, with `recompute`, rewritten the same way);
 * a supervisor's label is never touched.
 */

/** Run ids per page of the backfill. */
export const BACKFILL_BATCH = 200;

/** What a backfill did: runs read, records written, runs without a written step (no record), pages, milliseconds. */
export interface BackfillReport {
  scanned: number;
  recorded: number;
  withoutWrite: number;
  batches: number;
  ms: number;
}

/**
 * Writes the outcome record of every ended run (`EXECUTED_END_STATUSES`) that has a written step
 * and no record yet — or, with `recompute`, of every ended run (records stored by an older version
 * are rewritten with today's fields; labels kept). `batchSize` run ids per page (1–5,000,
 * default 200); `now` (UTC) is the records' `computedAt`; `onBatch` is told after each
 * page. Safe to run while the console serves requests and to run again: a record is an upsert
 * keyed by run id. Returns the counts.
 */
export async function backfillOutcomes(
  opts: { batchSize?: number; recompute?: boolean; now?: Date; onBatch?: (report: BackfillReport) => void; db?: Db } = {},
): Promise<BackfillReport> {
  const started = Date.now();
  const db = opts.db ?? prisma;
  const take = Math.min(5000, Math.max(1, Math.floor(opts.batchSize ?? BACKFILL_BATCH)));
  const report: BackfillReport = { scanned: 0, recorded: 0, withoutWrite: 0, batches: 0, ms: 0 };
  let after: string | null = null;
  for (;;) {
    // One keyset page over the run primary key: ended runs without a record (NOT EXISTS on run_outcome's primary key).
    const page: { id: string }[] = await db.run.findMany({
      where: { status: { in: [...EXECUTED_END_STATUSES] }, ...(opts.recompute ? {} : { outcomeRecord: { is: null } }), ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take,
      select: { id: true },
    });
    if (page.length === 0) break;
    // Each run's record in its own short transaction (as the transaction that ends a run writes it):
    // a page of runs in one transaction would hold the write lock for seconds and outlive the
    // transaction timeout on a loaded PostgreSQL.
    let written = 0;
    for (const r of page) if (await inTransaction(async (tx) => ok(await recordRunOutcome(tx, r.id, opts.now ?? new Date())), db)) written++;
    report.scanned += page.length;
    report.recorded += written;
    report.withoutWrite += page.length - written;
    report.batches += 1;
    report.ms = Date.now() - started;
    opts.onBatch?.({ ...report });
    after = page[page.length - 1].id;
    if (page.length < take) break;
  }
  report.ms = Date.now() - started;
  return report;
}
