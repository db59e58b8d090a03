import { DomainError } from "../../errors/domain-error";
import { prisma } from "../db/db";
import { deskScope, type Viewer } from "./viewer";

/*
 * Cheap checks that a page's subject exists for its viewer, run by the segment's layout.tsx above
 * a route-level loading boundary (lib/server/auth/page-access.ts), so an unknown id answers 404 before
 * the skeleton streams. Each is one count by primary key; the page's own read checks again and
 * loads the whole thing.
 */

/**
 * Throws 404 `not_found` unless run `runId` exists in `viewer`'s scope (an operator's desk; every
 * desk for supervisors and admins): the same scope as `getRunDetails`, so another desk's run is
 * simply not found.
 */
export async function assertRunInScope(runId: string, viewer: Pick<Viewer, "role" | "desk">): Promise<void> {
  if ((await prisma.run.count({ where: { ...deskScope(viewer), id: runId } })) === 0) throw new DomainError("not_found", `Run ${runId} was not found.`);
}

/** Throws 404 `not_found` unless a person with id `userId` exists (the admin's user page). */
export async function assertUserExists(userId: string): Promise<void> {
  if ((await prisma.user.count({ where: { id: userId } })) === 0) throw new DomainError("not_found", `No user ${userId}.`);
}

/** Throws 404 `not_found` unless desk `deskId` exists (the admin's intent catalog page). */
export async function assertDeskExists(deskId: string): Promise<void> {
  if ((await prisma.desk.count({ where: { id: deskId } })) === 0) throw new DomainError("not_found", `There is no desk "${deskId}".`);
}
