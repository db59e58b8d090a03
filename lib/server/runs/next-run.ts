import type { Prisma } from "../../generated/prisma/client";
import { DomainError } from "../../errors/domain-error";
import { prisma } from "../db/db";
import { whereEffectiveStatus } from "./list-queue";
import { whereNotParkedBy } from "../ownership/park-run";

/** The run "approve & next" opens: its id, ticket and deadline (ISO-8601 UTC). */
export interface NextRun {
  id: string;
  ticketId: string;
  expiresAt: string;
}

/**
 * The next run waiting for a person's decision after run `runId` (pending review, or needing a new
 * decision after approval), in the queue's default order (soonest
 * deadline first, then id), within `scope` (the viewer's desk, `deskScope`); past the last one it
 * wraps to the first; null when no other run waits ("approve & next"). One indexed
 * keyset query on (status, expiresAt) per status, never the whole queue. Errors: 404 `not_found` when
 * `runId` is not a run of the scope. With `viewerId`, the runs that person parked (skipped, snoozed or
 * handed off, docs/design.md "Skip and snooze") and whose park still holds are left out in SQL.
 */
export async function findNextRun(runId: string, scope: Prisma.RunWhereInput, now = new Date(), viewerId?: string): Promise<NextRun | null> {
  const current = await prisma.run.findFirst({ where: { AND: [scope, { id: runId }] }, select: { expiresAt: true } });
  if (!current) throw new DomainError("not_found", "No such run.");
  // A run that needs a new decision waits for a person as much as one pending review: approve & next never skips it.
  const waiting: Prisma.RunWhereInput = { AND: [scope, { OR: [whereEffectiveStatus("pending_review", now), whereEffectiveStatus("needs_decision", now)] }, { id: { not: runId } }, viewerId ? await whereNotParkedBy(viewerId, now) : {}] };
  const select = { id: true, ticketId: true, expiresAt: true } as const;
  const orderBy: Prisma.RunOrderByWithRelationInput[] = [{ expiresAt: "asc" }, { id: "asc" }];
  const after = await prisma.run.findFirst({
    where: { AND: [waiting, { OR: [{ expiresAt: { gt: current.expiresAt } }, { expiresAt: current.expiresAt, id: { gt: runId } }] }] },
    orderBy,
    select,
  });
  const next = after ?? (await prisma.run.findFirst({ where: waiting, orderBy, select }));
  return next ? { id: next.id, ticketId: next.ticketId, expiresAt: next.expiresAt.toISOString() } : null;
}
