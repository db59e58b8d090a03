import { startBackgroundLoop } from "../load/background-loop";
import { sweepDeadlines } from "./sweep-deadlines";
import { log } from "../../net/log.mjs";

/** How often the background sweep runs (docs/design.md §10): every 30 s. */
export const SWEEP_INTERVAL_MS = 30_000;

const g = globalThis as unknown as { plandeskSweeper?: ReturnType<typeof setInterval> };

/**
 * Starts the background deadline sweep once per server process (escalation + expiry, see
 * ./sweep-deadlines.ts), the first pass at once: a loop of `startBackgroundLoop` (never
 * overlapping, unref'd, counted, drained; a failing sweep is logged and retried on the next tick).
 * Expiry does not depend on it: decisions re-check
 * deadlines themselves. Returns false when it was already running.
 */
export function startDeadlineSweeper(intervalMs = SWEEP_INTERVAL_MS): boolean {
  if (g.plandeskSweeper) return false;
  g.plandeskSweeper = startBackgroundLoop(
    "deadline_sweep",
    "deadline sweep",
    intervalMs,
    async () => {
      const r = await sweepDeadlines(new Date());
      if (r.escalated.length || r.expired.length || r.deferred) {
        const deferred = r.deferred ? `, deferred ${r.deferred} (busy: the next sweep takes them)` : "";
        log.info(`plandesk: deadline sweep escalated ${r.escalated.length}, expired ${r.expired.length}${deferred}`);
      }
    },
    true,
  );
  return true;
}

/** Stops the background deadline sweep of this process (a pass in flight still ends); false when none ran. */
export function stopDeadlineSweeper(): boolean {
  if (!g.plandeskSweeper) return false;
  clearInterval(g.plandeskSweeper);
  g.plandeskSweeper = undefined;
  return true;
}
