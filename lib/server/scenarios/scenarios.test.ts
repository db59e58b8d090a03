/**
 * Named scenarios and the demo reset against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): every scenario of the catalog makes the state its description
 * promises, through the real services; a reset brings back the seeded desk, keeps the demo
 * people's sessions, drops what others made, and leaves the audit log append-only.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { listScenarios, makeScenario } from "./scenarios";
import { childrenFirst, resetDemoDesk, snapshotSeededDesk } from "./reset-demo";
import { snapshotToken } from "./demo-snapshot";
import { submitEdit } from "../edits/submit-edit";
import { loadViewer } from "../auth/viewer";

beforeAll(async () => {
  await prepareTestDatabase(TEST_NOW);
});

const run = (id: string) => prisma.run.findUniqueOrThrow({ where: { id }, include: { approvals: true, executions: true } });

describe("named scenarios", () => {
  it("lists every scenario with a description", () => {
    const names = listScenarios().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["reference-case", "cross-account-refund", "stale-edit-race", "four-eyes", "expired-card", "escalated-run", "stopped-stale-task", "partial-stop", "unknown-outcome", "imported-tool-run", "second-desk"]));
    for (const s of listScenarios()) expect(s.description.length).toBeGreaterThan(20);
  });

  it("an unknown scenario is a typed 404", async () => {
    expect((await refused(makeScenario("no-such-thing", TEST_NOW))).code).toBe("not_found");
    expect((await refused(makeScenario("constructor", TEST_NOW))).code).toBe("not_found");
  });

  it("reference-case: a fresh run on a fresh copy of ticket #74991, waiting for review", async () => {
    const made = await makeScenario("reference-case", TEST_NOW);
    const r = await run(made.runIds[0]);
    expect(r).toMatchObject({ status: "pending_review", taskId: made.taskIds[0], planVersion: 1 });
    expect(made.ticketIds[0]).toMatch(/^74991-/);
    expect(made.taskIds[0]).not.toBe("task_74991");
  });

  it("cross-account-refund and stale-edit-race: version 2 by Sam Senior; an edit from version 1 is refused as stale", async () => {
    const made = await makeScenario("cross-account-refund", TEST_NOW);
    expect((await run(made.runIds[0])).planVersion).toBe(2);
    const race = await makeScenario("stale-edit-race", TEST_NOW);
    const operator = (await loadViewer("usr_operator"))!;
    const stale = await refused(submitEdit(operator, race.runIds[0], { baseVersion: Number(race.refs.staleBaseVersion), steps: [] as never }, TEST_NOW));
    expect(stale.code).toBe("stale_plan_version");
  });

  it("four-eyes: one of two approvals given", async () => {
    const made = await makeScenario("four-eyes", TEST_NOW);
    const r = await run(made.runIds[0]);
    expect(r.status).toBe("pending_review");
    expect(r.approvals.filter((a) => a.state === "active")).toHaveLength(1);
  });

  it("expired-card and escalated-run: the deadline sweep moved them", async () => {
    const expired = await run((await makeScenario("expired-card", TEST_NOW)).runIds[0]);
    expect(expired.status).toBe("expired");
    const escalated = await run((await makeScenario("escalated-run", TEST_NOW)).runIds[0]);
    expect(escalated.status).toBe("pending_review");
    expect(escalated.escalatedAt).not.toBeNull();
  });

  it("needs-decision: approved, the balance dropped, the claim refused; made twice, each run needs its own decision", async () => {
    for (let i = 0; i < 2; i++) {
      const made = await makeScenario("needs-decision", TEST_NOW);
      const r = await run(made.runIds[0]);
      expect(r.status).toBe("needs_decision");
      expect((r.decisionReason as { message?: string } | null)?.message).toBe(`Needs a new decision: ${made.refs.invoiceId} has $100.00 open; the approved refund was $600.00.`);
    }
  });

  it("needs-decision-recovered: the same refusal, then the balance covers the refund again, so approving again succeeds", async () => {
    const made = await makeScenario("needs-decision-recovered", TEST_NOW);
    const r = await run(made.runIds[0]);
    expect(r.status).toBe("needs_decision");
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: made.refs.invoiceId as string } } })).openMinor).toBe(64950);
  });

  it("stopped-stale-task, partial-stop and unknown-outcome", async () => {
    const stopped = await run((await makeScenario("stopped-stale-task", TEST_NOW)).runIds[0]);
    expect(stopped.status).toBe("stopped");
    expect(stopped.executions).toHaveLength(0);
    const partial = await makeScenario("partial-stop", TEST_NOW);
    const p = await run(partial.runIds[0]);
    expect(p.status).toBe("stopped");
    expect(p.executions.map((e) => [e.stepId, e.status])).toEqual([[partial.refs.executedStepId, "succeeded"]]);
    const unknown = await run((await makeScenario("unknown-outcome", TEST_NOW)).runIds[0]);
    expect(unknown.executions.map((e) => e.status)).toEqual(["unknown"]);
  });

  it("imported-tool-run: a run of an imported tool waiting for review", async () => {
    const made = await makeScenario("imported-tool-run", TEST_NOW);
    const r = await prisma.run.findUniqueOrThrow({ where: { id: made.runIds[0] }, include: { planVersions: true } });
    expect(r.status).toBe("pending_review");
    expect(JSON.stringify(r.planVersions[0].steps)).toContain("print_label");
  });
});

/** The audit log's append-only triggers that are in force: names on SQLite, enabled user triggers on PostgreSQL. */
async function appendOnlyTriggers(): Promise<string[]> {
  if (process.env.PLANDESK_TEST_DB === "postgres") {
    const rows = await prisma.$queryRawUnsafe<{ tgname: string }[]>("SELECT tgname FROM pg_trigger WHERE tgrelid = 'audit_event'::regclass AND NOT tgisinternal AND tgenabled <> 'D'");
    return rows.map((r) => r.tgname);
  }
  const rows = await prisma.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_event'");
  return rows.map((r) => r.name);
}

