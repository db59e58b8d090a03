/**
 * The live feed: a change is published only after its transaction commits (nothing
 * for a rollback), on SQLite (poller) and PostgreSQL (NOTIFY at commit); a viewer's stream carries
 * only their desk's events; presence is broadcast, listed, and over 30 s after the last heartbeat;
 * a refused stale edit names who saved the newer version and when.
 */
import { nanoid } from "nanoid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { LiveEvent } from "../../live/live-event";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";
import { prepareTestDatabase, refused } from "../../../testing/test-support";
import { liveTransportRunning, subscribeLive } from "../feed/live-feed";
import { liveStream, visibleTo } from "./live-stream";
import { listPresence, recordPresence } from "./presence";
import { endStreams, resetDrainState } from "../../net/drain.mjs";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
let operator: Viewer;
let senior: Viewer;
let supervisor: Viewer;
const got: LiveEvent[] = [];
let unsubscribe = () => {};

async function freshRun(key: string) {
  const s = buildDemoDesk(new Date()).runs.find((x) => x.key === key)!;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${s.ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: s.steps }, `live:${nanoid()}`)).run;
}

/** Waits until `pred` holds for an event received (at most `ms`). */
async function waitFor(pred: (e: LiveEvent) => boolean, ms = 4_000): Promise<LiveEvent | undefined> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const e = got.find(pred);
    if (e) return e;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  operator = (await loadViewer("usr_operator"))!;
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  unsubscribe = subscribeLive((e) => got.push(e));
  await new Promise((r) => setTimeout(r, 1_500)); // the transport is listening
});

afterAll(() => unsubscribe());

describe("the change feed", () => {
  it("publishes a committed change with the run's desk, and nothing for a transaction that rolled back", async () => {
    expect(liveTransportRunning()).toBe(true);
    const run = await freshRun("resched-75002");
    await expect(
      inTransaction(async (tx) => {
        await appendAudit(tx, { runId: run.id, type: "rejected", actor: { kind: "user", id: supervisor.id }, data: { planVersion: 1, reason: "rolled back", approvalsInvalidated: 0 } });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await inTransaction(async (tx) => {
      await appendAudit(tx, { runId: run.id, type: "task_revised", actor: { kind: "system" }, data: { taskId: "t", boundRevision: 1, liveRevision: 1, comment: null, bodyChanged: false } });
      return ok(null);
    });
    const e = await waitFor((x) => x.kind === "change" && x.runId === run.id && x.type === "task_revised");
    expect(e).toMatchObject({ kind: "change", runId: run.id, desk: "freight" });
    expect(await waitFor((x) => x.kind === "change" && x.runId === run.id && x.type === "submitted")).toBeDefined();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(got.filter((x) => x.kind === "change" && x.runId === run.id && x.type === "rejected")).toEqual([]);
  });

  it("an operator sees only their desk's events; a supervisor every desk", () => {
    const other: LiveEvent = { kind: "change", type: "submitted", runId: "r1", desk: "parcels", at: new Date().toISOString() };
    const mine: LiveEvent = { ...other, desk: "freight" };
    expect(visibleTo(operator, other)).toBe(false);
    expect(visibleTo(operator, mine)).toBe(true);
    expect(visibleTo(supervisor, other)).toBe(true);
  });

  it("a viewer's stream starts with hello {you, presence} and carries their desk's changes; it ends on abort", async () => {
    const abort = new AbortController();
    const reader = (await liveStream(operator, abort.signal)).getReader();
    const dec = new TextDecoder();
    let text = "";
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
    const readUntil = async (needle: string) => {
      const end = Date.now() + 4_000;
      while (!text.includes(needle) && Date.now() < end) {
        pending ??= reader.read();
        const r = await Promise.race([pending, new Promise<null>((res) => setTimeout(() => res(null), 200))]);
        if (!r) continue;
        pending = null;
        if (r.done) break;
        text += dec.decode(r.value);
      }
      return text.includes(needle);
    };
    expect(await readUntil("event: hello")).toBe(true);
    expect(text).toContain(`"you":"${operator.id}"`);
    const run = await freshRun("note-75004");
    expect(await readUntil(`"runId":"${run.id}"`)).toBe(true);
    abort.abort();
    // what was queued before the abort is still read, then the stream ends
    let end = await (pending ?? reader.read());
    for (let n = 0; !end.done && n < 100; n++) end = await reader.read();
    expect(end.done).toBe(true);
  });

  it("ends with closed {reason: session} once the session no longer gives the same person and desk", async () => {
    let current: typeof operator | null = operator;
    const reader = (await liveStream(operator, new AbortController().signal, { heartbeatMs: 50, recheck: async () => current })).getReader();
    const dec = new TextDecoder();
    let text = "";
    while (!text.includes("event: hello")) text += dec.decode((await reader.read()).value);
    current = { ...operator, desk: "parcels" }; // moved to another desk (or signed out: null)
    let end = await reader.read();
    for (let n = 0; !end.done && n < 200; n++) {
      text += dec.decode(end.value);
      end = await reader.read();
    }
    expect(end.done).toBe(true);
    expect(text).toContain('event: closed\ndata: {"reason":"session"}');
  });

  it("ends with a reconnect hint (retry: 1000) when the server drains, and leaves the feed", async () => {
    const reader = (await liveStream(operator, new AbortController().signal, { heartbeatMs: 3_600_000 })).getReader();
    const dec = new TextDecoder();
    let text = "";
    while (!text.includes("event: hello")) text += dec.decode((await reader.read()).value);
    try {
      expect(endStreams()).toBeGreaterThanOrEqual(1);
      let end = await reader.read();
      for (let n = 0; !end.done && n < 20; n++) {
        text += dec.decode(end.value);
        end = await reader.read();
      }
      expect(end.done).toBe(true);
      expect(text.endsWith("retry: 1000\n\n")).toBe(true);
      expect(text).not.toContain("event: closed"); // the browser's EventSource reconnects by itself
    } finally {
      resetDrainState();
    }
  });
});

describe("presence", () => {
  it("is broadcast with the person's name and mode, listed while fresh, and over 30 s after the last heartbeat", async () => {
    const run = await freshRun("resched-75002");
    const t0 = new Date();
    const now = await recordPresence(supervisor, run.id, "viewing", t0);
    expect(now).toEqual([expect.objectContaining({ userId: supervisor.id, name: "Sofia Supervisor", mode: "viewing" })]);
    await recordPresence(senior, run.id, "editing", t0);
    expect(await waitFor((e) => e.kind === "presence" && e.runId === run.id && e.userId === senior.id && e.mode === "editing")).toMatchObject({ name: "Sam Senior" });
    expect((await listPresence({ runId: run.id }, new Date(t0.getTime() + 29_000))).map((p) => p.name).sort()).toEqual(["Sam Senior", "Sofia Supervisor"]);
    expect(await listPresence({ runId: run.id }, new Date(t0.getTime() + 31_000))).toEqual([]);
    await recordPresence(senior, run.id, "left", new Date(t0.getTime() + 1_000));
    expect((await listPresence({ runId: run.id }, new Date(t0.getTime() + 2_000))).map((p) => p.name)).toEqual(["Sofia Supervisor"]);
    expect(await waitFor((e) => e.kind === "presence" && e.runId === run.id && e.userId === senior.id && e.mode === "left")).toBeDefined();
  });

  it("is refused (404) for a run the viewer cannot see", async () => {
    const e = await refused(recordPresence(operator, "run_does_not_exist", "viewing"));
    expect(e.code).toBe("not_found");
  });
});

describe("the conflict names who saved first", () => {
  it("a stale edit's refusal carries savedBy {id, name} and savedAt of the newer version", async () => {
    const run = await freshRun("note-75004");
    const steps = (note: string) => run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.tool === "add_ticket_note" ? { ...s.args, note } : s.args }));
    await submitEdit(senior, run.id, { baseVersion: 1, steps: steps("Sam's note.") });
    const e = await refused(submitEdit(operator, run.id, { baseVersion: 1, steps: steps("Olivia's note.") }));
    expect(e.code).toBe("stale_plan_version");
    expect(e.details).toMatchObject({ currentVersion: 2, savedBy: { id: senior.id, name: "Sam Senior" } });
    const v2 = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: run.id, version: 2 } } });
    expect(e.details.savedAt).toBe(v2.createdAt.toISOString());
  });
});

