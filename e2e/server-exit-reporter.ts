import fs from "node:fs";
import path from "node:path";
import type { FullResult, Reporter } from "@playwright/test/reporter";

/**
 * Prints, after the run's summary, why the suite's own server (scripts/e2e-server.mjs on
 * E2E_PORT) stopped answering when it exited by itself in the middle of the run: its exit code or
 * signal and its last 64 KiB of output, from `data/e2e-server-exit.log`. A CI log often keeps only
 * the end of a long run's output; without this, every later test reads "connection refused" and
 * the cause scrolled away. The run's status is unchanged (the failing tests already fail it).
 */
export default class ServerExitReporter implements Reporter {
  onEnd(_result: FullResult): void {
    const file = path.join(process.cwd(), "data", "e2e-server-exit.log");
    if (!fs.existsSync(file)) return;
    process.stdout.write(`\n${"=".repeat(100)}\n${fs.readFileSync(file, "utf8")}\n${"=".repeat(100)}\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
