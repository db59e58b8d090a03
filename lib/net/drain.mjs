// Draining one server process on SIGTERM/SIGINT (docs/operations.md "Running it as a service"): the
// custom server (scripts/server.mjs) marks the process draining, keeps serving through a notice
// period (a load balancer polling GET /api/health/ready sees 503 `draining` and stops sending),
// stops accepting connections, ends the live streams with a reconnect hint, waits for the requests
// in flight up to a bound, then releases the database connections. Plain JavaScript: the server
// runs it without a compile step. The route handlers run in the same process as the server (Next.js
// serves them from the custom server's request handler), and read and register through
// `globalThis` — the bundled copy of this module and the server's own copy share one state.

import { log as logger } from "./log.mjs";

const KEY = Symbol.for("plandesk.drain");

/** Milliseconds an SSE client is told to wait before reconnecting when its stream ends for a drain (`retry:`). */
export const DRAIN_RETRY_MS = 1000;
/** Default bound of a drain, from the signal to exit, in seconds (PLANDESK_DRAIN_SECONDS). */
export const DEFAULT_DRAIN_SECONDS = 25;
/** Default notice after SIGTERM before the listener closes, in seconds (PLANDESK_DRAIN_NOTICE_SECONDS). */
export const DEFAULT_DRAIN_NOTICE_SECONDS = 5;

/** The process-wide drain state (one per process, shared across module copies). */
function state() {
  const g = /** @type {Record<symbol, any>} */ (globalThis);
  g[KEY] ??= { draining: false, since: null, streamsEnded: false, streams: new Set(), releases: new Map(), passes: new Set() };
  return g[KEY];
}

/** True once the process received SIGTERM/SIGINT (the readiness answer is then 503 `draining`). */
export function isDraining() {
  return state().draining;
}

/** Marks the process draining (idempotent). `now`: ms since the epoch. */
export function markDraining(now = Date.now()) {
  const s = state();
  if (!s.draining) {
    s.draining = true;
    s.since = now;
  }
}

/**
 * Registers `end` to be called once when the drain ends the live streams (it sends its reconnect
 * hint and closes its stream). A stream opened after that is ended on the next tick. Returns the
 * unregister function (call it when the stream closes for any other reason).
 */
export function onDrainStream(end) {
  const s = state();
  if (s.streamsEnded) {
    setTimeout(end, 0);
    return () => {};
  }
  s.streams.add(end);
  return () => s.streams.delete(end);
}

/** Ends every registered live stream (each `end` once); returns how many. Never throws. */
export function endStreams() {
  const s = state();
  s.streamsEnded = true;
  const ends = [...s.streams];
  s.streams.clear();
  for (const end of ends) {
    try {
      end();
    } catch (e) {
      logger.error({ err: e }, "plandesk: a live stream could not be ended");
    }
  }
  return ends.length;
}

/**
 * Registers what the drain releases last, after the requests finished (the Prisma pool, the
 * PostgreSQL LISTEN connection), under `name`: registering a name again replaces its release.
 */
export function onDrainRelease(name, release) {
  state().releases.set(name, release);
}

/**
 * Runs every registered release at once, each bounded by `timeoutMs`; returns the names released
 * and those that failed or did not finish in time. Never throws.
 */
