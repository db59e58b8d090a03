import { startBackgroundLoop } from "../load/background-loop";
import { log } from "../../net/log.mjs";
import { discardUnpromotable } from "./staged-effects";

const g = globalThis as unknown as { plandeskStagingSweeper?: ReturnType<typeof setInterval> };

/**
 * Starts, once per server process in demo mode, the sweep of the reference target's staged writes
 * that can no longer be promoted (`discardUnpromotable`, ./staged-effects.ts): a loop of
 * `startBackgroundLoop` labelled `staging_sweep`, every `intervalMs` (the deadline sweep's
 * interval), the first pass at once. Returns false when it was already running.
 * Source: docs/design.md "Staged runs: all or nothing where the target allows it".
 */
export function startStagingSweeper(intervalMs: number): boolean {
  if (g.plandeskStagingSweeper) return false;
  g.plandeskStagingSweeper = startBackgroundLoop(
    "staging_sweep",
    "staging sweep",
    intervalMs,
    async () => {
      const runs = await discardUnpromotable(new Date());
      if (runs.length) log.info(`plandesk: staging sweep discarded the staged writes of ${runs.length} run(s) that can no longer be promoted`);
    },
    true,
  );
  return true;
}
