import { beforeAll, describe, expect, it } from "vitest";
import { scaleRun, scaleSizes, type ScaleContext } from "../../demo/scale-desk";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { digest } from "../../plan/digest";
import { prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";
import { approveSteps } from "../approvals/approve-steps";
import { claimStep } from "../claims/claim-step";
import fs from "node:fs";
import { deploy } from "../../../scripts/migrate";
import { resolveDatabaseUrl } from "../db/database-url";
import { createPrisma, prisma, type PrismaClient } from "../db/db";
import { listQueue } from "../runs/list-queue";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { storedSteps } from "../plans/stored-plan";
import { loadViewer } from "../auth/viewer";
import { DEMO_AGENT_ID, DEMO_INTEGRATION_ID } from "./seed";
import { seedScaleDesk } from "./scale-seed";
import { dropPgTestDatabase, freshTestDatabaseUrl, recreatePgTestDatabase } from "../../../testing/test-databases";

// A small scale desk (0.5% of the issue's size) on top of the demo desk, checked row by row.
const FACTOR = 0.005;
const sizes = scaleSizes(FACTOR);
let report: Awaited<ReturnType<typeof seedScaleDesk>>;

beforeAll(async () => {
  await prepareTestDatabase();
  report = await seedScaleDesk({ now: TEST_NOW, factor: FACTOR });
}, 120_000);

describe("the scale desk (npm run db:seed -- --scale)", () => {
  it("adds the requested numbers of records on top of the demo desk, and a second run adds nothing", async () => {
    expect(report.skipped).toBe(false);
    expect(await prisma.customerAccount.count({ where: { id: { startsWith: "acc_s" } } })).toBe(sizes.accounts);
    expect(await prisma.ticket.count({ where: { id: { startsWith: "2" } } })).toBe(sizes.tickets);
    expect(await prisma.task.count({ where: { ticketId: { startsWith: "2" } } })).toBe(sizes.tickets);
    // Tickets come in through the ticketing door, as every team's do: each task's revision 1 is the integration's, audited.
    expect(await prisma.taskRevision.count({ where: { revision: 1, actorKind: "integration", task: { ticketId: { startsWith: "2" } } } })).toBe(sizes.tickets);
    expect(await prisma.auditEvent.count({ where: { type: "task_opened", actorId: DEMO_INTEGRATION_ID } })).toBeGreaterThanOrEqual(sizes.tickets);
    expect(await prisma.invoice.count({ where: { id: { startsWith: "in_1" } } })).toBe(sizes.invoices);
    expect(await prisma.shipment.count({ where: { id: { startsWith: "sh_2" } } })).toBe(sizes.shipments);
    expect(await prisma.run.count({ where: { idempotencyKey: { startsWith: "scale:" } } })).toBe(sizes.runs);
    expect(await prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_nordkapp" } } })).not.toBeNull(); // the demo desk stays
    const events = await prisma.auditEvent.count();
    expect(events).toBeGreaterThanOrEqual(sizes.auditEvents * 0.9);
    expect(events).toBeLessThanOrEqual(sizes.auditEvents * 1.3);
    const again = await seedScaleDesk({ now: TEST_NOW, factor: FACTOR });
    expect(again.skipped).toBe(true);
    expect(await prisma.auditEvent.count()).toBe(events);
  });

  it("is deterministic: the same seed and clock give the same run, row for row", () => {
    const ctx: ScaleContext = { seed: 11, sizes, now: TEST_NOW, holidays: {}, agentId: DEMO_AGENT_ID };
    expect(JSON.stringify(scaleRun(ctx, 42))).toBe(JSON.stringify(scaleRun(ctx, 42)));
    expect(JSON.stringify(scaleRun({ ...ctx, seed: 12 }, 42))).not.toBe(JSON.stringify(scaleRun(ctx, 42)));
  });

  it("gives every run a consistent history: versions, digests, approvals and executions match its status", async () => {
    const runs = await prisma.run.findMany({ where: { idempotencyKey: { startsWith: "scale:" } }, include: { planVersions: true, approvals: true, executions: true, edits: true } });
    const statuses = new Set<string>();
    for (const run of runs) {
      statuses.add(run.status);
      const pv = run.planVersions.find((p) => p.version === run.planVersion);
      expect(pv, run.id).toBeDefined();
      expect(run.planVersions.map((p) => p.version).sort()).toEqual(Array.from({ length: run.planVersion }, (_, k) => k + 1));
      expect(run.edits.length).toBe(run.editCount);
      expect(run.editCount).toBe(run.planVersion - 1);
      const steps = storedSteps(pv!.steps);
      expect(steps.length).toBe(run.stepCount);
      for (const a of run.approvals) {
        const version = run.planVersions.find((p) => p.version === a.planVersion)!;
        const step = storedSteps(version.steps).find((s) => s.id === a.stepId)!;
        expect(a.digest).toBe(digest(step));
      }
      const live = run.approvals.filter((a) => a.planVersion === run.planVersion && ["active", "claimed", "consumed"].includes(a.state));
      const covered = steps.every((s) => live.some((a) => a.stepId === s.id));
      if (run.status === "approved") expect(covered && run.approvedVersion === run.planVersion && run.expiresAt > TEST_NOW).toBe(true);
      if (run.status === "pending_review") expect(covered || run.expiresAt <= TEST_NOW).toBe(run.expiresAt <= TEST_NOW);
      if (run.status === "completed") {
        expect(run.executions.map((e) => e.status)).toEqual(steps.map(() => "succeeded"));
        expect(run.approvals.filter((a) => a.planVersion === run.planVersion && a.state === "consumed").length).toBe(steps.length);
      }
      if (run.status === "failed") expect(run.executions.some((e) => e.status === "failed")).toBe(true);
      if (run.status === "executing") expect(run.executions.some((e) => e.status === "unknown")).toBe(true);
      if (run.status === "expired") expect(run.expiresAt <= TEST_NOW && run.approvals.every((a) => a.state !== "active")).toBe(true);
      if (run.status === "rejected") expect(run.rejectionReason).toBeTruthy();
      for (const e of run.executions) expect(run.approvals.find((a) => a.id === e.approvalId)?.digest).toBe(e.digest);
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining(["approved", "completed", "expired", "pending_review", "rejected"]));
  });

  it("writes the audit log in time order (seq follows createdAt) and only inserts", async () => {
    const rows = await prisma.auditEvent.findMany({ where: { id: { startsWith: "evt_" } }, orderBy: { seq: "asc" }, select: { createdAt: true } });
    let backwards = 0;
    for (let k = 1; k < rows.length; k++) if (rows[k].createdAt < rows[k - 1].createdAt) backwards++;
    expect(backwards).toBe(0);
  });

  it("serves the console and the executor on generated runs: queue, run view, approval by a person, claim", async () => {
    const supervisor = (await loadViewer("usr_supervisor"))!;
    const page = await listQueue({ status: "pending_review", scope: {} }, TEST_NOW);
    expect(page.runs.length).toBeGreaterThan(0);
    const pending = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: { startsWith: "scale:" }, status: "pending_review", expiresAt: { gt: TEST_NOW } } });
    expect(toRunView(await loadRun(pending.id), TEST_NOW).status).toBe("pending_review");
    // Approval re-validates the plan against the account data in the database: the generator's records and plans agree.
    const approved = await approveSteps(supervisor, pending.id, { planVersion: pending.planVersion, stepIds: "all", idempotencyKey: "scale-test", acknowledgedWarnings: ackAll(await loadRun(pending.id)) }, TEST_NOW);
    expect(approved.run.status).toBe("approved");
    const first = approved.run.steps[0];
    const agent = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS] as string[], keyId: "key_demo" };
    const { claim } = await claimStep(agent, pending.id, first.id, { digest: first.digest, taskRevision: 1 }, null, TEST_NOW);
    expect(claim.digest).toBe(first.digest);
  });
});

