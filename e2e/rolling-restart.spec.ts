/**
 * A rolling restart of two production instances (scripts/server.mjs) on one PostgreSQL database,
 * with this test as the load balancer: it polls `GET /api/health/ready` on both and sends a steady
 * stream of real requests — agent reads of a run, integration writes of ticket events — round-robin
 * to the instances its polling finds ready. Mid-load it sends SIGTERM to instance A while slow
 * requests (bodies trickled over ~1.5 s) and a run's event stream are in flight there, waits for A
 * to drain and exit, starts A again, waits until it is ready, then does the same with B.
 * No request may fail (no connection error, no 5xx, no other status than the success), every write
 * acknowledged must be in the database, each slow request must succeed on the draining instance,
 * the event stream must end with its reconnect hint, and each drained process must exit 0.
 */
import fs from "node:fs";
import os from "node:os";
import http from "node:http";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { dropPgTestDatabase } from "../testing/test-databases";
import { freePort, freshSeededPgDatabase, startAppInstance, type AppInstance } from "../testing/app-instances";
import { UNLIMITED_RATES } from "../testing/unlimited-rates";

const AGENT = { authorization: "Bearer pd_demo_agent_key", "content-type": "application/json" };
const INTEGRATION = "Bearer pd_demo_integration_key";
const POLL_MS = 100;
/**
 * The balancer's bound on one readiness answer. A load balancer's health check allows seconds (an
 * ALB's default is 5 s); beside a full suite on two cores a sound instance can take over 1 s to
 * answer, and a 1 s bound read a ready instance as down for minutes.
 */
const PROBE_TIMEOUT_MS = 3000;
/**
 * How long a draining instance keeps serving after SIGTERM, so this balancer's polling sees
 * `draining` first: longer than its slowest detection (a "ready" answer taken just before the
 * signal, then the next probe at its bound), as a deployment's notice exceeds its balancer's.
 */
const NOTICE_SECONDS = 7;
const WORKERS = 6;

let databaseUrl = "";
const slots: { name: string; port: number; instance: AppInstance | null }[] = [];
const env = { ...UNLIMITED_RATES, PLANDESK_PG_POOL_MAX: "4", PLANDESK_DRAIN_NOTICE_SECONDS: String(NOTICE_SECONDS), PLANDESK_DRAIN_SECONDS: "30" };
let publicOrigin = "";

const start = async (slot: (typeof slots)[number]) => {
  slot.instance = await startAppInstance({ databaseUrl, port: slot.port, publicOrigin, readyPath: "/api/health/ready", env });
};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  databaseUrl = await freshSeededPgDatabase();
  const [a, b, lb] = [await freePort(), await freePort(), await freePort()];
  publicOrigin = `http://localhost:${lb}`;
  slots.push({ name: "A", port: a, instance: null }, { name: "B", port: b, instance: null });
  await Promise.all(slots.map(start));
});

test.afterAll(async () => {
  // drained like in the test (so each removes its registration), killed if one does not exit in 10 s
  await Promise.all(
    slots.map(async (s) => {
      const proc = s.instance?.proc;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      if ((await Promise.race([exited, new Promise((r) => setTimeout(() => r("late"), 10_000))])) === "late") {
        try {
          process.kill(-proc.pid!, "SIGKILL");
        } catch {
          /* exited */
        }
      }
    }),
  );
  if (databaseUrl) await dropPgTestDatabase(databaseUrl);
});

/** A POST whose JSON body reaches the server in pieces over `ms` (chunked), so the request is in flight that long. */
function trickledPost(port: number, path: string, headers: Record<string, string>, body: unknown, ms: number): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", headers: { ...headers, "transfer-encoding": "chunked" }, agent: false }, (res) => {
      let out = "";
      res.on("data", (d) => (out += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: out }));
      res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    const pieces = 6;
    const size = Math.ceil(text.length / pieces);
    let i = 0;
    const next = () => {
      req.write(text.slice(i * size, (i + 1) * size));
      i++;
      if (i < pieces) setTimeout(next, ms / pieces);
      else req.end();
    };
    next();
  });
}

