/**
 * Plandesk behind PgBouncer in transaction mode (docs/operations.md "Behind a transaction pooler"), on the
 * PostgreSQL pass only (`*.pg.test.ts`; vitest.config.mts): one PgBouncer for this file
 * (testing/through-pgbouncer.ts, imported first), this file's process and both app instances
 * reaching the database through it with PLANDESK_DATABASE_POOLER=transaction. The database is made
 * by `prepareTestDatabase` directly on the server and then given a default isolation that is
 * neither of Plandesk's (REPEATABLE READ), so a transaction that did not name its level would
 * show it.
 *
 * - The races of two instances (testing/instance-races.ts) keep one winner each through the pooler,
 *   four eyes holds when two people approve a large refund on two instances at once, and two
 *   instances claiming refunds of two runs on one invoice never authorise more than its balance.
 * - Each kind of transaction runs at its own level whatever server session the pooler lends it.
 * - The live feed delivers a decision made on another instance through the listen URL (a direct
 *   LISTEN) and, without one, through the poller — which also delivers an event whose transaction
 *   commits after a later-numbered event's.
 * - Readiness answers through the pooler.
 */
import { directUrl, pooler, skipReason } from "../../../testing/through-pgbouncer";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "../../live/live-event";
import { ERROR_STATUS, type ErrorCode } from "../../errors/domain-error";
import { gateRule, type GateRuleInput } from "../../gate-policy/rules";
import { describeInstanceRaces, gatedPlan, raceInstances, submit } from "../../../testing/instance-races";
import { approveAllAs, concurrentAcks, editable, prepareTestDatabase, TEST_NOW, withoutSignatureRules, withRequiredReasons } from "../../../testing/test-support";
import { digest } from "../../plan/digest";
import { loadViewer } from "../auth/viewer";
import { submitEdit } from "../edits/submit-edit";
import { loadGatePolicy } from "../gate-policy/load-gate-policy";
import { saveGatePolicy } from "../gate-policy/save-gate-policy";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { pgTestDatabaseName, testPgServerUrl } from "../../../testing/test-databases";
import { liveTransportKind, liveTransportRunning, subscribeLive } from "../feed/live-feed";
import { buildMigrations, probeReadiness } from "../health/probe-readiness";
import { prisma } from "./db";
import { inTransaction, ok } from "./transaction";
import { appendAudit } from "../audit-log/append-audit";

/** Makes this file's database, then sets its default isolation to REPEATABLE READ (on the server, before the pooler opens a session to it). */
async function prepare(): Promise<void> {
  await prepareTestDatabase();
  const c = new pg.Client({ connectionString: testPgServerUrl() });
  await c.connect();
  try {
    await c.query(`ALTER DATABASE "${pgTestDatabaseName(directUrl)}" SET default_transaction_isolation = 'repeatable read'`);
  } finally {
    await c.end();
  }
}

/** Subscribes to the live feed until `pred` matches an event (≤ 10 s); returns it, or undefined. */
async function nextEvent(act: () => Promise<unknown>, pred: (e: LiveEvent) => boolean): Promise<LiveEvent | undefined> {
  let found: LiveEvent | undefined;
  const stop = subscribeLive((e) => {
    if (!found && pred(e)) found = e;
  });
  try {
    if (liveTransportKind() === "listen") {
      // The decision must come after the LISTEN: wait for the listening session on the server.
      await vi.waitFor(async () => {
        const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN plandesk_live'`);
        expect(rows[0].n).toBeGreaterThan(0);
      }, { timeout: 10_000, interval: 50 });
    }
    await act();
    await vi.waitFor(() => expect(found).toBeDefined(), { timeout: 10_000, interval: 50 });
    return found;
  } finally {
    stop();
  }
}

