/**
 * `GET /api/metrics` as a Prometheus scraper meets it: off without PLANDESK_METRICS_TOKEN, 401
 * without the token, and with it the decision latency of the requests this file made (by endpoint
 * template and status), their refusals by code (a claim refused twice as `already_claimed`), the
 * runs waiting on a person per desk with the oldest one's age (equal to the database's own
 * counts), the webhook backlog and the pool — and nothing an agent or customer wrote, nor any run
 * or person id. Route handlers in process on this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres), seeded with the demo desks.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { inProcessFetch } from "@/testing/in-process-fetch";
import { approveAllAs, prepareTestDatabase, TEST_NOW, withRequiredReasons } from "@/testing/test-support";
import { WAITING_STATUSES } from "@/lib/server/metrics/metrics";
import { startDeadlineSweeper, stopDeadlineSweeper } from "@/lib/server/deadlines/deadline-sweeper";
import { GET as metricsRoute } from "./metrics/route";

const BASE = "http://localhost:3999";
const TOKEN = "scrape-token-for-tests-0123456789";
const CLAIM = "POST /api/v1/runs/{runId}/steps/{stepId}/claim";
const SECRET_TEXT = "Customer note: my PIN is 4242";

async function scrape(authorization?: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await metricsRoute(new Request(`${BASE}/api/metrics`, { headers: authorization ? { authorization } : {} }));
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The value of one sample line `name{labels} value` (labels in prom-client's order), or null. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf("} ")); // label values may hold braces (path templates)
    const have = inside.split(/,(?=[a-z_]+=")/);
    if (want.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return null;
}

let runId = "";
let stepId = "";

beforeAll(async () => {
  await prepareTestDatabase();
  // A run submitted, approved and claimed, then claimed twice more with other keys: two refusals.
  const agent = { authorization: `Bearer ${DEMO_AGENT_KEY}`, "content-type": "application/json" };
  const task = (await (await inProcessFetch(`${BASE}/api/v1/tasks/task_74991`, { headers: agent })).json()) as { task: { revision: number } };
  const submitted = await inProcessFetch(`${BASE}/api/v1/tasks/task_74991/runs`, {
    method: "POST",
    headers: agent,
    body: JSON.stringify({
      taskRevision: task.task.revision,
      steps: withRequiredReasons([{ id: "s_reply", tool: "send_reply", args: { ticketId: "74991", body: "We are on it." }, rationale: SECRET_TEXT }]),
    }),
  });
  expect(submitted.status).toBe(201);
  const run = ((await submitted.json()) as { run: { id: string; steps: { id: string; digest: string }[] } }).run;
  runId = run.id;
  stepId = run.steps[0].id;
  await approveAllAs(runId, "usr_senior");
  for (const key of ["k1", "k2", "k3"]) {
    await inProcessFetch(`${BASE}/api/v1/runs/${runId}/steps/${stepId}/claim`, {
      method: "POST",
      headers: { ...agent, "idempotency-key": `metrics-${key}` },
      body: JSON.stringify({ digest: run.steps[0].digest, taskRevision: task.task.revision }),
    });
  }
});

afterEach(() => {
  delete process.env.PLANDESK_METRICS_TOKEN;
});

describe("GET /api/metrics", () => {
  it("is off without PLANDESK_METRICS_TOKEN, and refuses a scraper without the token or with another", async () => {
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
    process.env.PLANDESK_METRICS_TOKEN = TOKEN;
    expect((await scrape()).status).toBe(401);
    expect((await scrape(`Bearer ${TOKEN}x`)).status).toBe(401);
    expect((await scrape(`Basic ${TOKEN}`)).status).toBe(401);
  });

  it("gives the scraper latency by endpoint, refusals by code, runs waiting and their age, as the database counts them", async () => {
    process.env.PLANDESK_METRICS_TOKEN = TOKEN;
    const { status, type, text } = await scrape(`Bearer ${TOKEN}`);
    expect(status).toBe(200);
    expect(type).toContain("text/plain; version=0.0.4");
    // The claims this file made: one granted (200), two refused as already_claimed (409), timed per endpoint template.
    expect(sample(text, "plandesk_request_duration_seconds_count", { endpoint: CLAIM, status: "200" })).toBe(1);
    expect(sample(text, "plandesk_request_duration_seconds_count", { endpoint: CLAIM, status: "409" })).toBe(2);
    expect(sample(text, "plandesk_refusals_total", { endpoint: CLAIM, code: "already_claimed" })).toBe(2);
    expect(sample(text, "plandesk_requests_in_flight", { endpoint: CLAIM })).toBe(0);
    // Runs waiting on a person: the database's own counts per desk and status.
    const groups = await prisma.run.groupBy({ by: ["desk", "status"], where: { status: { in: [...WAITING_STATUSES] } }, _count: { _all: true } });
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(sample(text, "plandesk_runs_waiting", { desk: g.desk, status: g.status })).toBe(g._count._all);
    const oldest = await prisma.run.findFirstOrThrow({ where: { status: "pending_review" }, orderBy: { createdAt: "asc" } });
    const age = sample(text, "plandesk_oldest_waiting_run_age_seconds", { status: "pending_review" })!;
    expect(age).toBeGreaterThanOrEqual((Math.max(Date.now(), TEST_NOW.getTime()) - oldest.createdAt.getTime()) / 1000 - 60);
    expect(text).toMatch(/^plandesk_webhook_backlog \d+$/m);
    expect(text).toMatch(/^plandesk_process_resident_memory_bytes \d+/m);
    // PostgreSQL: this process's pool (SQLite has none).
    if (resolveDatabaseUrl().provider === "postgresql") expect(sample(text, "plandesk_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    // Nothing an agent wrote and no ids of runs, steps or people.
    for (const leak of [SECRET_TEXT, "PIN", runId, stepId, "usr_senior", DEMO_AGENT_KEY]) expect(text).not.toContain(leak);
  });

  it("reads a decided run out of the waiting count at the next scrape", async () => {
    process.env.PLANDESK_METRICS_TOKEN = TOKEN;
    const before = await scrape(`Bearer ${TOKEN}`);
    const waiting = await prisma.run.findFirstOrThrow({ where: { status: "pending_review" }, select: { id: true, desk: true } });
    const count = sample(before.text, "plandesk_runs_waiting", { desk: waiting.desk, status: "pending_review" })!;
    await prisma.run.update({ where: { id: waiting.id }, data: { status: "rejected", rejectionReason: "metrics test" } });
    const after = await scrape(`Bearer ${TOKEN}`);
    expect(sample(after.text, "plandesk_runs_waiting", { desk: waiting.desk, status: "pending_review" })).toBe(count - 1);
  });

  it("counts each pass of the deadline sweep and stamps when the last one ended, so a stopped loop shows", async () => {
    process.env.PLANDESK_METRICS_TOKEN = TOKEN;
    const passes = (text: string) => sample(text, "plandesk_background_passes_total", { loop: "deadline_sweep", result: "ok" }) ?? 0;
    const before = passes((await scrape(`Bearer ${TOKEN}`)).text);
    const started = Date.now() / 1000;
    expect(startDeadlineSweeper(3_600_000)).toBe(true); // its first pass runs at once
    try {
      await expect.poll(async () => passes((await scrape(`Bearer ${TOKEN}`)).text), { timeout: 30_000 }).toBe(before + 1);
      const { text } = await scrape(`Bearer ${TOKEN}`);
      expect(sample(text, "plandesk_background_passes_total", { loop: "deadline_sweep", result: "failed" }) ?? 0).toBe(0);
      const last = sample(text, "plandesk_background_last_pass_timestamp_seconds", { loop: "deadline_sweep" })!;
      expect(last).toBeGreaterThanOrEqual(started);
      expect(last).toBeLessThanOrEqual(Date.now() / 1000);
    } finally {
      stopDeadlineSweeper();
    }
  });
});