describe("the portable path (Prisma createMany, as on PostgreSQL)", () => {
  it("stores exactly what the SQLite fast path stores", async () => {
    const read = async (prisma: PrismaClient) => {
      const ids = ["run_s000010", "run_s000050", "run_s000097"];
      const runs = await prisma.run.findMany({ where: { id: { in: ids } }, include: { planVersions: true, approvals: true, executions: true, edits: true }, orderBy: { id: "asc" } });
      const records = [await prisma.ticket.findFirst({ where: { id: "200005" } }), await prisma.invoice.findFirst({ where: { id: "in_1000007" } }), await prisma.user.findUnique({ where: { id: "usr_s0001" }, include: { grants: true } })];
      const events = await prisma.auditEvent.findMany({ where: { runId: { in: ids } }, orderBy: { seq: "asc" }, select: { id: true, type: true, actorKind: true, actorId: true, data: true, createdAt: true } });
      const sort = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));
      // Source versions are BigInt columns (the records door): written as strings.
      return JSON.stringify({ runs: runs.map((r) => ({ ...r, planVersions: sort(r.planVersions), approvals: sort(r.approvals), executions: sort(r.executions), edits: sort(r.edits) })), records, events }, (_k, v: unknown) =>
        typeof v === "bigint" ? v.toString() : v,
      );
    };
    // A second database with what the scale desk needs of the demo desk (its agent and holidays).
    // On PostgreSQL (PLANDESK_TEST_DB=postgres) both paths are the portable one; the comparison still holds.
    const main = resolveDatabaseUrl();
    const url = main.file ? `file:${main.file.replace(/\.db$/, "-portable.db")}` : freshTestDatabaseUrl();
    if (main.file) for (const s of ["", "-wal", "-shm"]) fs.rmSync(url.slice(5) + s, { force: true });
    else await recreatePgTestDatabase(url);
    await deploy(url);
    const other = createPrisma(url);
    try {
      await other.agent.create({ data: (await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } })) as never });
      await other.holiday.createMany({ data: await prisma.holiday.findMany() });
      const again = await seedScaleDesk({ now: TEST_NOW, factor: FACTOR, portable: true, db: other, url });
      expect(again.skipped).toBe(false);
      expect(await read(other)).toBe(await read(prisma));
    } finally {
      await other.$disconnect();
      if (main.file) for (const s of ["", "-wal", "-shm"]) fs.rmSync(url.slice(5) + s, { force: true });
      else await dropPgTestDatabase(url);
    }
  }, 120_000);
});

/** Every warning of the run's current version that needs an acknowledgement, acknowledged. */
function ackAll(run: Awaited<ReturnType<typeof loadRun>>) {
  const pv = run.planVersions.find((p) => p.version === run.planVersion)!;
  const issues = ((pv.validation as { issues?: { code: string; stepId?: string; needsAcknowledgement?: boolean }[] }).issues ?? []).filter((i) => i.needsAcknowledgement && i.stepId);
  return issues.map((i) => ({ code: i.code, stepId: i.stepId! }));
}
