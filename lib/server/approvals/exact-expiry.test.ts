/**
 * Expiry is exact on the server as in the browser (docs/design.md §10): at `expiresAt` itself,
 * before any deadline sweep has run, approving and rejecting are refused `expired` and the run is
 * stored expired; a millisecond earlier the decision is still taken. The browser's buttons
 * disable at the same instant (lib/deadline/expiry-words.ts `isExpiredAt`; e2e/expiry.spec.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { isExpiredAt } from "../../deadline/expiry-words";
import { prisma } from "../db/db";
import { loadViewer, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, refused } from "../../../testing/test-support";
import { approveSteps } from "./approve-steps";
import { rejectRun } from "./reject-run";

let senior: Viewer;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
});

async function seededRun(ticketId: string) {
  return prisma.run.findFirstOrThrow({ where: { task: { ticketId }, idempotencyKey: { startsWith: "seed:" } } });
}

describe("expiry at the exact instant", () => {
  it("at expiresAt, before any sweep: approving and rejecting are refused expired, and the run is stored expired", async () => {
    const approving = await seededRun("74993");
    expect(approving.status).toBe("pending_review");
    expect(isExpiredAt(approving.expiresAt.toISOString(), approving.expiresAt)).toBe(true); // the browser's rule, same instant
    const late = await refused(approveSteps(senior, approving.id, { planVersion: 1, stepIds: "all", idempotencyKey: "exact-approve" }, approving.expiresAt));
    expect(late.code).toBe("expired");
    expect(late.status).toBe(409);
    expect(await prisma.approval.count({ where: { runId: approving.id, approverId: { not: null } } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: approving.id } })).status).toBe("expired");

    const rejecting = await seededRun("74996");
    const lateReject = await refused(rejectRun(senior, rejecting.id, { planVersion: 1, reason: "Too late to decide" }, rejecting.expiresAt));
    expect(lateReject.code).toBe("expired");
    expect((await prisma.run.findUniqueOrThrow({ where: { id: rejecting.id } })).rejectionReason).toBeNull();
  });

  it("a millisecond before expiresAt the decision is still taken", async () => {
    const run = await seededRun("74999");
    const before = new Date(run.expiresAt.getTime() - 1);
    expect(isExpiredAt(run.expiresAt.toISOString(), before)).toBe(false);
    const res = await rejectRun(senior, run.id, { planVersion: 1, reason: "Decided in time" }, before);
    expect(res.status).toBe("rejected");
  });
});