export async function releaseAll(timeoutMs) {
  const entries = [...state().releases];
  const results = await Promise.all(
    entries.map(async ([name, release]) => {
      let timer;
      try {
        const ok = await Promise.race([Promise.resolve(release()).then(() => true), new Promise((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
        return { name, ok };
      } catch (e) {
        logger.error({ err: e }, `plandesk: releasing ${name} failed`);
        return { name, ok: false };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { released: results.filter((r) => r.ok).map((r) => r.name), failed: results.filter((r) => !r.ok).map((r) => r.name) };
}

/**
 * Runs one pass of a background loop (the deadline sweep, the webhook delivery) unless the process
 * is draining. Returns the pass's promise, or null when the process drains (no pass starts after
 * the signal). The drain waits for the passes in flight as it waits for requests, so none loses
 * its database connections halfway.
 */
export function backgroundPass(pass) {
  const s = state();
  if (s.draining) return null;
  const p = Promise.resolve()
    .then(pass)
    .finally(() => s.passes.delete(p));
  s.passes.add(p);
  return p;
}

/** Forgets the drain state (tests only: one process runs several drains). */
export function resetDrainState() {
  delete (/** @type {Record<symbol, any>} */ (globalThis))[KEY];
}

/**
 * The drain's bounds from the environment, in ms: `boundMs` from PLANDESK_DRAIN_SECONDS (default
 * 25; from signal to exit), `noticeMs` from PLANDESK_DRAIN_NOTICE_SECONDS (default 5; the time
 * between SIGTERM and closing the listener, never more than the bound). Both may be fractional.
 * Errors: throws for a value that is not a number from 0 to 3600.
 */
export function parseDrainSettings(env) {
  const read = (name, fallback) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || n > 3600) throw new Error(`${name} must be a number of seconds from 0 to 3600; got "${raw}"`);
    return n;
  };
  const boundMs = read("PLANDESK_DRAIN_SECONDS", DEFAULT_DRAIN_SECONDS) * 1000;
  const noticeMs = Math.min(read("PLANDESK_DRAIN_NOTICE_SECONDS", DEFAULT_DRAIN_NOTICE_SECONDS) * 1000, boundMs);
  return { boundMs, noticeMs };
}

/**
 * Counts the requests `server` is answering (from its `request` event to the response's `close`).
 * Once the process drains, every answer not yet started carries `Connection: close`, so clients
 * open their next connection elsewhere instead of reusing this one.
 */
export function trackRequests(server) {
  const open = new Set();
  server.on("request", (req, res) => {
    open.add(res);
    if (isDraining()) res.shouldKeepAlive = false;
    res.on("close", () => open.delete(res));
  });
  return {
    /** Requests in flight now. */
    open: () => open.size,
    /** Marks every answer in flight whose headers are not sent yet `Connection: close`. */
    closeAfterAnswer: () => {
      for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Drains `server` (see the module comment): marks the process draining; waits `noticeMs`; stops
 * accepting connections and closes idle keep-alive ones; ends the live streams; waits until the
 * requests in flight (`tracker`, from `trackRequests`) and the background passes in flight
 * (`backgroundPass`) finished, at most until `boundMs` after the start; then releases the database
 * connections. Logs each phase in one line through `log` (default: the process's JSON logger,
 * lib/net/log.mjs, at level info).
 * Returns `{finished, open, ms}`: whether every request finished within the bound, how many were
 * still open, and the drain's duration in ms. The caller exits (0 when finished, else 1).
 */
export async function drainServer(server, tracker, { reason, noticeMs, boundMs, log = (line) => logger.info(line) }) {
  const start = Date.now();
  const deadline = start + boundMs;
  markDraining(start);
  tracker.closeAfterAnswer();
  log(`plandesk: draining (${reason}): readiness answers 503 draining; ${tracker.open()} requests in flight; closing the listener in ${noticeMs} ms (bound ${boundMs} ms)`);
  if (noticeMs > 0) await sleep(noticeMs);
  server.close();
  server.closeIdleConnections();
  tracker.closeAfterAnswer();
  log(`plandesk: drain: stopped accepting connections after ${Date.now() - start} ms; ${tracker.open()} requests in flight`);
  const streams = endStreams();
  log(`plandesk: drain: ended ${streams} live streams (clients reconnect after ${DRAIN_RETRY_MS} ms)`);
  const passes = state().passes;
  while ((tracker.open() > 0 || passes.size > 0) && Date.now() < deadline) {
    await sleep(Math.min(25, Math.max(1, deadline - Date.now())));
    server.closeIdleConnections();
  }
  const open = tracker.open();
  if (open === 0 && passes.size === 0) log(`plandesk: drain: every request finished ${Date.now() - start} ms after the signal`);
  else if (open > 0) log(`plandesk: drain: ${open} requests still open when the ${boundMs} ms bound passed; they are cut off`);
  if (passes.size > 0) log(`plandesk: drain: ${passes.size} background passes still running when the ${boundMs} ms bound passed; they are cut off`);
  server.closeAllConnections();
  const { released, failed } = await releaseAll(Math.max(1000, Math.min(5000, deadline - Date.now())));
  log(`plandesk: drain: released ${released.join(", ") || "nothing"}${failed.length ? `; could not release ${failed.join(", ")}` : ""}; exiting ${open === 0 ? 0 : 1} after ${Date.now() - start} ms`);
  return { finished: open === 0, open, ms: Date.now() - start };
}
