import { prisma } from "../db/db";
import { storedSteps, storedValidation } from "../plans/stored-plan";
import { inTransaction, ok } from "../db/transaction";
import { writeRunSteps } from "../plans/write-run-steps";

/** Runs handled per batch of the backfill (keyset pages by run id). */
const BATCH = 500;

/**
 * Writes the `run_step` rows (the queue's tool, amount and "beyond my limit" filters)
 * of every run that has none — the runs a database held before `run_step` existed — from each
 * run's current plan version and the gate stored with it. Keyset pages of `batch` runs by id, each
 * run in its own transaction through `writeRunSteps` (the one writer), re-checked inside it so a
 * concurrent submit or edit that wrote rows first is left alone. Idempotent: a second call finds
 * nothing. Returns how many runs got rows. Run by `npm run db:migrate` (and so `npm start`) after
 * the migrations.
 */
export async function backfillRunSteps(batch = BATCH): Promise<number> {
  let cursor = "";
  let written = 0;
  for (;;) {
    const runs = await prisma.run.findMany({
      where: { id: { gt: cursor }, runSteps: { none: {} } },
      orderBy: { id: "asc" },
      take: batch,
      select: { id: true, planVersion: true },
    });
    if (runs.length === 0) return written;
    cursor = runs[runs.length - 1].id;
    const versions = await prisma.planVersion.findMany({
      where: { OR: runs.map((r) => ({ runId: r.id, version: r.planVersion })) },
      select: { runId: true, version: true, steps: true, validation: true },
    });
    for (const v of versions) {
      const steps = storedSteps(v.steps);
      if (steps.length === 0) continue;
      const done = await inTransaction(async (tx) => {
        const run = await tx.run.findUniqueOrThrow({ where: { id: v.runId }, select: { planVersion: true, _count: { select: { runSteps: true } } } });
        if (run.planVersion !== v.version || run._count.runSteps > 0) return ok(false);
        await writeRunSteps(tx, v.runId, v.version, steps, storedValidation(v.validation).gate, storedValidation(v.validation).issues);
        return ok(true);
      });
      if (done) written++;
    }
  }
}
