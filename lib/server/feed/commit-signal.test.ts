/**
 * A decision made on this instance reaches its live streams at once, not at the poller's next
 * tick: with the poll period set to ten minutes, every change committed here still arrives (on
 * SQLite through the commit signal, lib/server/db/commit-signal.ts; on PostgreSQL through NOTIFY).
 * A transaction that rolled back signals nothing.
 */
import { nanoid } from "nanoid";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { LiveEvent } from "../../live/live-event";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitRun } from "../runs/submit-run";
import type { AgentCaller } from "../auth/viewer";
import { prepareTestDatabase } from "../../../testing/test-support";
import { livePollMs, POLL_MS, subscribeLive } from "./live-feed";
import { markLiveWrite, onLiveCommit, signalCommitOf } from "../db/commit-signal";
import { appendAudit } from "../audit-log/append-audit";
import { inTransaction, refuse } from "../db/transaction";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const got: LiveEvent[] = [];
let unsubscribe = () => {};

async function freshRun() {
  const s = buildDemoDesk(new Date()).runs.find((x) => x.key === "note-75004")!;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${s.ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: s.steps }, `signal:${nanoid()}`)).run;
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  vi.stubEnv("PLANDESK_LIVE_POLL_MS", "600000");
  unsubscribe = subscribeLive((e) => got.push(e));
});
afterAll(() => {
  unsubscribe();
  vi.unstubAllEnvs();
});

describe("a change committed on this instance", () => {
  it("reaches the live feed at once, though the poller would read again only in ten minutes", async () => {
    // the first read of the poller sets where it starts: a run submitted before it may not be sent
    await vi.waitFor(async () => {
      const run = await freshRun();
      await vi.waitFor(() => expect(got.some((e) => e.kind === "change" && e.runId === run.id)).toBe(true), { timeout: 3_000, interval: 20 });
    }, { timeout: 20_000, interval: 0 });
    for (let i = 0; i < 3; i++) {
      const run = await freshRun();
      await vi.waitFor(() => expect(got.some((e) => e.kind === "change" && e.runId === run.id)).toBe(true), { timeout: 5_000, interval: 20 });
    }
  });

  it("a transaction that rolled back signals nothing; one that committed a live event signals once", async () => {
    let signals = 0;
    const off = onLiveCommit(() => signals++);
    try {
      const run = await freshRun();
      const before = signals;
      await expect(
        inTransaction(async (tx) => {
          await appendAudit(tx, { type: "escalated", runId: run.id, actor: { kind: "system" }, data: { at: "", escalateAt: "", expiresAt: "", to: "senior" } });
          throw new Error("rolled back on purpose");
        }),
      ).rejects.toThrow(/rolled back on purpose/);
      expect(signals).toBe(before);
      // a refusal commits what was written before it (its audit event): that is signalled
      await expect(
        inTransaction(async (tx) => {
          await appendAudit(tx, { type: "escalated", runId: run.id, actor: { kind: "system" }, data: { at: "", escalateAt: "", expiresAt: "", to: "senior" } });
          return refuse("expired", "refused after writing");
        }),
      ).rejects.toThrow(/refused after writing/);
      expect(signals).toBe(before + 1);
      const tx = {};
      markLiveWrite(tx);
      signalCommitOf(tx);
      signalCommitOf(tx);
      expect(signals).toBe(before + 2);
    } finally {
      off();
    }
  });
});

describe("the poll period", () => {
  it("is PLANDESK_LIVE_POLL_MS within 100 ms–10 min, else a second", () => {
    expect(livePollMs({})).toBe(POLL_MS);
    expect(livePollMs({ PLANDESK_LIVE_POLL_MS: "250" })).toBe(250);
    for (const bad of ["50", "abc", "1.5", "600001", " "]) expect(livePollMs({ PLANDESK_LIVE_POLL_MS: bad })).toBe(POLL_MS);
  });
});
