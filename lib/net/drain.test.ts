/**
 * The drain of one server process (lib/net/drain.mjs, run by scripts/server.mjs on SIGTERM/SIGINT),
 * on a real Node http server: requests in flight finish, new connections are refused once the
 * listener closes, answers during the drain carry `Connection: close`, live streams are ended and
 * the database connections released only after the requests finished; a request still open at the
 * bound makes the drain report it. e2e/rolling-restart.spec.ts drains real instances under load.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { backgroundPass, drainServer, endStreams, isDraining, onDrainRelease, onDrainStream, parseDrainSettings, resetDrainState, trackRequests } from "./drain.mjs";

afterEach(() => resetDrainState());

/**
 * A server answering `/slow?ms=N` after N ms, `/hang` never, anything else at once; `onAnswered`
 * hears each answer's path when the server has sent it (the moment the drain's tracker counts).
 */
async function serve(onAnswered: (path: string) => void = () => {}) {
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/hang") return void hanging.push(res);
    const ms = Number(url.searchParams.get("ms") ?? 0);
    res.on("finish", () => onAnswered(url.pathname));
    setTimeout(() => res.end(JSON.stringify({ ok: true, draining: isDraining() })), ms);
  });
  const tracker = trackRequests(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { server, tracker, port, hanging };
}

/** GET `path` on a new connection: status, Connection header and body, or the connection error's code. */
function get(port: number, path: string): Promise<{ status: number; connection: string | undefined; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

/** Resolves once `cond()` holds, checking every 5 ms; rejects after 5 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const lines: string[] = [];
const log = (l: string) => void lines.push(l);

describe("drainServer", () => {
  it("lets requests in flight finish, serves through the notice, then refuses new connections; streams end first, connections are released last", async () => {
    const order: string[] = [];
    const { server, tracker, port } = await serve((path) => path === "/slow" && void order.push("slow answered"));
    onDrainStream(() => order.push("stream ended"));
    onDrainRelease("pool", async () => void order.push("released"));
    const slow = get(port, "/slow?ms=1000");
    await until(() => tracker.open() === 1, "the slow request to arrive");
    const drained = drainServer(server, tracker, { reason: "SIGTERM", noticeMs: 500, boundMs: 5000, log });
    expect(isDraining()).toBe(true);
    // during the notice: still served, but the connection is not kept
    const duringNotice = await get(port, "/fast");
    expect(duringNotice).toMatchObject({ status: 200, connection: "close" });
    expect(JSON.parse((duringNotice as { body: string }).body)).toEqual({ ok: true, draining: true });
    await until(() => !server.listening, "the listener to close after the notice");
    expect(await get(port, "/")).toEqual({ error: "ECONNREFUSED" });
    const result = await drained;
    expect(await slow).toMatchObject({ status: 200 });
    expect(result.finished).toBe(true);
    expect(result.open).toBe(0);
    expect(result.ms).toBeGreaterThanOrEqual(950);
    expect(order).toEqual(["stream ended", "slow answered", "released"]);
    expect(lines.some((l) => l.includes("draining (SIGTERM)"))).toBe(true);
    expect(lines.some((l) => l.includes("every request finished"))).toBe(true);
    expect(lines.at(-1)).toMatch(/released pool; exiting 0/);
  });

  it("reports the requests still open when the bound passes (the server then exits 1)", async () => {
    const { server, tracker, port } = await serve();
    void get(port, "/hang");
    await until(() => tracker.open() === 1, "the hanging request to arrive");
    const t0 = Date.now();
    const result = await drainServer(server, tracker, { reason: "SIGINT", noticeMs: 0, boundMs: 300, log });
    expect(result).toMatchObject({ finished: false, open: 1 });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(lines.some((l) => l.includes("1 requests still open when the 300 ms bound passed"))).toBe(true);
  });

  it("waits for a background pass in flight before it releases the connections, and starts no pass once draining", async () => {
    const { server, tracker } = await serve();
    const order: string[] = [];
    onDrainRelease("pool", async () => void order.push("released"));
    let finishPass!: () => void;
    const pass = backgroundPass(() => new Promise<void>((r) => (finishPass = r)).then(() => void order.push("pass finished")));
    expect(pass).not.toBeNull();
    const drained = drainServer(server, tracker, { reason: "SIGTERM", noticeMs: 0, boundMs: 5000, log });
    expect(backgroundPass(() => order.push("a pass after the signal"))).toBeNull();
    await until(() => !server.listening, "the listener to close");
    expect(order).toEqual([]); // the pool is still there for the pass
    finishPass();
    expect(await drained).toMatchObject({ finished: true, open: 0 });
    expect(order).toEqual(["pass finished", "released"]);
  });

  it("ends a stream opened after the streams were ended, at once", async () => {
    expect(endStreams()).toBe(0);
    const ended = await new Promise<boolean>((resolve) => {
      onDrainStream(() => resolve(true));
      setTimeout(() => resolve(false), 500);
    });
    expect(ended).toBe(true);
  });
});

describe("parseDrainSettings", () => {
  it("defaults to a 25 s bound and a 5 s notice; the notice never exceeds the bound", () => {
    expect(parseDrainSettings({})).toEqual({ boundMs: 25_000, noticeMs: 5_000 });
    expect(parseDrainSettings({ PLANDESK_DRAIN_SECONDS: "10", PLANDESK_DRAIN_NOTICE_SECONDS: "0.5" })).toEqual({ boundMs: 10_000, noticeMs: 500 });
    expect(parseDrainSettings({ PLANDESK_DRAIN_SECONDS: "2", PLANDESK_DRAIN_NOTICE_SECONDS: "9" })).toEqual({ boundMs: 2_000, noticeMs: 2_000 });
  });

  it("refuses a value that is not a number of seconds from 0 to 3600", () => {
    for (const v of ["-1", "soon", "3601"]) expect(() => parseDrainSettings({ PLANDESK_DRAIN_SECONDS: v }), v).toThrow(/PLANDESK_DRAIN_SECONDS/);
  });
});
