import type { LiveEvent, LiveHello } from "../../live/live-event";
import type { Viewer } from "../auth/viewer";
import { subscribeLive, subscribeSessionEnds } from "../feed/live-feed";
import { presenceFor } from "./presence";
import { DRAIN_RETRY_MS, onDrainStream } from "../../net/drain.mjs";

/** Comment line sent this often so proxies keep the stream open and a dead client is noticed. */
export const HEARTBEAT_MS = 15_000;

/** True when `viewer` may see `e`: an operator only their desk's runs (docs/design.md desks), others every desk. */
export function visibleTo(viewer: Pick<Viewer, "role" | "desk">, e: LiveEvent): boolean {
  return viewer.role !== "operator" || e.desk === viewer.desk;
}

/** One server-sent event (`event:` name, one `data:` line of JSON). */
export function sseMessage(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The `GET /api/live` stream of one viewer (text/event-stream): `retry: 3000`, a
 * `hello` event {you, presence} (the viewer's scope), then a `change` or `presence` event for every
 * live event the viewer may see (`visibleTo`), and a comment line every HEARTBEAT_MS. At every
 * heartbeat `opts.recheck` (the route: the session read again) must still give the same person,
 * role and desk; otherwise (signed out, disabled, moved to another desk) the stream sends `closed`
 * {reason: "session"} and ends, so nobody keeps receiving a desk's events on an old sign-in. The
 * same check runs at once when any instance records that a session of the viewer ended
 * (`recordSessionEnd`: signed out, disabled, role changed), so such a stream closes within the
 * feed's delivery time (PostgreSQL: at commit; SQLite: one poll, POLL_MS) rather than a heartbeat.
 * Ends too when `signal` aborts (the client went away) or the reader cancels; then it unsubscribes.
 * When the server drains (lib/net/drain.mjs) it sends `retry: DRAIN_RETRY_MS` and ends: the browser's
 * EventSource reconnects by itself, through the load balancer to an instance that is ready.
 */
export async function liveStream(
  viewer: Viewer,
  signal: AbortSignal,
  opts: { heartbeatMs?: number; recheck?: () => Promise<Pick<Viewer, "id" | "role" | "desk"> | null> } = {},
): Promise<ReadableStream<Uint8Array>> {
  const enc = new TextEncoder();
  let cleanup = () => {};
  const hello: LiveHello = { you: viewer.id, presence: await presenceFor(viewer) };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (s: string) => {
        if (!open) return;
        try {
          controller.enqueue(enc.encode(s));
        } catch {
          cleanup();
        }
      };
      send(`retry: 3000\n\n`);
      send(sseMessage("hello", hello));
      const unsubscribe = subscribeLive((e) => {
        if (visibleTo(viewer, e)) send(sseMessage(e.kind, e));
      });
      const stillTheSame = async () => {
        const now = await opts.recheck!().catch(() => undefined);
        if (now === undefined) return; // the check itself failed: try again at the next heartbeat
        if (!now || now.id !== viewer.id || now.role !== viewer.role || now.desk !== viewer.desk) {
          send(sseMessage("closed", { reason: "session" }));
          cleanup();
        }
      };
      // A session of this person ended on some instance: check at once, not at the next heartbeat.
      const unsubscribeEnds = subscribeSessionEnds((userId) => {
        if (userId === viewer.id && opts.recheck) void stillTheSame();
      });
      const beat = setInterval(() => {
        send(`: ${new Date().toISOString()}\n\n`);
        if (opts.recheck) void stillTheSame();
      }, opts.heartbeatMs ?? HEARTBEAT_MS);
      const unregisterDrain = onDrainStream(() => {
        send(`retry: ${DRAIN_RETRY_MS}\n\n`);
        cleanup();
      });
      cleanup = () => {
        if (!open) return;
        open = false;
        unregisterDrain();
        clearInterval(beat);
        unsubscribe();
        unsubscribeEnds();
        signal.removeEventListener("abort", cleanup);
        try {
          controller.close();
        } catch {
          // already closed by the reader
        }
      };
      if (signal.aborted) cleanup();
      else signal.addEventListener("abort", cleanup);
    },
    cancel() {
      cleanup();
    },
  });
}
