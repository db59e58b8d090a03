/**
 * The queue's "At stake" column, its sort and its search, in SQL on this file's own database (both
 * dialects): the reference run of ticket #74991 edited to refund $1,489.00 on Halvorsen Freight's
 * invoice carries that money and an "another account" badge, sorts first by money at stake, and is
 * found by ticket number, account name or run id; and a second approval of an approved step adds
 * nothing and says so.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { approveSteps } from "../approvals/approve-steps";
import { prisma } from "../db/db";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { listQueue } from "./list-queue";
import { toRunView } from "../plans/run-view";
import { deskScope, loadViewer, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, referenceEdit, TEST_NOW } from "../../../testing/test-support";

const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
let senior: Viewer;
let runId: string;
let refundStepId: string;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "74991" }, idempotencyKey: { startsWith: "seed:" } } });
  runId = run.id;
  const v1 = toRunView(await loadRun(run.id), TEST_NOW);
  const edit = await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(v1.steps) }, at(60));
  refundStepId = edit.diff.added[0].id;
});

const queue = (f: Parameters<typeof listQueue>[0] = {}) => listQueue({ status: "pending_review", scope: deskScope(senior), viewer: senior, ...f }, at(90));

describe("the queue's At stake column", () => {
  it("shows the money the plan moves per currency and a badge for the step that reaches another account", async () => {
    const row = (await queue({ limit: 200 })).runs.find((r) => r.id === runId)!;
    expect(row.atStake).toEqual([{ minor: 148900, currency: "USD" }]);
    expect(row.risks).toEqual({ irreversible: 1, otherAccount: 1, moneyOut: 1 });
    const stored = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { atStakeMinor: true, riskyStepCount: true } });
    expect(stored).toEqual({ atStakeMinor: 148900, riskyStepCount: 1 });
  });

  it("sorts by money at stake in SQL, across pages, biggest first", async () => {
    const all = (await queue({ sort: "at_stake", limit: 200 })).runs;
    const keys = await prisma.run.findMany({ where: { id: { in: all.map((r) => r.id) } }, select: { id: true, atStakeMinor: true } });
    const stake = new Map(keys.map((k) => [k.id, k.atStakeMinor]));
    const order = all.map((r) => stake.get(r.id)!);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    // page by page with the cursor: the same order, no run twice
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof queue>> = await queue({ sort: "at_stake", limit: 2, cursor });
      seen.push(...page.runs.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((r) => r.id));
  });
});

describe("the queue's search", () => {
  it("finds the run by ticket number (with or without #), account name, account id and run id", async () => {
    for (const q of ["74991", "#74991", "Nordkapp", "acc_nordkapp", runId]) {
      const ids = (await queue({ q, limit: 200 })).runs.map((r) => r.id);
      expect(ids, q).toContain(runId);
    }
    const none = (await queue({ q: "no-such-ticket", limit: 200 })).runs;
    expect(none).toEqual([]);
    const other = (await queue({ q: "74992", limit: 200 })).runs;
    expect(other.every((r) => r.ticketId.startsWith("74992"))).toBe(true);
  });
});

describe("a second approval of an approved step", () => {
  it("adds nothing and names the step as already approved", async () => {
    // the refund reaches another account, and the ticket it names as evidence is not about that invoice
    const ack = [{ code: "cross_account_target", stepId: refundStepId }, { code: "evidence_unrelated", stepId: refundStepId }];
    const first = await approveSteps(senior, runId, { planVersion: 2, stepIds: [refundStepId], idempotencyKey: "stake-1", acknowledgedWarnings: ack }, at(100));
    expect(first.added).toBe(1);
    expect(first.alreadyApproved).toEqual([]);
    const before = await prisma.approval.count({ where: { runId } });
    const again = await approveSteps(senior, runId, { planVersion: 2, stepIds: [refundStepId], idempotencyKey: "stake-2", acknowledgedWarnings: ack }, at(110));
    expect(again.added).toBe(0);
    expect(again.alreadyApproved).toEqual([refundStepId]);
    expect(await prisma.approval.count({ where: { runId } })).toBe(before);
  });
});
