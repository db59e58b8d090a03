// What the custom server (scripts/server.mjs) learns of a request while Next.js renders it, across
// the two module graphs of one process (the server's plain modules and Next.js's bundle): one
// AsyncLocalStorage kept on `globalThis` under a registered symbol, so both graphs reach the same
// store. Plain JavaScript so the custom server runs it without a compile step; types in
// request-outcome.d.mts.
import { AsyncLocalStorage } from "node:async_hooks";

const KEY = Symbol.for("plandesk.requestOutcome");
/** @type {AsyncLocalStorage<{ databaseUnavailable: null | { reason: string; retryAfterSeconds: number } }>} */
const storage = (globalThis[KEY] ??= new AsyncLocalStorage());

/** Runs `fn` with a fresh outcome record for one request; returns what `fn` returns. */
export function runWithRequestOutcome(fn) {
  return storage.run({ databaseUnavailable: null }, fn);
}

/**
 * Records that the request being handled failed because the database could not be reached
 * (`reason`: the code that matched, lib/server/http/http.ts `databaseUnavailableReason`). No-op
 * outside `runWithRequestOutcome` (tests, the development server).
 */
export function markDatabaseUnavailable(reason, retryAfterSeconds) {
  const store = storage.getStore();
  if (store && !store.databaseUnavailable) store.databaseUnavailable = { reason, retryAfterSeconds };
}

/**
 * Makes `res` answer 503 with `Retry-After` instead of a 5xx when, by the time its head is
 * written, the request was marked database-unavailable — a page whose render failed on a lost
 * database is a typed, retryable refusal like every API answer, never a 500. Call it inside
 * `runWithRequestOutcome`; the request's record is read when the head is written, since the mark
 * comes during the render. Headers already sent are left alone (a streamed page whose shell went
 * out before the failure). Outside a request it does nothing.
 */
export function answerDatabaseUnavailableAs503(res) {
  const store = storage.getStore();
  if (!store) return;
  const writeHead = res.writeHead;
  res.writeHead = function (statusCode, ...rest) {
    const mark = store.databaseUnavailable;
    if (mark && statusCode >= 500 && !this.headersSent) {
      statusCode = 503;
      // writeHead(status, [statusMessage], [headers]): a reason phrase given for the 500 would be wrong now
      if (typeof rest[0] === "string") rest.shift();
      this.setHeader("Retry-After", String(mark.retryAfterSeconds));
      this.setHeader("Cache-Control", "no-store");
      this.statusCode = 503;
    }
    return writeHead.call(this, statusCode, ...rest);
  };
}
