/**
 * Outcome records for runs that ended before outcomes were recorded: the backfill computes each
 * from what was written, page by page, and is idempotent — on SQLite and PostgreSQL.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "@/lib/demo/desk-data";
import { claimStep } from "@/lib/server/claims/claim-step";
import { reportOutcome } from "@/lib/server/claims/report-outcome";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID } from "@/lib/server/demo/seed";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { loadViewer, type AgentCaller } from "@/lib/server/auth/session";
import { approveAllAs, prepareTestDatabase, referenceEdit, TEST_NOW } from "@/testing/test-support";
import { backfillOutcomes } from "./backfill-outcomes";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (minutes: number) => new Date(TEST_NOW.getTime() + minutes * 60_000);
let runId = "";

beforeAll(async () => {
  await prepareTestDatabase();
  const senior = (await loadViewer("usr_senior"))!;
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "74991" }, idempotencyKey: { startsWith: "seed:" } } });
  runId = run.id;
  await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(toRunView(await loadRun(run.id), TEST_NOW).steps) }, at(1));
  await approveAllAs(run.id, "usr_supervisor");
  const view = toRunView(await loadRun(run.id), at(2));
  let t = 2;
  for (const s of view.steps) {
    t += 1;
    const { claim } = await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: view.boundTaskRevision }, null, at(t));
    await reportOutcome(agent, run.id, s.id, { token: claim.token, status: "succeeded" }, at(t));
  }
});

/** Removes every outcome record, as a database migrated from before outcomes has none. */
async function forgetOutcomes() {
  await prisma.runOutcomeMoney.deleteMany({});
  await prisma.runOutcome.deleteMany({});
}

describe("npm run outcomes:backfill", () => {
  it("writes the record an executed run would have had, from what was written, one page at a time", async () => {
    const live = await prisma.runOutcome.findUniqueOrThrow({ where: { runId } });
    const liveMoney = await prisma.runOutcomeMoney.findMany({ where: { runId }, select: { tool: true, currency: true, writtenMinor: true, proposedMinor: true, over: true } });
    await forgetOutcomes();
    const pages: number[] = [];
    const report = await backfillOutcomes({ batchSize: 1, now: at(60), onBatch: (r) => pages.push(r.scanned) });
    expect(report.recorded).toBeGreaterThanOrEqual(1);
    expect(report.batches).toBe(report.scanned); // one run id per page
    expect(pages).toEqual([...pages].sort((a, b) => a - b));
    const row = await prisma.runOutcome.findUniqueOrThrow({ where: { runId } });
    const { computedAt: _a, record: liveRecord, ...liveColumns } = live;
    const { computedAt: _b, record, ...columns } = row;
    expect(columns).toEqual(liveColumns);
    expect(record).toEqual(liveRecord);
    expect((record as { summary: string }).summary).toContain("The edit moved $1,489.00 more than the agent proposed");
    expect(await prisma.runOutcomeMoney.findMany({ where: { runId }, select: { tool: true, currency: true, writtenMinor: true, proposedMinor: true, over: true } })).toEqual(liveMoney);
    // every ended run that wrote a step has its record now; the others have none
    const ended = await prisma.run.count({ where: { status: { in: ["completed", "failed", "stopped", "expired"] } } });
    expect(report.scanned).toBe(ended);
    expect(await prisma.runOutcome.count()).toBe(report.recorded);
  });

  it("is idempotent: again it reads only runs without a record and writes nothing new; --recompute keeps a supervisor's label", async () => {
    const count = await prisma.runOutcome.count();
    const again = await backfillOutcomes({ now: at(61) });
    expect(again.recorded).toBe(0);
    expect(await prisma.runOutcome.count()).toBe(count);
    await prisma.runOutcome.update({ where: { runId }, data: { label: "worse", labelReason: "Refund to the wrong company", labelledById: "usr_supervisor", labelledAt: at(62), labelled: true } });
    const recomputed = await backfillOutcomes({ recompute: true, now: at(63) });
    expect(recomputed.recorded).toBe(count);
    const row = await prisma.runOutcome.findUniqueOrThrow({ where: { runId } });
    expect(row).toMatchObject({ label: "worse", labelReason: "Refund to the wrong company", labelledById: "usr_supervisor", labelled: true });
    expect(row.computedAt.toISOString()).toBe(at(63).toISOString());
  });
});
