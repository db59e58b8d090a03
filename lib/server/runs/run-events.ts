import { createHash } from "node:crypto";
import type { RunView } from "../plans/run-view";
import { subscribeLive } from "../feed/live-feed";
import { HEARTBEAT_MS, sseMessage } from "../live/live-stream";
import { DRAIN_RETRY_MS, onDrainStream } from "../../net/drain.mjs";

/** Longest one run stream stays open, in seconds; the agent reconnects (EventSource does so itself after `retry`). */
export const RUN_STREAM_MAX_SECONDS = 600;

/**
 * The `GET /api/v1/runs/{runId}/events` stream of one agent's run (text/event-stream), so an agent
 * waits for a decision instead of polling (docs/api-extensions.md, "Every state an agent can meet"):
 *
 * - `retry: 3000`, then `run` {run} at once — the run as `read()` gives it (the route: the
 *   agent's view, a passed deadline persisted first) — unless it is exactly the run the agent
 *   last received (`opts.lastEventId`, the `Last-Event-ID` of a reconnect). Every `run` event's
 *   `id` names its content (the first 16 hex digits of the SHA-256 of its data);
 * - `run` {run} again whenever the run changed: read again on every live event of `runId` (the
 *   fan-out of lib/server/live: PostgreSQL NOTIFY at commit, the audit poller on SQLite, about a
 *   second), at every heartbeat (so a lost notification delays it by one heartbeat at most) and at
 *   the run's deadline (`expiresAt`, UTC), sent only when its content differs;
 * - `end` {outcome} once `run.outcome` is set (the run will not move on: completed, rejected,
 *   superseded, stopped, expired, failed, cannot_execute), then the stream closes;
 * - a comment line every `heartbeatMs`; after `maxSeconds` the stream closes with `end`
 *   {outcome: null, reconnect: true}; so does a server that drains (lib/net/drain.mjs), after
 *   `retry: DRAIN_RETRY_MS`.
 *
 * Ends too when `signal` aborts (the agent went away) or the reader cancels; then it
 * unsubscribes. A failed read closes the stream with `error` {code: "internal_error"}.
 */
export function runEventStream(
  runId: string,
  read: () => Promise<RunView>,
  signal: AbortSignal,
  opts: { heartbeatMs?: number; maxSeconds?: number; lastEventId?: string | null } = {},
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cleanup = () => {};
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let last = opts.lastEventId ?? "";
      let reading = false;
      let again = false;
      let deadline: ReturnType<typeof setTimeout> | null = null;
      // The reader may go away between any two sends (the agent's process ended, a proxy cut the
      // connection): a send or close that finds the stream no longer open ends it quietly, never
      // as an exception thrown from a timer.
      const send = (chunk: string) => {
        if (closed) return;
        try {
          controller.enqueue(enc.encode(chunk));
        } catch {
          close();
        }
      };
      const close = () => {
        if (closed) return;
        closed = true;
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed or cancelled by the reader
        }
      };
      const armDeadline = (run: RunView) => {
        if (deadline) clearTimeout(deadline);
        const ms = new Date(run.expiresAt).getTime() - Date.now();
        // setTimeout holds at most ~24.8 days; a later deadline is re-armed by the next read
        if (run.outcome === null && ms >= 0) deadline = setTimeout(() => void refresh(), Math.min(ms + 50, 2 ** 31 - 1));
      };
      // one read at a time; events arriving meanwhile cause one more read after it
      const refresh = async (): Promise<void> => {
        if (closed) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          const run = await read();
          const text = JSON.stringify({ run });
          const id = createHash("sha256").update(text).digest("hex").slice(0, 16);
          if (id !== last) {
            last = id;
            send(`event: run\nid: ${id}\ndata: ${text}\n\n`);
          }
          armDeadline(run);
          if (run.outcome !== null) {
            send(sseMessage("end", { outcome: run.outcome }));
            close();
            return;
          }
        } catch {
          send(sseMessage("error", { code: "internal_error", message: "The run could not be read; reconnect." }));
          close();
          return;
        } finally {
          reading = false;
        }
        if (again) {
          again = false;
          await refresh();
        }
      };
      const unsubscribe = subscribeLive((e) => {
        if (e.kind === "change" && e.runId === runId) void refresh();
      });
      // Each heartbeat reads the run again too (sent only when it changed): a live event that never
      // arrived — a NOTIFY sent while the listening connection was being re-established — costs a
      // waiting agent one heartbeat, not the rest of its wait.
      const heartbeat = setInterval(() => {
        send(": keep-alive\n\n");
        void refresh();
      }, opts.heartbeatMs ?? HEARTBEAT_MS);
      const limit = setTimeout(() => {
        send(sseMessage("end", { outcome: null, reconnect: true }));
        close();
      }, (opts.maxSeconds ?? RUN_STREAM_MAX_SECONDS) * 1000);
      const unregisterDrain = onDrainStream(() => {
        send(`retry: ${DRAIN_RETRY_MS}\n\n`);
        send(sseMessage("end", { outcome: null, reconnect: true }));
        close();
      });
      const onAbort = () => close();
      signal.addEventListener("abort", onAbort, { once: true });
      cleanup = () => {
        unregisterDrain();
        unsubscribe();
        clearInterval(heartbeat);
        clearTimeout(limit);
        if (deadline) clearTimeout(deadline);
        signal.removeEventListener("abort", onAbort);
      };
      send("retry: 3000\n\n");
      void refresh();
    },
    cancel() {
      closed = true;
      cleanup();
    },
  });
}