/** Opens the run's event stream on `port`; resolves with everything it received when it closes (or the error). */
function runStream(port: number, runId: string): { opened: Promise<void>; closed: Promise<{ text: string } | { error: string }> } {
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const closed = new Promise<{ text: string } | { error: string }>((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: `/api/v1/runs/${runId}/events`, headers: { ...AGENT, accept: "text/event-stream" }, agent: false }, (res) => {
      let text = "";
      res.on("data", (d) => {
        text += d;
        if (text.includes("event: run")) opened();
      });
      res.on("end", () => resolve({ text }));
      res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
  return { opened: openedP, closed };
}

test("a rolling restart of two instances under load: no request fails, every acknowledged write is stored, each drain exits 0", async () => {
  test.setTimeout(360_000);
  const [A] = slots;
  // A run to read, and the tasks to write ticket events for (demo desk tickets). The run's task
  // gets no events: a reply with text revises its task and would stop the run being watched.
  const taskIds = ["task_75002", "task_75006", "task_75007", "task_75008"];
  const task = (await (await fetch(`${A.instance!.origin}/api/v1/tasks/task_75004`, { headers: AGENT })).json()) as { task: { revision: number } };
  const submitted = await fetch(`${A.instance!.origin}/api/v1/tasks/task_75004/runs`, {
    method: "POST",
    headers: AGENT,
    body: JSON.stringify({ taskRevision: task.task.revision, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75004", note: "Rolling restart check." } }] }),
  });
  expect(submitted.status, await submitted.clone().text()).toBe(201);
  const runId = ((await submitted.json()) as { run: { id: string } }).run.id;

  // ── the load balancer: readiness polling ────────────────────────────────────────────────────
  const ready = new Set<string>();
  /** Instances whose readiness answered 503 `draining`: the route saw the flag the server set on SIGTERM (one process). */
  const sawDraining = new Set<string>();
  /** Each instance's last readiness answer (status and body, or the error), for a failure's message. */
  const lastAnswer: Record<string, string> = {};
  let stop = false;
  // one polling loop per instance, as a balancer's health checks are: a slow answer of one never
  // delays noticing that the other drains
  const pollers = slots.map(async (s) => {
    while (!stop) {
      const instance = s.instance;
      if (!instance) ready.delete(s.name);
      else {
        const t0 = Date.now();
        try {
          const res = await fetch(`${instance.origin}/api/health/ready`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
          const body = (await res.json()) as { status: string; reasons?: string[] };
          lastAnswer[s.name] = `${res.status} ${JSON.stringify(body)} in ${Date.now() - t0} ms`;
          if (body.reasons?.includes("draining")) sawDraining.add(s.name);
          if (res.status === 200 && s.instance === instance) ready.add(s.name);
          else ready.delete(s.name);
        } catch (e) {
          const err = e as { name?: string; message?: string; cause?: { code?: string } };
          lastAnswer[s.name] = `${err.cause?.code ?? err.name ?? err.message} after ${Date.now() - t0} ms`;
          ready.delete(s.name);
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  });

  // ── the load: round-robin to the ready instances ──────────────────────────────────────────────
  let sent = 0;
  let turn = 0;
  const failures: string[] = [];
  const acknowledged: string[] = [];
  const perInstance: Record<string, number> = { A: 0, B: 0 };
  const worker = async (w: number) => {
    for (let k = 0; !stop; k++) {
      const live = slots.filter((s) => ready.has(s.name) && s.instance);
      if (live.length === 0) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const slot = live[turn++ % live.length];
      const origin = slot.instance!.origin;
      const write = k % 3 === 2;
      sent++;
      perInstance[slot.name]++;
      try {
        if (write) {
          const taskId = taskIds[(w + k) % taskIds.length];
          const res = await fetch(`${origin}/api/v1/tasks/${taskId}/events`, {
            method: "POST",
            headers: { authorization: INTEGRATION, "content-type": "application/json", "idempotency-key": `rr-${w}-${k}-${Math.random()}` },
            body: JSON.stringify({ type: "customer_replied", detail: `rolling restart ${w}/${k}` }),
          });
          const body = (await res.json()) as { event?: { id: string } };
          if (res.status !== 201) failures.push(`${slot.name} POST events: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          else acknowledged.push(body.event!.id);
        } else {
          const res = await fetch(`${origin}/api/v1/runs/${runId}`, { headers: AGENT });
          const text = await res.text();
          if (res.status !== 200) failures.push(`${slot.name} GET run: ${res.status} ${text.slice(0, 200)}`);
        }
      } catch (e) {
        const err = e as { message?: string; cause?: { code?: string } };
        failures.push(`${slot.name} ${write ? "POST" : "GET"}: ${err.cause?.code ?? err.message}`);
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));

  const waitReady = async (name: string) => {
    // a restarted instance's first readiness: seconds on a quiet machine, over a minute beside a
    // full suite on two cores (a budget only; the wait ends as soon as it answers)
    const deadline = Date.now() + 150_000;
    while (!ready.has(name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const slot = slots.find((s) => s.name === name)!;
    const why = `${name} ready again; its last readiness answer: ${lastAnswer[name] ?? "none"}; its process ${slot.instance ? `exit code ${slot.instance.proc.exitCode}` : "not started"}; its log:\n${slot.instance?.output().slice(-3000) ?? ""}`;
    expect(ready.has(name), why).toBe(true);
  };
  await waitReady("A");
  await waitReady("B");
  await new Promise((r) => setTimeout(r, 1500)); // steady load on both first

  const drains: { name: string; exitCode: number | null; drainMs: number; slow: unknown[]; stream: unknown; log: string }[] = [];
  for (const slot of slots) {
    const instance = slot.instance!;
    // slow requests and an event stream in flight on the instance about to drain
    const stream = runStream(instance.port, runId);
    await stream.opened;
    const slow = [0, 1, 2].map((i) =>
      trickledPost(
        instance.port,
        `/api/v1/tasks/${taskIds[i % taskIds.length]}/events`,
        { authorization: INTEGRATION, "content-type": "application/json", "idempotency-key": `rr-slow-${slot.name}-${i}` },
        { type: "customer_replied", detail: `slow request ${i} on ${slot.name}, in flight during the drain` },
        1500,
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((resolve) => instance.proc.once("exit", (code) => resolve(code)));
    const t0 = Date.now();
    process.kill(instance.proc.pid!, "SIGTERM");
    const exitCode = await exited;
    const drainMs = Date.now() - t0;
    const slowAnswers = await Promise.all(slow);
    for (const a of slowAnswers) {
      if ("error" in a || a.status !== 201) failures.push(`${slot.name} slow POST: ${JSON.stringify(a).slice(0, 200)}`);
      else acknowledged.push((JSON.parse(a.body) as { event: { id: string } }).event.id);
    }
    drains.push({ name: slot.name, exitCode, drainMs, slow: slowAnswers.map((a) => ("error" in a ? a.error : a.status)), stream: await stream.closed, log: instance.output() });
    slot.instance = null;
    await start(slot);
    await waitReady(slot.name);
    await new Promise((r) => setTimeout(r, 1000)); // load on both again before the next one
  }

  stop = true;
  await Promise.all(workers);
  await Promise.all(pollers);

  const figures = { sent, failed: failures.length, sawDraining: [...sawDraining], perInstance, acknowledgedWrites: acknowledged.length, drains: drains.map((d) => ({ name: d.name, exitCode: d.exitCode, drainMs: d.drainMs, slow: d.slow })) };
  console.log(`rolling restart: ${JSON.stringify(figures)}`);
  // PLANDESK_ROLLING_RESULTS=<file>: the figures for bench/results, with when and under what load they were taken
  if (process.env.PLANDESK_ROLLING_RESULTS) {
    const what = "e2e/rolling-restart.spec.ts: two production instances on PostgreSQL under steady load (reads, ticket-event writes, slow writes in flight, one live event stream per instance), each drained by SIGTERM, restarted and waited ready in turn";
    fs.writeFileSync(process.env.PLANDESK_ROLLING_RESULTS, `${JSON.stringify({ what, at: new Date().toISOString(), loadAverage: os.loadavg().map((l) => Number(l.toFixed(1))), cores: os.cpus().length, ...figures }, null, 2)}\n`);
  }
  test.info().annotations.push({ type: "figures", description: JSON.stringify(figures) });

  expect(failures, failures.slice(0, 10).join("\n")).toEqual([]);
  expect(sent).toBeGreaterThan(100);
  expect([...sawDraining].sort()).toEqual(["A", "B"]);
  for (const d of drains) {
    expect(d.exitCode, `${d.name} exit code; its log:\n${d.log.slice(-3000)}`).toBe(0);
    expect(d.slow).toEqual([201, 201, 201]);
    // the run's event stream ended cleanly, with the reconnect hint
    expect(d.stream).toMatchObject({ text: expect.stringContaining("event: end") });
    const text = (d.stream as { text: string }).text;
    expect(text).toMatch(/retry: 1000\n\nevent: end\ndata: {"outcome":null,"reconnect":true}/);
    expect(d.log).toMatch(/plandesk: draining \(SIGTERM\)/);
    expect(d.log).toMatch(/plandesk: drain: every request finished/);
    expect(d.log).toMatch(/plandesk: drain: ended 1 live streams/);
    expect(d.log).toMatch(/released .*the database pool/);
  }
  // every acknowledged write is stored
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const stored = await c.query<{ id: string }>("SELECT id FROM ticket_event WHERE id = ANY($1)", [acknowledged]);
    expect(stored.rows.length).toBe(new Set(acknowledged).size);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
  } finally {
    await c.end();
  }
});
