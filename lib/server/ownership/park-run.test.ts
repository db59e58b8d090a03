/**
 * Skip and snooze (docs/design.md "Skip and snooze"), through the route handlers with real
 * sessions, on SQLite and PostgreSQL: a park leaves the run out of its parker's next only, until
 * its time or a change of the run; a hand-off parks for the requester; a person parks only a
 * waiting run of their own desk.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS, buildDemoDesk } from "@/lib/demo/desk-data";
import { DEMO_AGENT_ID } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { GET as nextRoute } from "@/app/api/runs/[runId]/next/route";
import { DELETE as unparkRoute, POST as parkRoute } from "@/app/api/runs/[runId]/park/route";
import { GET as queueRoute } from "@/app/api/runs/route";
import { POST as handOffRoute } from "@/app/api/runs/[runId]/approval-requests/route";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { submitEdit } from "../edits/submit-edit";
import { submitRun } from "../runs/submit-run";
import { findNextRun } from "../runs/next-run";
import { parksInForce } from "./park-run";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const cookies: Record<string, string> = {};
let senior: Viewer;
let operator: Viewer;

/** A fresh waiting run of a seeded scenario (an addition, so runs of one task stay side by side), due in `seconds`. */
async function freshRun(key: string, seconds: number): Promise<string> {
  const s = buildDemoDesk(new Date()).runs.find((r) => r.key === key)!;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${s.ticketId}` } });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: withRequiredReasons(s.steps), addition: true, expiresInSeconds: seconds }, null);
  expect(run.status).toBe("pending_review");
  return run.id;
}

const as = (who: string) => ({ cookie: cookies[who], origin: TEST_ORIGIN });
async function next(who: string, fromRunId: string): Promise<string | null> {
  const res = await nextRoute(apiRequest("GET", `/api/runs/${fromRunId}/next`, as(who)), routeCtx({ runId: fromRunId }));
  expect(res.status).toBe(200);
  return (await res.json()).next?.id ?? null;
}
async function park(who: string, runId: string, body: unknown) {
  const res = await parkRoute(apiRequest("POST", `/api/runs/${runId}/park`, as(who), body), routeCtx({ runId }));
  return { status: res.status, body: await res.json() };
}
async function queueRow(who: string, runId: string) {
  const res = await queueRoute(apiRequest("GET", "/api/runs?status=pending_review&limit=100", as(who)), routeCtx({}));
  return ((await res.json()).runs as { id: string; park?: unknown }[]).find((r) => r.id === runId);
}

let first: string;
let skipped: string;
let last: string;

beforeAll(async () => {
  await prepareTestDatabase();
  for (const [who, email] of [
    ["senior", "senior@plandesk.test"],
    ["operator", "operator@plandesk.test"],
    ["retail", "retail@plandesk.test"],
  ]) cookies[who] = await signInCookie(email);
  senior = (await loadViewer("usr_senior"))!;
  operator = (await loadViewer("usr_operator"))!;
  // three waiting runs in deadline order: first, skipped, last (the seeded runs are due long before now)
  first = await freshRun("goodwill-75005", 3000);
  skipped = await freshRun("resched-75002", 3100);
  last = await freshRun("goodwill-75005", 3200);
});

describe("skip: out of the skipper's next until the run changes", () => {
  it("the skipper's next passes over the run; another operator's still opens it; the queue marks it for the skipper only", async () => {
    expect(await next("senior", first)).toBe(skipped);
    const parked = await park("senior", skipped, { until: null });
    expect(parked.status).toBe(201);
    expect(parked.body.park).toMatchObject({ runId: skipped, kind: "skip", until: null });
    expect(await next("senior", first)).toBe(last);
    expect(await next("operator", first)).toBe(skipped);
    expect((await queueRow("senior", skipped))?.park).toEqual({ kind: "skip", until: null });
    expect((await queueRow("operator", skipped))?.park).toBeUndefined();
  });

  it("a new plan version (an edit) brings it back", async () => {
    const run = await prisma.run.findUniqueOrThrow({ where: { id: skipped }, include: { planVersions: true } });
    const steps = (run.planVersions[0].steps as { id: string; tool: string; args: Record<string, unknown> }[]).map((s) => ({
      id: s.id,
      tool: s.tool,
      args: s.tool === "send_reply" ? { ...s.args, body: "Done — the delivery is moved to the day you asked for." } : s.args,
    }));
    await submitEdit(operator, skipped, { baseVersion: 1, steps });
    expect(await next("senior", first)).toBe(skipped);
    expect((await queueRow("senior", skipped))?.park).toBeUndefined();
  });

  it("someone else's decision (an approval of one of its steps) brings it back", async () => {
    const runId = await freshRun("resched-75002", 3150);
    const v = (await prisma.run.findUniqueOrThrow({ where: { id: runId } })).planVersion;
    expect((await park("senior", runId, {})).status).toBe(201);
    expect(await next("senior", skipped)).toBe(last);
    await approveSteps(operator, runId, { planVersion: v, stepIds: ["st_resched"], idempotencyKey: `park-${runId}`, acknowledgedWarnings: [] });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("pending_review");
    expect(await next("senior", skipped)).toBe(runId);
  });

  it("Unpark (DELETE) puts it back at once", async () => {
    const runId = await freshRun("goodwill-75005", 3300);
    await park("senior", runId, {});
    expect(await next("senior", last)).not.toBe(runId);
    const res = await unparkRoute(apiRequest("DELETE", `/api/runs/${runId}/park`, as("senior")), routeCtx({ runId }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ park: null });
    expect(await next("senior", last)).toBe(runId);
  });
});

describe("snooze: until a time or a change", () => {
  it("leaves the run out until its time, then the same next opens it", async () => {
    const runId = await freshRun("goodwill-75005", 3400);
    const until = new Date(Date.now() + 60 * 60_000);
    const parked = await park("senior", runId, { until: until.toISOString() });
    expect(parked.status).toBe(201);
    expect(parked.body.park).toMatchObject({ kind: "snooze", until: until.toISOString() });
    expect((await queueRow("senior", runId))?.park).toEqual({ kind: "snooze", until: until.toISOString() });
    const now = new Date();
    expect((await findNextRun(last, {}, now, senior.id))?.id).not.toBe(runId);
    const after = new Date(until.getTime() + 1000);
    expect([...(await parksInForce(senior.id, after)).keys()]).not.toContain(runId);
  });
});

describe("hand-off parks for the person who handed off", () => {
  it("the requester's next passes over the run; the addressee's does not", async () => {
    const runId = await freshRun("goodwill-75005", 3050);
    expect(await next("senior", first)).toBe(runId);
    const res = await handOffRoute(apiRequest("POST", `/api/runs/${runId}/approval-requests`, as("senior"), { toUserId: "usr_operator", note: "Yours: you know this customer." }), routeCtx({ runId }));
    expect(res.status).toBe(201);
    expect(await next("senior", first)).not.toBe(runId);
    expect(await next("operator", first)).toBe(runId);
    expect((await queueRow("senior", runId))?.park).toEqual({ kind: "handoff", until: null });
  });
});

describe("refusals", () => {
  it("a person of another desk cannot park a run (not found), nor can anyone unpark it from there", async () => {
    const res = await park("retail", first, {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
    const del = await unparkRoute(apiRequest("DELETE", `/api/runs/${first}/park`, as("retail")), routeCtx({ runId: first }));
    expect(del.status).toBe(404);
    expect(await prisma.runPark.count({ where: { runId: first } })).toBe(0);
  });
  it("an `until` in the past or beyond 30 days is a bad request, saying why", async () => {
    const past = await park("senior", first, { until: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toMatch(/future/);
    const far = await park("senior", first, { until: new Date(Date.now() + 31 * 24 * 3600_000).toISOString() });
    expect(far.status).toBe(400);
    expect(far.body.error.message).toMatch(/30 days/);
  });
  it("a run that waits for nobody cannot be parked", async () => {
    const done = await freshRun("goodwill-75005", 3500);
    await rejectRun(senior, done, { planVersion: 1, reason: "The goodwill credit is not ours to promise." });
    const res = await park("senior", done, {});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("run_not_pending");
  });
});
