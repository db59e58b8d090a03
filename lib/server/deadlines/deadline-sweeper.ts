import { sweepDeadlines } from "./sweep-deadlines";

/** How often the background sweep runs (docs/design.md §10): every 30 s. */
export const SWEEP_INTERVAL_MS = 30_000;

const g = globalThis as unknown as { plandeskSweeper?: ReturnType<typeof setInterval> };

/**
 * Starts the background deadline sweep once per server process (escalation + expiry, see
 * ./sweep-deadlines.ts). The timer is unref'd so it never keeps a process alive, and a failing sweep
 * is logged and retried on the next tick. Expiry does not depend on it: decisions re-check
 * deadlines themselves. Returns false when it was already running.
 */
export function startDeadlineSweeper(intervalMs = SWEEP_INTERVAL_MS): boolean {
  if (g.plandeskSweeper) return false;
  let running = false;
  const tick = async () => {
    if (running) return; // a slow sweep is never overlapped by the next tick
    running = true;
    try {
      const r = await sweepDeadlines(new Date());
      if (r.escalated.length || r.expired.length || r.deferred) {
        const deferred = r.deferred ? `, deferred ${r.deferred} (busy: the next sweep takes them)` : "";
        console.log(`plandesk: deadline sweep escalated ${r.escalated.length}, expired ${r.expired.length}${deferred}`);
      }
    } catch (e) {
      console.error("plandesk: deadline sweep failed", e);
    } finally {
      running = false;
    }
  };
  g.plandeskSweeper = setInterval(tick, intervalMs);
  g.plandeskSweeper.unref?.();
  void tick();
  return true;
}
