import type { ConcurrentRun } from "../../api/schemas";
import type { Prisma } from "../../generated/prisma/client";
import { isTerminal, type RunStatus } from "../../lifecycle/run-state";
import type { DbOrTx } from "../db/transaction";

/**
 * Another run of the same task whose plan is being executed: its id and stored status — the API's
 * `ConcurrentRun` (lib/api/schemas.ts), the entries of `concurrentRuns` (run details, queue rows)
 * and of 409 `concurrent_run_unacknowledged`'s `runs`.
 */
export type { ConcurrentRun };

/**
 * `isBeingExecuted` in SQL: status `executing`; or `needs_decision` with a step execution (a step
 * was claimed); or, in any status, a step execution `claimed` or `unknown` that nobody reconciled
 * (no `resolution`). The executions are read by `step_execution (runId, stepId)`'s unique index.
 */
export const BEING_EXECUTED: Prisma.RunWhereInput = {
  OR: [
    { status: "executing" },
    { status: "needs_decision", executions: { some: {} } },
    { executions: { some: { status: { in: ["claimed", "unknown"] }, resolution: null } } },
  ],
};

/**
 * The OTHER runs of `run`'s task (same desk) being executed now — computed on every read, never
 * stored, so it is false again as soon as they end. Empty for a run that has itself ended (only a
 * live run's decision needs to know). One read by `run (taskId)`'s index; a task has few runs.
 * Newest first.
 */
export async function concurrentRunsOf(db: DbOrTx, run: { id: string; taskId: string; desk: string; status: string }): Promise<ConcurrentRun[]> {
  if (isTerminal(run.status as RunStatus)) return [];
  const rows = await db.run.findMany({
    where: { AND: [{ taskId: run.taskId, desk: run.desk, id: { not: run.id } }, BEING_EXECUTED] },
    select: { id: true, status: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map((r) => ({ id: r.id, status: r.status as RunStatus }));
}

/**
 * For one page of runs (the queue): per run id, the other runs of its task being executed, for
 * the page's live runs (ended runs get none). One read by `run (taskId)`'s index over the page's
 * tasks, bounded by the page (at most 200 rows), never a whole table. `scope` is the viewer's desk
 * scope (`deskScope`). Runs without concurrent runs are absent from the map.
 */
export async function concurrentRunsByRun(
  db: DbOrTx,
  page: readonly { id: string; taskId: string; status: string }[],
  scope: Prisma.RunWhereInput = {},
): Promise<Map<string, ConcurrentRun[]>> {
  const out = new Map<string, ConcurrentRun[]>();
  const live = page.filter((r) => !isTerminal(r.status as RunStatus));
  const taskIds = [...new Set(live.map((r) => r.taskId))];
  if (taskIds.length === 0) return out;
  const rows = await db.run.findMany({
    where: { AND: [scope, { taskId: { in: taskIds } }, BEING_EXECUTED] },
    select: { id: true, taskId: true, status: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  for (const r of live) {
    const others = rows.filter((x) => x.taskId === r.taskId && x.id !== r.id).map((x) => ({ id: x.id, status: x.status as RunStatus }));
    if (others.length) out.set(r.id, others);
  }
  return out;
}
