import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import type { DbOrTx } from "../db/transaction";
import { runInclude, type RunWithRelations } from "./run-view";

/**
 * One run with its plan versions, approvals and executions, found by id AND `where` (the
 * caller's scope, e.g. the viewer's desk or the calling agent), so a run outside the scope is
 * simply not found. Errors: 404 `not_found`.
 */
export async function loadRun(runId: string, where: Prisma.RunWhereInput = {}, db: DbOrTx = prisma): Promise<RunWithRelations> {
  const run = await db.run.findFirst({ where: { ...where, id: runId }, include: runInclude });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  return run;
}

/** The run's plan version row `version`, or throws `Error` when it is missing (a bug: versions are never deleted). */
export async function loadPlanVersionRow(db: DbOrTx, runId: string, version: number) {
  return db.planVersion.findUniqueOrThrow({ where: { runId_version: { runId, version } } });
}
