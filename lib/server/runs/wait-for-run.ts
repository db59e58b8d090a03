import { subscribeLive } from "../feed/live-feed";
import { idleWhile } from "../load/foreground";

/** Longest a long poll holds a request open (`GET /api/v1/runs/{id}?wait=`), in seconds. */
export const MAX_WAIT_SECONDS = 30;

/**
 * Long poll on the live fan-out (lib/server/live: pg_notify on PostgreSQL, the audit poller on
 * SQLite): `check()` is read once subscribed (so no change between the read and the wait is
 * missed); while it answers false, waits until an event of `runId` arrives — then reads again —
 * or `seconds` (capped at MAX_WAIT_SECONDS) pass, or `signal` aborts. Resolves with `check()`'s
 * last value. A decision reaches the waiter within the transport's delay (≤ about a second).
 */
export async function waitForRun<T>(runId: string, seconds: number, check: () => Promise<T | null>, signal?: AbortSignal): Promise<T | null> {
  const until = Date.now() + Math.min(MAX_WAIT_SECONDS, Math.max(0, seconds)) * 1000;
  let wake: (() => void) | null = null;
  const unsubscribe = subscribeLive((e) => {
    if (e.kind === "change" && e.runId === runId) wake?.();
  });
  try {
    for (;;) {
      const seen = await check();
      const left = until - Date.now();
      if (seen !== null || left <= 0 || signal?.aborted) return seen;
      // waiting uses nothing of the instance: bulk work may run meanwhile (lib/server/load/foreground.ts)
      await idleWhile(new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = null;
          resolve();
        }
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      }));
    }
  } finally {
    unsubscribe();
  }
}