describe("second desk", () => {
  it("second-desk: a retail run that a freight operator's scope does not reach", async () => {
    const made = await makeScenario("second-desk", TEST_NOW);
    const r = await run(made.runIds[0]);
    expect(r).toMatchObject({ status: "pending_review", desk: "retail", agentId: "agent_retail" });
    expect(await prisma.run.count({ where: { id: r.id, desk: "freight" } })).toBe(0);
  });
});

describe("reset", () => {
  it("orders tables children first", () => {
    const order = childrenFirst([
      { name: "run", parents: ["task"] },
      { name: "task", parents: ["ticket"] },
      { name: "ticket", parents: [] },
      { name: "approval", parents: ["run", "approval"] },
    ]).map((t) => t.name);
    expect(order.indexOf("approval")).toBeLessThan(order.indexOf("run"));
    expect(order.indexOf("run")).toBeLessThan(order.indexOf("task"));
    expect(order.indexOf("task")).toBeLessThan(order.indexOf("ticket"));
  });

  it("brings back the seeded desk, keeps the demo people's sessions, drops what others made, and the audit log stays append-only", async () => {
    const seededRuns = await prisma.run.count({ where: { idempotencyKey: { startsWith: "seed:" } } });
    const triggersBefore = (await appendOnlyTriggers()).sort();
    await makeScenario("reference-case", TEST_NOW);
    await prisma.user.create({ data: { id: "usr_temp", email: "temp@example.test", name: "Temp", role: "operator", emailVerified: true } });
    await prisma.session.create({ data: { id: "ses_demo", token: "tok_demo_session", userId: "usr_senior", expiresAt: new Date(TEST_NOW.getTime() + 86_400_000) } });
    await prisma.user.update({ where: { id: "usr_senior" }, data: { name: "Renamed" } });

    const { ms } = await resetDemoDesk(TEST_NOW);
    expect(ms).toBeGreaterThan(0);
    expect(await prisma.run.count()).toBe(seededRuns);
    expect(await prisma.user.findUnique({ where: { id: "usr_temp" } })).toBeNull();
    expect(await prisma.session.findUnique({ where: { id: "ses_demo" } })).not.toBeNull();
    expect((await prisma.user.findUniqueOrThrow({ where: { id: "usr_senior" } })).name).toBe("Sam Senior");
    expect(await prisma.grant.count({ where: { userId: "usr_senior" } })).toBeGreaterThan(0);
    // the audit log is append-only again: its triggers are back (SQLite) or enabled (PostgreSQL)
    const triggers = await appendOnlyTriggers();
    expect(triggers.sort()).toEqual(triggersBefore);
    expect(triggers.length).toBeGreaterThanOrEqual(2);
    // a second reset finds the same desk
    await resetDemoDesk(TEST_NOW);
    expect(await prisma.run.count()).toBe(seededRuns);
  }, 120_000); // a seed through the public doors

  it("a later reset the same day puts back the seeded desk from the snapshot: what a seed at that moment gives, its times moved by the time that passed", async () => {
    const later = new Date(TEST_NOW.getTime() + 42 * 60_000 + 317);
    const desk = async (now: Date) => {
      const off = (d: Date | null) => (d ? d.getTime() - now.getTime() : null);
      const runs = await prisma.run.findMany({ select: { idempotencyKey: true, status: true, createdAt: true, expiresAt: true, escalateAt: true, planVersion: true }, orderBy: { idempotencyKey: "asc" } });
      const tasks = await prisma.task.findMany({ select: { desk: true, ticketId: true, revision: true, createdAt: true }, orderBy: [{ desk: "asc" }, { ticketId: "asc" }] });
      const approvals = await prisma.approval.findMany({ select: { expiresAt: true, run: { select: { idempotencyKey: true } } } });
      return {
        runs: runs.map((r) => ({ ...r, createdAt: off(r.createdAt), expiresAt: off(r.expiresAt), escalateAt: off(r.escalateAt) })),
        tasks: tasks.map((t) => ({ ...t, createdAt: off(t.createdAt) })),
        approvals: approvals.map((a) => `${a.run.idempotencyKey} ${off(a.expiresAt)}`).sort(),
        records: [await prisma.invoice.count(), await prisma.shipment.count(), await prisma.holiday.count(), await prisma.customerAccount.count(), await prisma.grant.count(), await prisma.deskIntent.count()],
        syncedAt: (await prisma.invoice.findMany({ select: { syncedAt: true } })).map((i) => off(i.syncedAt)),
      };
    };
    // what a seed at `later` gives
    expect((await resetDemoDesk(later, { fromSeed: true })).restored).toBe(false);
    const seededLater = await desk(later);
    // a seed in the morning (it takes the snapshot), then work on the desk, then a reset at `later`
    expect((await resetDemoDesk(TEST_NOW, { fromSeed: true })).restored).toBe(false);
    await makeScenario("partial-stop", TEST_NOW);
    await makeScenario("cross-account-refund", TEST_NOW);
    const seqBefore = (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
    const reset = await resetDemoDesk(later);
    expect(reset.restored).toBe(true);
    expect(await desk(later)).toEqual(seededLater);
    expect(reset.seeded.runs).toBe(seededLater.runs.length);
    // a live feed reading the audit log after the last event it saw still sees the restored events
    const restoredSeqs = await prisma.auditEvent.findMany({ select: { seq: true } });
    expect(restoredSeqs.length).toBeGreaterThan(0);
    expect(Math.min(...restoredSeqs.map((e) => e.seq))).toBeGreaterThan(seqBefore);
    // the restored desk works like a seeded one: a scenario runs on it
    await makeScenario("partial-stop", later);
    // another day is seeded afresh (dates inside plans and contracts are the day's)
    expect((await resetDemoDesk(new Date(TEST_NOW.getTime() + 24 * 3_600_000))).restored).toBe(false);
  }, 120_000); // four seeds through the public doors

  it("the desk npm start seeds into an empty database serves the first reset of a server built from the same sources, and only of such a server", async () => {
    const later = new Date(TEST_NOW.getTime() + 5 * 60_000);
    await resetDemoDesk(TEST_NOW, { fromSeed: true });
    // seeded by another build: this process seeds again, and then restores its own snapshot
    await snapshotSeededDesk(TEST_NOW, "f".repeat(64));
    await makeScenario("partial-stop", TEST_NOW);
    expect((await resetDemoDesk(later)).restored).toBe(false);
    // seeded from the sources this process runs: the next reset restores it
    await resetDemoDesk(TEST_NOW, { fromSeed: true });
    const seededRuns = await prisma.run.count();
    await snapshotSeededDesk(TEST_NOW, snapshotToken());
    await makeScenario("partial-stop", TEST_NOW);
    expect(await prisma.run.count()).toBeGreaterThan(seededRuns);
    const reset = await resetDemoDesk(later);
    expect(reset.restored).toBe(true);
    expect(await prisma.run.count()).toBe(seededRuns);
  }, 120_000); // three seeds through the public doors
});