describe("streams end with the session", () => {
  it("disabling a person closes their open stream at once (through the feed, not the 15 s heartbeat), on any instance", async () => {
    const { updateUser, createUser } = await import("../admin/admin");
    const admin = (await loadViewer("usr_admin"))!;
    const created = await createUser(admin, { email: `streamer-${nanoid(6)}@example.com`, name: "Stream Viewer", role: "operator", password: "stream-password-1" });
    const viewer = (await loadViewer(created.id))!;
    // the real recheck: the person as the database has them now (null once disabled)
    const reader = (await liveStream(viewer, new AbortController().signal, { heartbeatMs: 3_600_000, recheck: () => loadViewer(viewer.id) })).getReader();
    const dec = new TextDecoder();
    let text = "";
    while (!text.includes("event: hello")) text += dec.decode((await reader.read()).value);
    await updateUser(admin, viewer.id, { disabled: true });
    // the heartbeat is an hour away: only the session-end signal can close the stream
    let end = await reader.read();
    for (let n = 0; !end.done && n < 200; n++) {
      text += dec.decode(end.value);
      end = await reader.read();
    }
    expect(end.done).toBe(true);
    expect(text).toContain('event: closed\ndata: {"reason":"session"}');
  });
});

describe("signing out", () => {
  it("records the end of the session, which every instance's feed reads", async () => {
    const { auth } = await import("../auth/auth");
    const { signInCookie } = await import("../../../testing/test-auth");
    const cookie = await signInCookie("operator@plandesk.test");
    const before = (await prisma.sessionEnd.findFirst({ orderBy: { seq: "desc" } }))?.seq ?? 0;
    await auth.api.signOut({ headers: new Headers({ cookie }) });
    const ends = await prisma.sessionEnd.findMany({ where: { seq: { gt: before } } });
    expect(ends.map((e) => e.userId)).toContain("usr_operator");
  });
});
