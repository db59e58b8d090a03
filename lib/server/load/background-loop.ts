import { backgroundPass } from "../../net/drain.mjs";
import { log } from "../../net/log.mjs";
import { countBackgroundPass, type BackgroundLoop } from "../metrics/metrics";

/**
 * Starts one background loop of the server process (the deadline sweep, the webhook delivery):
 * `pass` every `intervalMs` ms, and once at once when `runAtStart`. A pass never overlaps the one
 * before (a slow pass makes the next tick skip); none starts once the process drains, and the drain
 * waits for one in flight (`backgroundPass`, lib/net/drain.mjs). Each pass is counted in
 * `plandesk_background_passes_total{loop}` as `ok` or `failed` (lib/server/metrics/metrics.ts); a
 * pass that throws is logged as "plandesk: <what> failed" and the loop goes on at the next tick.
 * The timer is unref'd, so it never keeps a process alive. Returns the timer (clearInterval stops
 * the loop).
 */
export function startBackgroundLoop(loop: BackgroundLoop, what: string, intervalMs: number, pass: () => Promise<void>, runAtStart = false): ReturnType<typeof setInterval> {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await backgroundPass(async () => {
        try {
          await pass();
          countBackgroundPass(loop, "ok");
        } catch (e) {
          countBackgroundPass(loop, "failed");
          log.error({ err: e }, `plandesk: ${what} failed`);
        }
      });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  if (runAtStart) void tick();
  return timer;
}
