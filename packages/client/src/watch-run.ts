/**
 * Reading one run's server-sent events (`GET /api/v1/runs/{runId}/events` with
 * `Accept: text/event-stream`): the push through which an agent learns a decision the moment the
 * console commits it, instead of asking again. Parsing is eventsource-parser's; what the events
 * mean is the console's (docs/api-extensions.md "Every state an agent can meet"): `run` {run} now and at
 * every change, each with an `id` naming that content; `end` {outcome} when the run will not move
 * on, or {outcome: null, reconnect: true} when the console closes the stream early (its own limit,
 * or a drain before a restart); `error` {code} when it could not read the run.
 */
import { createParser } from "eventsource-parser";
import type { ApiError, Run } from "./client.js";

/** How a watch ended (`AgentClient.watchRun`); never thrown. */
export type WatchEnd =
  /** `onRun` returned true: the caller has what it waited for. */
  | { ended: "stopped"; lastEventId?: string }
  /**
   * The console closed the stream: `reconnect` true when it asked to be asked again (its stream
   * limit, a drain) or the stream ended without saying why; false after `end` with the run's
   * outcome. `lastEventId`: send it back on the next watch so an unchanged run is not sent again.
   */
  | { ended: "closed"; reconnect: boolean; lastEventId?: string }
  /** `opts.signal` aborted. */
  | { ended: "aborted"; lastEventId?: string }
  /**
   * The stream could not be opened or broke: `status` 0 for a network failure, else the HTTP
   * status of a refusal (`error` is its typed body: 404 `not_found`, 503 `database_unavailable`…);
   * `unsupported` when the console answered without an event stream (an older console: wait by
   * long polls instead).
   */
  | { ended: "failed"; status: number; error: ApiError<string>; unsupported: boolean; lastEventId?: string };

/** Options of a watch. */
export interface WatchOptions {
  /** Ends the watch (`aborted`). */
  signal?: AbortSignal;
  /** The `id` of the last `run` event received (sent as `Last-Event-ID`). */
  lastEventId?: string;
  /**
   * A stream silent this long (ms; default 45 000 — the console sends a keep-alive every 15 s)
   * is taken for broken (`failed`, `network_error`): a connection that died without a reset.
   */
  idleMs?: number;
}

/**
 * Opens the run's event stream with `fetchFn` (headers: the agent's `Authorization`, trace
 * context) and calls `onRun` with every run it sends, in order, until `onRun` returns true, the
 * stream ends, or `opts.signal` aborts. Resolves how it ended; never throws.
 */
export async function watchRunEvents(
  fetchFn: (request: Request) => Promise<Response>,
  url: string,
  headers: Record<string, string>,
  onRun: (run: Run) => boolean | void,
  opts: WatchOptions = {},
): Promise<WatchEnd> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  opts.signal?.addEventListener("abort", abort, { once: true });
  let lastEventId = opts.lastEventId;
  const withId = () => (lastEventId ? { lastEventId } : {});
  try {
    if (opts.signal?.aborted) return { ended: "aborted", ...withId() };
    let res: Response;
    try {
      res = await fetchFn(
        new Request(url, {
          headers: { ...headers, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
          signal: stop.signal,
        }),
      );
    } catch (e) {
      if (opts.signal?.aborted) return { ended: "aborted", ...withId() };
      return { ended: "failed", status: 0, error: { code: "network_error", message: `The console at ${new URL(url).origin} could not be reached: ${e instanceof Error ? e.message : String(e)}` }, unsupported: false, ...withId() };
    }
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error?: ApiError<string> } | null;
      const error = body?.error && typeof body.error.code === "string" ? body.error : { code: "bad_response", message: `The console answered ${res.status} without an error body.` };
      return { ended: "failed", status: res.status, error, unsupported: false, ...withId() };
    }
    if (!(res.headers.get("content-type") ?? "").includes("text/event-stream") || !res.body) {
      await res.body?.cancel().catch(() => {});
      return { ended: "failed", status: res.status, error: { code: "bad_response", message: "The console answered without an event stream." }, unsupported: true, ...withId() };
    }
    let outcome: WatchEnd | null = null;
    let failure: ApiError<string> | null = null;
    const parser = createParser({
      onEvent(event) {
        if (outcome || failure) return;
        if (event.event === "run") {
          const run = (JSON.parse(event.data) as { run: Run }).run;
          if (event.id) lastEventId = event.id;
          if (onRun(run) === true) outcome = { ended: "stopped", ...withId() };
        } else if (event.event === "end") {
          const end = JSON.parse(event.data) as { reconnect?: boolean };
          outcome = { ended: "closed", reconnect: end.reconnect === true, ...withId() };
        } else if (event.event === "error") {
          const err = JSON.parse(event.data) as { code?: string; message?: string };
          failure = { code: typeof err.code === "string" ? err.code : "internal", message: err.message ?? "The console could not read the run." };
        }
      },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const idleMs = opts.idleMs ?? 45_000;
    let silent = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        silent = true;
        stop.abort();
      }, idleMs);
    };
    try {
      armIdle();
      while (!outcome && !failure) {
        const { done, value } = await reader.read();
        if (done) break;
        armIdle();
        parser.feed(value);
      }
    } catch (e) {
      if (opts.signal?.aborted) return { ended: "aborted", ...withId() };
      if (silent) return { ended: "failed", status: 0, error: { code: "network_error", message: `The event stream sent nothing for ${Math.round(idleMs / 1000)} s.` }, unsupported: false, ...withId() };
      if (!outcome) return { ended: "failed", status: 0, error: { code: "network_error", message: `The event stream broke: ${e instanceof Error ? e.message : String(e)}` }, unsupported: false, ...withId() };
    } finally {
      clearTimeout(idle);
      stop.abort();
      reader.cancel().catch(() => {});
    }
    if (outcome) return outcome;
    if (failure) return { ended: "failed", status: 200, error: failure, unsupported: false, ...withId() };
    if (opts.signal?.aborted) return { ended: "aborted", ...withId() };
    return { ended: "closed", reconnect: true, ...withId() };
  } catch (e) {
    // a body that is not the console's JSON (a proxy's page in a `run` event…)
    return { ended: "failed", status: 200, error: { code: "bad_response", message: `The event stream could not be read: ${e instanceof Error ? e.message : String(e)}` }, unsupported: false, ...withId() };
  } finally {
    opts.signal?.removeEventListener("abort", abort);
  }
}