describe.skipIf(skipReason)("through PgBouncer in transaction mode", () => {
  describeInstanceRaces("two instances through one PgBouncer", prepare);

  it("runs on PgBouncer, and each transaction at its own level whatever the session's default", async () => {
    expect(pooler!.version).toMatch(/PgBouncer/);
    expect(process.env.DATABASE_URL).toContain(`:${pooler!.port}/`);
    const level = (isolation: "row-locks" | "serializable") =>
      inTransaction(async (tx) => ok((await tx.$queryRawUnsafe<{ transaction_isolation: string }[]>("SHOW transaction_isolation"))[0].transaction_isolation), prisma, { isolation });
    for (let i = 0; i < 4; i++) {
      expect(await level("row-locks")).toBe("read committed");
      expect(await level("serializable")).toBe("serializable");
    }
    // Outside a transaction the server's default holds: nothing set a session level.
    expect((await prisma.$queryRawUnsafe<{ transaction_isolation: string }[]>("SHOW transaction_isolation"))[0].transaction_isolation).toBe("repeatable read");
  });

  it("the live feed delivers another instance's approval through the listen URL, and by polling without it", async () => {
    process.env.PLANDESK_DATABASE_LISTEN_URL = directUrl;
    try {
      expect(liveTransportKind()).toBe("listen");
      const run = await submit("75011", gatedPlan("75011"));
      const approve = () => raceInstances()[0].send({ op: "approve", runId: run.id, planVersion: 1, as: "usr_senior", count: 1, keyPrefix: "feed-listen", startAt: Date.now(), now: TEST_NOW.toISOString() });
      const e = await nextEvent(approve, (x) => x.kind === "change" && x.runId === run.id && x.type === "approved");
      expect(e).toMatchObject({ kind: "change", runId: run.id, type: "approved" });
    } finally {
      delete process.env.PLANDESK_DATABASE_LISTEN_URL;
    }
    expect(liveTransportRunning()).toBe(false);
    expect(liveTransportKind()).toBe("poll");
    const run = await submit("75012", gatedPlan("75012"));
    const approve = () => raceInstances()[1].send({ op: "approve", runId: run.id, planVersion: 1, as: "usr_senior", count: 1, keyPrefix: "feed-poll", startAt: Date.now() + 200, now: TEST_NOW.toISOString() });
    const e = await nextEvent(approve, (x) => x.kind === "change" && x.runId === run.id && x.type === "approved");
    expect(e).toMatchObject({ kind: "change", runId: run.id, type: "approved" });
  }, 60_000);

  it("the poller delivers an event whose transaction commits after a later-numbered event's, once", async () => {
    expect(liveTransportKind()).toBe("poll");
    const seen: string[] = [];
    let submitted = "";
    const stop = subscribeLive((e) => {
      if (e.kind === "change" && e.type === "submitted") submitted = e.runId;
      if (e.kind === "change") seen.push(`${e.runId}:${e.type}`);
    });
    let release = () => {};
    try {
      // The poller follows from its first look: a submission it delivers shows it is following.
      const run = await submit("75014", gatedPlan("75014"));
      await vi.waitFor(() => expect(submitted).toBe(run.id), { timeout: 10_000, interval: 50 });
      const at = TEST_NOW.toISOString();
      const event = (type: "escalated" | "expired") => ({ runId: run.id, type, actor: { kind: "system" as const }, data: { at, escalateAt: at, expiresAt: at, to: "supervisors" } }) as never;
      const held = new Promise<void>((r) => (release = r));
      let inserted = () => {};
      const insertedFirst = new Promise<void>((r) => (inserted = r));
      const slow = inTransaction(async (tx) => {
        await appendAudit(tx, event("escalated")); // numbered first, committed last
        inserted();
        await held;
        return ok(null);
      });
      await insertedFirst;
      await inTransaction(async (tx) => ok(await appendAudit(tx, event("expired"))));
      await vi.waitFor(() => expect(seen).toContain(`${run.id}:expired`), { timeout: 10_000, interval: 50 });
      expect(seen).not.toContain(`${run.id}:escalated`);
      release();
      await slow;
      await vi.waitFor(() => expect(seen).toContain(`${run.id}:escalated`), { timeout: 10_000, interval: 50 });
      // Later polls (one has delivered the next submission) do not deliver it again.
      const next = await submit("75015", gatedPlan("75015"));
      await vi.waitFor(() => expect(submitted).toBe(next.id), { timeout: 10_000, interval: 50 });
      expect(seen.filter((x) => x === `${run.id}:expired` || x === `${run.id}:escalated`)).toEqual([`${run.id}:expired`, `${run.id}:escalated`]);
    } finally {
      release();
      stop();
    }
  }, 60_000);

  it("four eyes: two people approving a $1,100 refund on two instances at once, each twice, give exactly two approvals, one each", async () => {
    const live = await loadGatePolicy(prisma);
    const rules: GateRuleInput[] = [...live.rules.map(({ id: _i, position: _p, ...r }) => r), gateRule({ tool: "issue_refund", minAmountMinor: 100000, decision: "two", dateHorizonDays: 45, note: "Refunds of $1,000 and more need two approvers" })];
    await saveGatePolicy({ id: "usr_admin", role: "admin" }, { baseVersion: live.version, rules, note: "Four eyes on large refunds" });
    const run = await submit("75003", [{ id: "st_reply", tool: "send_reply", args: { ticketId: "75003", body: "Thanks, we are looking into it and will write again today." } }]);
    const senior = (await loadViewer("usr_senior"))!;
    const steps = editable(toRunView(await loadRun(run.id), TEST_NOW).steps as never);
    steps.push({ id: "new", tool: "issue_refund", args: { invoiceId: "in_74201", amount: { minor: 110000, currency: "USD" }, reason: "Goodwill for the delay" }, provenance: {}, author: { kind: "model" } } as never);
    const edit = await submitEdit(senior, run.id, { baseVersion: run.planVersion, steps }, TEST_NOW);
    const refundId = edit.planVersion.steps.find((x) => x.tool === "issue_refund")!.id;
    const acks = (await concurrentAcks(run.id)).acknowledgedConcurrentRuns ?? []; // the claims race left a run of this task executing
    const startAt = Date.now() + 600;
    const cmd = { op: "approve", runId: run.id, planVersion: edit.planVersion.version, count: 2, stepIds: "all", acks, now: TEST_NOW.toISOString(), startAt };
    const [a, b] = await Promise.all([raceInstances()[0].send({ ...cmd, as: "usr_senior", keyPrefix: "4e-senior" }), raceInstances()[1].send({ ...cmd, as: "usr_supervisor", keyPrefix: "4e-super" })]);
    for (const r of [...a, ...b]) if (!r.ok) expect(ERROR_STATUS[r.code as ErrorCode], r.code).toBe(409);
    const rows = await prisma.approval.findMany({ where: { runId: run.id, stepId: refundId, planVersion: edit.planVersion.version, state: "active" } });
    expect(rows.map((r) => r.approverId).sort()).toEqual(["usr_senior", "usr_supervisor"]);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("approved");
  }, 60_000);

  it("money in flight: claims of two runs' $2,045 refunds on one $3,890 invoice, on two instances at once, authorise one", async () => {
    await withoutSignatureRules(); // money in flight, not signatures: refunds above $1,500.00 approved without a passkey
    const refund = withRequiredReasons([{ id: "r1", tool: "issue_refund", args: { invoiceId: "in_74102", amount: { minor: 204500, currency: "USD" }, reason: "Goodwill" } }]);
    const runs = [await submit("75006", refund), await submit("75019", refund)];
    for (const r of runs) await approveAllAs(r.id, "usr_supervisor"); // both approved before either approval saw the other
    const startAt = Date.now() + 600;
    const later = new Date(TEST_NOW.getTime() + 60_000);
    const results = (
      await Promise.all(
        runs.map(async (r, i) => {
          const step = (await toRunView(await loadRun(r.id), later)).steps.find((x) => x.id === "r1")!;
          return raceInstances()[i].send({ op: "claim", runId: r.id, stepId: "r1", digest: digest(step as never), taskRevision: r.boundTaskRevision, count: 2, startAt, now: later.toISOString() });
        }),
      )
    ).flat();
    const won = results.filter((r) => r.ok);
    expect(won, JSON.stringify(results)).toHaveLength(1);
    for (const r of results) if (!r.ok) expect(["validation_failed", "already_claimed"]).toContain(r.code);
    const claimed = await prisma.approval.aggregate({ where: { targetId: "in_74102", state: "claimed" }, _sum: { amountMinor: true } });
    expect(claimed._sum.amountMinor).toBe(204500);
  }, 60_000);

  it("readiness answers through the pooler: the database reachable, no migration pending", async () => {
    const facts = await probeReadiness(prisma, { timeoutMs: 5_000, carried: buildMigrations("postgresql"), draining: false });
    expect(facts).toEqual({ database: "ok", pendingMigrations: [], draining: false });
  });
});
