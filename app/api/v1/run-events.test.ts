/**
 * `GET /api/v1/runs/{runId}/events`: an agent waits for the decision on a stream instead of
 * polling. The first event is the run as it is; a person's decision reaches the open stream as
 * the next `run` event (through the live fan-out, SQLite's audit poller or PostgreSQL NOTIFY); a
 * run that ends sends `end` with its typed outcome and closes the stream; another agent's run is
 * 404, and without `Accept: text/event-stream` the answer is `{run}`.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { rejectRun } from "@/lib/server/approvals/reject-run";
import { prisma } from "@/lib/server/db/db";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { loadViewer, type Viewer } from "@/lib/server/auth/session";
import { prepareTestDatabase } from "@/testing/test-support";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { runEventStream } from "@/lib/server/runs/run-events";
import { GET as eventsRoute } from "./runs/[runId]/events/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const BASE = "http://localhost:3999";
const OTHER_KEY = "pd_other_agent_key_events";
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });
const get = (runId: string, opts: { key?: string; stream?: boolean; signal?: AbortSignal; lastEventId?: string } = {}) =>
  eventsRoute(
    new Request(`${BASE}/api/v1/runs/${runId}/events`, {
      headers: {
        authorization: `Bearer ${opts.key ?? DEMO_AGENT_KEY}`,
        ...(opts.stream === false ? {} : { accept: "text/event-stream" }),
        ...(opts.lastEventId ? { "last-event-id": opts.lastEventId } : {}),
      },
      signal: opts.signal,
    }),
    params({ runId }),
  );

async function submitReply(ticketId: string): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const steps = [{ id: "s_reply", tool: "send_reply", args: { ticketId, body: "Thanks for getting in touch; we are looking into it." } }];
  const res = await submitRoute(
    new Request(`${BASE}/api/v1/tasks/${task.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "content-type": "application/json", "idempotency-key": nanoid() },
      body: JSON.stringify({ taskRevision: task.revision, steps }),
    }),
    params({ taskId: task.id }),
  );
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.run;
}

/** Reads server-sent events off a stream, one `{event, data}` at a time (comments and `retry` skipped). */
function eventReader(res: Response) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  return async function next(): Promise<{ event: string; data: Json; id?: string } | null> {
    for (;;) {
      const at = buf.indexOf("\n\n");
      if (at >= 0) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const id = /^id: (.*)$/m.exec(block)?.[1];
        if (event && data) return { event, data: JSON.parse(data) as Json, ...(id ? { id } : {}) };
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buf += dec.decode(value, { stream: true });
    }
  };
}

let supervisor: Viewer;
let senior: Viewer;
beforeAll(async () => {
  await prepareTestDatabase();
  supervisor = (await loadViewer("usr_supervisor"))!;
  senior = (await loadViewer("usr_senior"))!;
  await prisma.agent.create({ data: { id: "agent_events", name: "Other agent", allowedTools: ["send_reply"] } });
  await prisma.apiKey.create({ data: { id: "key_events", agentId: "agent_events", hash: hashApiKey(OTHER_KEY), prefix: OTHER_KEY.slice(0, 8) } });
});

describe("GET /api/v1/runs/{runId}/events", () => {
  it("sends the run at once, then the approval when a person gives it", async () => {
    const run = await submitReply("75006");
    const res = await get(run.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const next = eventReader(res);
    const first = await next();
    expect(first).toMatchObject({ event: "run", data: { run: { id: run.id, status: "pending_review", outcome: null } } });

    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid() });
    let seen = await next();
    while (seen && seen.data.run?.status === "pending_review") seen = await next();
    expect(seen).toMatchObject({ event: "run", data: { run: { status: "approved", outcome: null } } });
  }, 60_000);

  it("a rejection ends the stream: the run with its outcome, then end {outcome}, then the stream closes", async () => {
    const run = await submitReply("75010");
    const next = eventReader(await get(run.id));
    expect((await next())?.data.run.status).toBe("pending_review");
    await rejectRun(supervisor, run.id, { planVersion: 1, reason: "Wrong customer." });
    const events: { event: string; data: Json }[] = [];
    for (let e = await next(); e; e = await next()) events.push(e);
    expect(events.at(-1)).toMatchObject({ event: "end", data: { outcome: { code: "rejected", reason: "Wrong customer." } } });
    expect(events.at(-2)).toMatchObject({ event: "run", data: { run: { status: "rejected" } } });
  }, 60_000);

  it("a run that has ended already: run and end at once", async () => {
    const run = await submitReply("75012");
    await rejectRun(supervisor, run.id, { planVersion: 1, reason: "Not needed." });
    const next = eventReader(await get(run.id));
    expect((await next())?.event).toBe("run");
    expect(await next()).toMatchObject({ event: "end", data: { outcome: { code: "rejected" } } });
    expect(await next()).toBeNull();
  });

  it("another agent's run is 404 not_found; without Accept: text/event-stream the answer is {run}", async () => {
    const run = await submitReply("75013");
    const other = await get(run.id, { key: OTHER_KEY });
    expect(other.status).toBe(404);
    expect(((await other.json()) as Json).error.code).toBe("not_found");
    const plain = await get(run.id, { stream: false });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as Json).run).toMatchObject({ id: run.id, status: "pending_review" });
  });

  it("a reconnect with Last-Event-ID is not sent the run it already has; the next change comes, under a new id", async () => {
    const run = await submitReply("75015");
    const ac = new AbortController();
    const first = await eventReader(await get(run.id, { signal: ac.signal }))();
    expect(first?.id).toMatch(/^[0-9a-f]{16}$/);
    ac.abort();
    const next = eventReader(await get(run.id, { lastEventId: first!.id }));
    await rejectRun(supervisor, run.id, { planVersion: 1, reason: "Handled by phone." });
    const again = await next();
    expect(again).toMatchObject({ event: "run", data: { run: { status: "rejected" } } });
    expect(again?.id).not.toBe(first!.id);
    expect(await next()).toMatchObject({ event: "end", data: { outcome: { code: "rejected" } } });
  }, 60_000);

  it("a change whose live event never came (a notification lost while the listener reconnected) reaches the stream at the next heartbeat", async () => {
    const run = await submitReply("75011");
    const ac = new AbortController();
    const read = async () => toRunView(await loadRun(run.id));
    const next = eventReader(new Response(runEventStream(run.id, read, ac.signal, { heartbeatMs: 100 })));
    expect((await next())?.data.run.status).toBe("pending_review");
    // rejected behind the live feed's back: no audit event, so no notification and no poll sees it
    await prisma.run.update({ where: { id: run.id }, data: { status: "rejected", rejectionReason: "Wrong customer." } });
    const events: { event: string; data: Json }[] = [];
    for (let e = await next(); e; e = await next()) events.push(e);
    expect(events.at(-2)).toMatchObject({ event: "run", data: { run: { status: "rejected" } } });
    expect(events.at(-1)).toMatchObject({ event: "end", data: { outcome: { code: "rejected" } } });
    ac.abort();
  }, 60_000);

  it("the agent going away ends the stream", async () => {
    const run = await submitReply("75014");
    const ac = new AbortController();
    const next = eventReader(await get(run.id, { signal: ac.signal }));
    expect((await next())?.event).toBe("run");
    ac.abort();
    expect(await next()).toBeNull();
  });
});
